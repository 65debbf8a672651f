#!/usr/bin/env bash
# Compile every CUDA kernel of `topo bench` with NVRTC (no GPU needed): the ring kernels
# of kernels/allreduce.cu, the program interpreter of kernels/msccl.cu and the streams'
# reduces of kernels/streams.cu, one NVRTC program; `--compile-only` fails when any
# kernel is missing from the build. Installs the nvidia-cuda-nvrtc-cu12 wheel when no
# libnvrtc is found, and puts its lib directory on LD_LIBRARY_PATH (cudarc loads
# libnvrtc.so or libnvrtc.so.12 by name; the wheel ships libnvrtc.so.12).
#
#   ci/compile-kernels.sh                # sm_80 and sm_90
#   ARCHS="sm_90" ci/compile-kernels.sh
set -euo pipefail
cd "$(dirname "$0")/.."

nvrtc_dir() {
  python3 - <<'PY' 2>/dev/null
import importlib, os, sys
try:
    m = importlib.import_module("nvidia.cuda_nvrtc")
except ImportError:
    sys.exit(1)
for p in list(m.__path__):
    d = os.path.join(p, "lib")
    if any(f.startswith("libnvrtc.so") for f in os.listdir(d) if os.path.isdir(d)):
        print(d)
        sys.exit(0)
sys.exit(1)
PY
}

dir=$(nvrtc_dir || true)
if [ -z "$dir" ]; then
  echo "ci/compile-kernels.sh: installing nvidia-cuda-nvrtc-cu12" >&2
  python3 -m pip install --quiet nvidia-cuda-nvrtc-cu12
  dir=$(nvrtc_dir)
fi
export LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

cargo build --quiet --release
for arch in ${ARCHS:-sm_80 sm_90}; do
  "${CARGO_TARGET_DIR:-target}"/release/topo bench allreduce --compile-only --arch "$arch"
done
# The compile-only integration test runs (instead of skipping) with the library found.
cargo test --quiet --test bench_allreduce compile_only
