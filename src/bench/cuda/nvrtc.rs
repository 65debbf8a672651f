//! NVRTC: `kernels/allreduce.cu`, `kernels/msccl.cu` and `kernels/streams.cu` compiled per architecture, ptxas' resource report
//! read back (`--compile-only`), and the cubin cache.

use std::ffi::CString;
use std::path::Path;

use cudarc::nvrtc::{result as nvrtc, sys as nvrtc_sys};

use super::{KERNEL_SOURCE, NTHREADS, all_kernel_names, no_nvrtc, nvrtc_present};
use crate::bench::report::{CompileReport, KernelStats};
use crate::error::Error;

/// `sm_90`, `90` or `9.0` -> `sm_90` (also `sm_90a`).
pub fn normalize_arch(s: &str) -> Result<String, Error> {
    let t = s.trim().to_ascii_lowercase();
    let digits = t.strip_prefix("sm_").or_else(|| t.strip_prefix("compute_")).unwrap_or(&t).replace('.', "");
    let (num, suffix) = digits.split_at(digits.find(|c: char| !c.is_ascii_digit()).unwrap_or(digits.len()));
    if num.len() < 2 || !matches!(suffix, "" | "a" | "f") {
        return Err(Error::Usage(format!("--arch '{s}': expected sm_XX (e.g. sm_80, sm_90)")));
    }
    Ok(format!("sm_{num}{suffix}"))
}

/// A compiled module.
#[derive(Debug, Clone)]
pub struct Compiled {
    pub arch: String,
    pub cubin: Vec<u8>,
    pub log: String,
    pub nvrtc_version: (i32, i32),
}

fn nvrtc_options(arch: &str) -> Vec<String> {
    vec![
        format!("--gpu-architecture={arch}"),
        "--ptxas-options=-v".into(),
        // Keep multiply and add separate, as the host backend computes them.
        "--fmad=false".into(),
        "--std=c++17".into(),
        format!("-DTOPO_NTHREADS={NTHREADS}"),
    ]
}

fn nvrtc_version() -> (i32, i32) {
    let (mut a, mut b) = (0, 0);
    // SAFETY: NVRTC is loaded (checked by the caller); plain out-parameters.
    unsafe { nvrtc_sys::nvrtcVersion(&mut a, &mut b) };
    (a, b)
}

/// Compile `kernels/allreduce.cu`, `kernels/msccl.cu` and `kernels/streams.cu` (one program) to a cubin for `arch` (e.g. `sm_90`).
pub fn compile(arch: &str) -> Result<Compiled, Error> {
    if !nvrtc_present() {
        return Err(no_nvrtc());
    }
    let arch = normalize_arch(arch)?;
    let src = CString::new(KERNEL_SOURCE).map_err(|_| Error::Usage("kernel source contains a NUL byte".into()))?;
    let name = CString::new("allreduce.cu").unwrap_or_default();
    let nv = |what: &'static str| move |e: nvrtc::NvrtcError| Error::Unavailable(format!("NVRTC {what} failed: {e}"));
    let prog = nvrtc::create_program(&src, Some(&name)).map_err(nv("nvrtcCreateProgram"))?;
    // SAFETY: `prog` is a live program until destroyed below.
    let result = unsafe {
        let compiled = nvrtc::compile_program(prog, &nvrtc_options(&arch));
        let log = nvrtc::get_program_log(prog)
            .map(|v| {
                let bytes: Vec<u8> = v.iter().map(|&c| c as u8).take_while(|&c| c != 0).collect();
                String::from_utf8_lossy(&bytes).into_owned()
            })
            .unwrap_or_default();
        match compiled {
            Err(e) => Err(Error::Input {
                file: "kernels/allreduce.cu + kernels/msccl.cu + kernels/streams.cu".into(),
                message: format!("NVRTC could not compile for {arch} ({e}):\n{log}"),
            }),
            Ok(()) => {
                let mut size = 0usize;
                let r = nvrtc_sys::nvrtcGetCUBINSize(prog, &mut size);
                let mut cubin = vec![0u8; size];
                let r2 = if r == nvrtc_sys::nvrtcResult::NVRTC_SUCCESS {
                    nvrtc_sys::nvrtcGetCUBIN(prog, cubin.as_mut_ptr() as *mut _)
                } else {
                    r
                };
                if r2 != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS || size == 0 {
                    Err(Error::Unavailable(format!("NVRTC produced no cubin for {arch} ({r2:?})")))
                } else {
                    Ok(Compiled { arch: arch.clone(), cubin, log, nvrtc_version: nvrtc_version() })
                }
            }
        }
    };
    // SAFETY: created above, destroyed once.
    let _ = unsafe { nvrtc::destroy_program(prog) };
    result
}

/// Read ptxas' `-v` report: registers, stack and spills of each entry function.
pub fn parse_ptxas_log(log: &str) -> Vec<KernelStats> {
    let mut out: Vec<KernelStats> = Vec::new();
    let mut current: Option<usize> = None;
    let num_before = |line: &str, word: &str| -> Option<u32> {
        let i = line.find(word)?;
        line[..i].split_whitespace().last()?.parse().ok()
    };
    for line in log.lines() {
        if let Some(i) = line.find("Compiling entry function '") {
            let rest = &line[i + "Compiling entry function '".len()..];
            let name = rest.split('\'').next().unwrap_or("").to_string();
            out.push(KernelStats { name, ..Default::default() });
            current = Some(out.len() - 1);
        } else if let Some(c) = current {
            if line.contains("bytes stack frame") {
                out[c].stack_bytes = num_before(line, "bytes stack frame").unwrap_or(0);
                out[c].spill_stores = num_before(line, "bytes spill stores").unwrap_or(0);
                out[c].spill_loads = num_before(line, "bytes spill loads").unwrap_or(0);
            } else if line.contains("Used ") && line.contains(" registers") {
                out[c].registers = num_before(line, "registers").unwrap_or(0);
            }
        }
    }
    out
}

/// `--compile-only`: compile for each architecture (the named ones, else the local
/// GPUs', else sm_80 and sm_90) and report every kernel.
pub fn compile_only(archs: &[String]) -> Result<Vec<CompileReport>, Error> {
    let mut targets: Vec<String> = archs.iter().map(|a| normalize_arch(a)).collect::<Result<_, _>>()?;
    let mut default_targets = false;
    if targets.is_empty() {
        targets = super::local_archs().unwrap_or_default();
        if targets.is_empty() {
            targets = vec!["sm_80".into(), "sm_90".into()];
            default_targets = true;
        }
    }
    let expected = all_kernel_names();
    let mut reports = Vec::new();
    for arch in &targets {
        let c = compile(arch)?;
        let stats = parse_ptxas_log(&c.log);
        let mut kernels = Vec::new();
        for k in &expected {
            match stats.iter().find(|s| &s.name == k) {
                Some(s) => kernels.push(s.clone()),
                None => {
                    return Err(Error::Input {
                        file: "kernels/allreduce.cu + kernels/msccl.cu + kernels/streams.cu".into(),
                        message: format!("kernel {k} missing from the {arch} build (ptxas log:\n{})", c.log),
                    });
                }
            }
        }
        reports.push(CompileReport {
            arch: c.arch,
            nvrtc_version: c.nvrtc_version,
            default_targets,
            kernels,
            cubin_bytes: c.cubin.len(),
        });
    }
    Ok(reports)
}

/// FNV-1a, for the cache key (stable across builds, unlike `DefaultHasher`).
fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for &b in *p {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h ^= 0xff;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The cubin for `arch`, from the cache folder or freshly compiled (then cached there).
/// A cache that cannot be written is a warning, added to `warnings`.
pub fn load_or_compile(arch: &str, cache: Option<&Path>, warnings: &mut Vec<String>) -> Result<Vec<u8>, Error> {
    if !nvrtc_present() {
        return Err(no_nvrtc());
    }
    let (a, b) = nvrtc_version();
    let ver = format!("{a}.{b}");
    let opts = nvrtc_options(arch).join(" ");
    let key = fnv1a(&[KERNEL_SOURCE.as_bytes(), opts.as_bytes(), ver.as_bytes()]);
    let path = cache.map(|d| d.join(format!("allreduce-{arch}-{key:016x}.cubin")));
    if let Some(p) = &path
        && let Ok(bytes) = std::fs::read(p)
        && !bytes.is_empty()
    {
        return Ok(bytes);
    }
    let c = compile(arch)?;
    if let Some(p) = &path {
        let tmp = p.with_extension(format!("tmp{}", std::process::id()));
        let saved = p
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|_| std::fs::write(&tmp, &c.cubin))
            .and_then(|_| std::fs::rename(&tmp, p));
        if let Err(e) = saved {
            warnings.push(format!("cannot cache the compiled kernels in {}: {e}", p.display()));
        }
    }
    Ok(c.cubin)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arch_names() {
        assert_eq!(normalize_arch("sm_90").unwrap(), "sm_90");
        assert_eq!(normalize_arch("80").unwrap(), "sm_80");
        assert_eq!(normalize_arch("9.0").unwrap(), "sm_90");
        assert_eq!(normalize_arch("sm_90a").unwrap(), "sm_90a");
        assert!(normalize_arch("hopper").is_err());
        assert!(normalize_arch("sm_9").is_err());
    }

    #[test]
    fn ptxas_log_parsing() {
        let log = "ptxas info    : 0 bytes gmem\n\
ptxas info    : Compiling entry function 'allreduce_sum_float' for 'sm_90'\n\
ptxas info    : Function properties for allreduce_sum_float\n\
ptxas         .     8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads\n\
ptxas info    : Used 72 registers, used 1 barriers, 4 bytes smem\n\
ptxas info    : Compiling entry function 'allreduce_max_int8' for 'sm_90'\n\
ptxas info    : Function properties for allreduce_max_int8\n\
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n\
ptxas info    : Used 40 registers, 380 bytes cmem[0]\n";
        let s = parse_ptxas_log(log);
        assert_eq!(s.len(), 2);
        assert_eq!(
            s[0],
            KernelStats {
                name: "allreduce_sum_float".into(),
                registers: 72,
                stack_bytes: 8,
                spill_stores: 4,
                spill_loads: 12
            }
        );
        assert_eq!(s[1].registers, 40);
    }

    #[test]
    fn cache_key_is_stable() {
        assert_eq!(fnv1a(&[b"abc"]), fnv1a(&[b"abc"]));
        assert_ne!(fnv1a(&[b"ab", b"c"]), fnv1a(&[b"a", b"bc"]));
    }
}
