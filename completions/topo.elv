
use builtin;
use str;

set edit:completion:arg-completer[topo] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'topo'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'topo'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand show 'Show the system NCCL builds: CPUs, switches, GPUs, NICs, links and bandwidths'
            cand paths 'Path type and bandwidth between every GPU and NIC, then the P2P and GDR verdicts'
            cand analyze 'Everything the model decides: the system, paths and verdicts, graphs, the channels NCCL runs, tuning'
            cand search 'NCCL''s channel search: ring, tree, NVLS and CollNet graphs, and the channels NCCL runs'
            cand tune 'NCCL''s performance model: algorithm, protocol, time and bandwidth per message size'
            cand diff 'What differs between two topology dumps, and what it does to NCCL (exit 0 same, 1 different)'
            cand fleet 'Group many dumps (one per node) and explain every outlier against the largest group'
            cand log 'Read an NCCL debug log (NCCL_DEBUG=INFO), show what it says, and hold it against the model'
            cand bench 'Measure collectives through topo''s own ring kernels along the searched channels'
            cand algo 'Collective programs (MSCCL-IR): check and show them, make them for a machine, plan them as HCCL does, cost and compare them'
            cand detect 'Detect this machine (or a --root tree) and write it as NCCL topology XML'
            cand check 'Health checks of this machine for NCCL (exit 1 when a finding is an error)'
            cand fixtures 'List the machines topo carries built in (for --fixture)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'topo;show'= {
            cand --topo 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)'
            cand --fixture 'A machine topo carries built in (see `topo fixtures`)'
            cand --root 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine'
            cand --nvml-fake 'With live or --root detection: NVML''s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README''s "The fake-NVML file" describes every key)'
            cand --nodes 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0'
            cand --color 'Colour verdicts and severities (errors red, warnings yellow, what is fine green): auto (on a terminal, unless NO_COLOR is set), always or never. Text fits the terminal''s width (or COLUMNS when set); into a pipe without COLUMNS it is printed unwrapped, the same every time'
            cand --no-p2p-support 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)'
            cand --no-nic-fusion 'The network plugin does not fuse the ports of a NIC into one virtual device'
            cand --collnet 'Every NIC is CollNet (SHARP) capable'
            cand --no-nvls 'NVLink SHARP (NVLS) is not available'
            cand --mnnvl 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node'
            cand --xml 'Print the topology as normalised NCCL XML instead'
            cand --json 'Print the system as JSON'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'topo;paths'= {
            cand --topo 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)'
            cand --fixture 'A machine topo carries built in (see `topo fixtures`)'
            cand --root 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine'
            cand --nvml-fake 'With live or --root detection: NVML''s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README''s "The fake-NVML file" describes every key)'
            cand --nodes 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0'
            cand --color 'Colour path types and verdicts: auto (on a terminal, unless NO_COLOR is set), always or never. Tables fit the terminal''s width (or COLUMNS when set); into a pipe without COLUMNS they are printed whole, one matrix'
            cand --no-p2p-support 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)'
            cand --no-nic-fusion 'The network plugin does not fuse the ports of a NIC into one virtual device'
            cand --collnet 'Every NIC is CollNet (SHARP) capable'
            cand --no-nvls 'NVLink SHARP (NVLS) is not available'
            cand --mnnvl 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node'
            cand --json 'Print JSON (paths, P2P and GDR verdicts with their reasons)'
            cand --explain 'Give the reason for every P2P, transport and GDR decision, and each path''s route'
            cand --dot 'Print Graphviz of the system with the chosen paths (`| dot -Tsvg > topo.svg`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'topo;analyze'= {
            cand --topo 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)'
            cand --fixture 'A machine topo carries built in (see `topo fixtures`)'
            cand --root 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine'
            cand --nvml-fake 'With live or --root detection: NVML''s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README''s "The fake-NVML file" describes every key)'
            cand --nodes 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0'
            cand --color 'Colour verdicts and severities (errors red, warnings yellow, what is fine green): auto (on a terminal, unless NO_COLOR is set), always or never. Text fits the terminal''s width (or COLUMNS when set); into a pipe without COLUMNS it is printed unwrapped, the same every time'
            cand --no-p2p-support 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)'
            cand --no-nic-fusion 'The network plugin does not fuse the ports of a NIC into one virtual device'
            cand --collnet 'Every NIC is CollNet (SHARP) capable'
            cand --no-nvls 'NVLink SHARP (NVLS) is not available'
            cand --mnnvl 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node'
            cand --json 'Print the JSON document (schema 1) instead of the human summary'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'topo;search'= {
            cand --topo 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)'
            cand --fixture 'A machine topo carries built in (see `topo fixtures`)'
            cand --root 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine'
            cand --nvml-fake 'With live or --root detection: NVML''s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README''s "The fake-NVML file" describes every key)'
            cand --nodes 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0'
            cand --channel 'With --dot: draw channel N of one graph (--graph, default ring) over the machine, with each link''s load per direction'
            cand --graph 'Graphs to show, comma-separated or repeated [default: all computed]'
            cand --rank 'Show this rank''s Ring/Trees log lines instead of rank 0''s'
            cand --graph-file 'Load graphs from an NCCL graph file, as NCCL_GRAPH_FILE does (overrides it), and report what they cost: oversubscribed links and the bandwidth each channel gets'
            cand --color 'Colour verdicts and severities (errors red, warnings yellow, what is fine green): auto (on a terminal, unless NO_COLOR is set), always or never. Text fits the terminal''s width (or COLUMNS when set); into a pipe without COLUMNS it is printed unwrapped, the same every time'
            cand --no-p2p-support 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)'
            cand --no-nic-fusion 'The network plugin does not fuse the ports of a NIC into one virtual device'
            cand --collnet 'Every NIC is CollNet (SHARP) capable'
            cand --no-nvls 'NVLink SHARP (NVLS) is not available'
            cand --mnnvl 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node'
            cand --xml 'Print exactly what NCCL writes to NCCL_GRAPH_DUMP_FILE (all graphs)'
            cand --json 'Print the graphs and the channels NCCL runs (`run`) as JSON'
            cand --dot 'Print Graphviz of the channels, one small diagram per distinct channel (`| dot -Tsvg > ch.svg`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'topo;tune'= {
            cand -d 'Element type, as nccl-tests'' -d (int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16): sizes become whole elements of it, and NVLS runs only the types it can reduce'
            cand --datatype 'Element type, as nccl-tests'' -d (int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16): sizes become whole elements of it, and NVLS runs only the types it can reduce'
            cand -o 'Reduction, as nccl-tests'' -o (sum, prod, min, max, avg): NVLS reduces only some'
            cand --op 'Reduction, as nccl-tests'' -o (sum, prod, min, max, avg): NVLS reduces only some'
            cand --topo 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)'
            cand --fixture 'A machine topo carries built in (see `topo fixtures`)'
            cand --root 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine'
            cand --nvml-fake 'With live or --root detection: NVML''s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README''s "The fake-NVML file" describes every key)'
            cand --nodes 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0'
            cand -b 'Smallest size in bytes, as nccl-tests'' -b (K, M, G suffixes are powers of 1024)'
            cand --minbytes 'Smallest size in bytes, as nccl-tests'' -b (K, M, G suffixes are powers of 1024)'
            cand -e 'Largest size in bytes, as nccl-tests'' -e'
            cand --maxbytes 'Largest size in bytes, as nccl-tests'' -e'
            cand -f 'Multiply the size by this between rows, as nccl-tests'' -f (default 2)'
            cand --stepfactor 'Multiply the size by this between rows, as nccl-tests'' -f (default 2)'
            cand -i 'Add this many bytes between rows instead, as nccl-tests'' -i'
            cand --stepbytes 'Add this many bytes between rows instead, as nccl-tests'' -i'
            cand --color 'Colour verdicts and severities (errors red, warnings yellow, what is fine green): auto (on a terminal, unless NO_COLOR is set), always or never. Text fits the terminal''s width (or COLUMNS when set); into a pipe without COLUMNS it is printed unwrapped, the same every time'
            cand --no-p2p-support 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)'
            cand --no-nic-fusion 'The network plugin does not fuse the ports of a NIC into one virtual device'
            cand --collnet 'Every NIC is CollNet (SHARP) capable'
            cand --no-nvls 'NVLink SHARP (NVLS) is not available'
            cand --mnnvl 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node'
            cand --table 'Also print NCCL''s tuning table (latency/bandwidth per collective, algorithm and protocol)'
            cand --json 'Print JSON'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'topo;diff'= {
            cand --against-version 'Model B as this NCCL release (A stays at --nccl-version): what changes on the same machine when NCCL is upgraded, e.g. `topo diff m.xml --nccl-version 2.21.5 --against-version 2.28.9`'
            cand --ignore 'Hide differences in these attributes (comma-separated or repeated), e.g. host_hash, guid, name, busid, affinity; `nccl` hides the NCCL results'
            cand --nodes 'Model each dump as one node of an N-node job (2 and more route rings and trees through the NICs, as on a cluster; 1 models a single machine)'
            cand --color 'Colour verdicts and severities (errors red, warnings yellow, what is fine green): auto (on a terminal, unless NO_COLOR is set), always or never. Text fits the terminal''s width (or COLUMNS when set); into a pipe without COLUMNS it is printed unwrapped, the same every time'
            cand --json 'Print JSON for scripts'
            cand --no-nic-fusion 'The network plugin does not fuse the ports of a NIC into one virtual device'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'topo;fleet'= {
            cand --ignore 'Also ignore these attributes (comma-separated or repeated), e.g. name to ignore NIC names; host_hash and guid are always ignored'
            cand --reference 'Compare with this dump''s group instead of the largest group (a file of the fleet, or any other dump)'
            cand --nodes 'Model each dump as one node of an N-node job (2 and more route rings and trees through the NICs, as on a cluster; 1 models a single machine)'
            cand --color 'Colour verdicts and severities (errors red, warnings yellow, what is fine green): auto (on a terminal, unless NO_COLOR is set), always or never. Text fits the terminal''s width (or COLUMNS when set); into a pipe without COLUMNS it is printed unwrapped, the same every time'
            cand --json 'Print JSON for scripts'
            cand --skip-bad 'Report unreadable dumps and go on, instead of stopping with exit status 2'
            cand --no-nic-fusion 'The network plugin does not fuse the ports of a NIC into one virtual device'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'topo;log'= {
            cand --rank 'Show only this rank''s per-rank lines (graphs, trees, connections)'
            cand --topo 'The machine the log ran on, when the log has no system print (or to check a topology file against a log)'
            cand -o 'Write to FILE instead of standard output (replaced whole, never half-written; the text unwrapped, as into a pipe, and coloured only with --color always)'
            cand --output 'Write to FILE instead of standard output (replaced whole, never half-written; the text unwrapped, as into a pipe, and coloured only with --color always)'
            cand --color 'Colour verdicts and severities (errors red, warnings yellow, what is fine green): auto (on a terminal, unless NO_COLOR is set), always or never. Text fits the terminal''s width (or COLUMNS when set); into a pipe without COLUMNS it is printed unwrapped, the same every time'
            cand --json 'Print JSON for scripts (the facts, what is unusual, the model''s findings)'
            cand --xml 'Print the topology rebuilt from the log''s system print, as NCCL topology XML (what the log cannot tell is said on stderr)'
            cand --dot 'Print the logged rings as Graphviz'
            cand --no-model 'Do not hold the log against topo''s model (by default it is, when the log has a system print or --topo names the machine)'
            cand -v 'Count the NCCL lines topo does not know, by first word'
            cand --verbose 'Count the NCCL lines topo does not know, by first word'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'topo;bench'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand allreduce 'Allreduce bandwidth probe with nccl-tests'' flags and output, set against the model'
            cand allgather 'Allgather of an MSCCL-IR program (--algo) on host threads or a GPU per rank, in all_gather_perf''s columns'
            cand reducescatter 'Reduce-scatter of an MSCCL-IR program (--algo) on host threads or a GPU per rank, in reduce_scatter_perf''s columns'
            cand alltoall 'Alltoall of an MSCCL-IR program (--algo) on host threads or a GPU per rank, in alltoall_perf''s columns'
            cand broadcast 'Broadcast of an MSCCL-IR program (--algo) on host threads or a GPU per rank, in broadcast_perf''s columns'
            cand reduce 'Reduce of an MSCCL-IR program (--algo) on host threads or a GPU per rank, in reduce_perf''s columns'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'topo;bench;allreduce'= {
            cand -b 'Smallest message size in bytes (K, M, G suffixes)'
            cand --minbytes 'Smallest message size in bytes (K, M, G suffixes)'
            cand -e 'Largest message size in bytes'
            cand --maxbytes 'Largest message size in bytes'
            cand -i 'Size increment between steps, when no step factor is given (a sweep holds at most 4096 sizes)'
            cand --stepbytes 'Size increment between steps, when no step factor is given (a sweep holds at most 4096 sizes)'
            cand -f 'Multiply the size by this factor at each step (over 1 takes precedence over -i)'
            cand --stepfactor 'Multiply the size by this factor at each step (over 1 takes precedence over -i)'
            cand -n 'Timed iterations per size (1 to 1000000)'
            cand --iters 'Timed iterations per size (1 to 1000000)'
            cand -w 'Warm-up iterations per size (sizes doubling from min to max), before timing (at most 10000)'
            cand --warmup_iters 'Warm-up iterations per size (sizes doubling from min to max), before timing (at most 10000)'
            cand -c 'Validation runs per measurement (0: no validation, #wrong is N/A; at most 1000)'
            cand --check 'Validation runs per measurement (0: no validation, #wrong is N/A; at most 1000)'
            cand -d 'Element type: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, or all'
            cand --datatype 'Element type: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, or all'
            cand -o 'Reduction: sum, prod, min, max, avg, or all'
            cand --op 'Reduction: sum, prod, min, max, avg, or all'
            cand -g 'Number of ranks, 1 to 256 (default: every local GPU; host backend: CPU cores, 2 to 8)'
            cand --ngpus 'Number of ranks, 1 to 256 (default: every local GPU; host backend: CPU cores, 2 to 8)'
            cand -J 'Also write nccl-tests'' JSON report here (never overwritten: FILE.0, FILE.1... instead, said on stderr)'
            cand --output_file 'Also write nccl-tests'' JSON report here (never overwritten: FILE.0, FILE.1... instead, said on stderr)'
            cand --backend 'Run on the GPUs (cuda) or on CPU threads (host)'
            cand --channels 'Channels (rings) to run, 1 to 64; repeats or trims the plan''s rings (default: the plan''s; without a search 8 on CUDA and 1 on the host backend)'
            cand --graph-file 'Run the ring channels (graph 0) of this NCCL graph XML file (NCCL_GRAPH_DUMP_FILE format)'
            cand --transport 'Use this transport on every ring edge instead of the plan''s (P2P when there is no model)'
            cand --slot-bytes 'Bytes per FIFO slot (one pipelined chunk); default 512K on the host, 128K on CUDA'
            cand --arch 'Target architecture for --compile-only (sm_80, sm_90...; default: the local GPUs'', else sm_80 and sm_90)'
            cand --topo 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)'
            cand --fixture 'A machine topo carries built in (see `topo fixtures`)'
            cand --root 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine'
            cand --nvml-fake 'With live or --root detection: NVML''s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README''s "The fake-NVML file" describes every key)'
            cand --nodes 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0'
            cand --algo 'Run this MSCCL-IR program instead of NCCL''s rings (refused with `topo algo check`''s findings unless it passes), on host threads or with the CUDA interpreter kernel (one GPU per rank)'
            cand --in-place 'Only the in-place measurement'
            cand --out-of-place 'Only the out-of-place measurement'
            cand --compile-only 'Compile every kernel with NVRTC and report registers and spills; no GPU needed'
            cand --no-p2p-support 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)'
            cand --no-nic-fusion 'The network plugin does not fuse the ports of a NIC into one virtual device'
            cand --collnet 'Every NIC is CollNet (SHARP) capable'
            cand --no-nvls 'NVLink SHARP (NVLS) is not available'
            cand --mnnvl 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'topo;bench;allgather'= {
            cand -b 'Smallest message size in bytes (K, M, G suffixes)'
            cand --minbytes 'Smallest message size in bytes (K, M, G suffixes)'
            cand -e 'Largest message size in bytes'
            cand --maxbytes 'Largest message size in bytes'
            cand -i 'Size increment between steps, when no step factor is given (a sweep holds at most 4096 sizes)'
            cand --stepbytes 'Size increment between steps, when no step factor is given (a sweep holds at most 4096 sizes)'
            cand -f 'Multiply the size by this factor at each step (over 1 takes precedence over -i)'
            cand --stepfactor 'Multiply the size by this factor at each step (over 1 takes precedence over -i)'
            cand -n 'Timed iterations per size (1 to 1000000)'
            cand --iters 'Timed iterations per size (1 to 1000000)'
            cand -w 'Warm-up iterations per size (sizes doubling from min to max), before timing (at most 10000)'
            cand --warmup_iters 'Warm-up iterations per size (sizes doubling from min to max), before timing (at most 10000)'
            cand -c 'Validation runs per measurement (0: no validation, #wrong is N/A; at most 1000)'
            cand --check 'Validation runs per measurement (0: no validation, #wrong is N/A; at most 1000)'
            cand -d 'Element type: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, or all'
            cand --datatype 'Element type: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, or all'
            cand -o 'Reduction: sum, prod, min, max, avg, or all'
            cand --op 'Reduction: sum, prod, min, max, avg, or all'
            cand -g 'Number of ranks, 1 to 256 (default: every local GPU; host backend: CPU cores, 2 to 8)'
            cand --ngpus 'Number of ranks, 1 to 256 (default: every local GPU; host backend: CPU cores, 2 to 8)'
            cand -J 'Also write nccl-tests'' JSON report here (never overwritten: FILE.0, FILE.1... instead, said on stderr)'
            cand --output_file 'Also write nccl-tests'' JSON report here (never overwritten: FILE.0, FILE.1... instead, said on stderr)'
            cand --backend 'Run on the GPUs (cuda) or on CPU threads (host)'
            cand --channels 'Channels (rings) to run, 1 to 64; repeats or trims the plan''s rings (default: the plan''s; without a search 8 on CUDA and 1 on the host backend)'
            cand --graph-file 'Run the ring channels (graph 0) of this NCCL graph XML file (NCCL_GRAPH_DUMP_FILE format)'
            cand --transport 'Use this transport on every ring edge instead of the plan''s (P2P when there is no model)'
            cand --slot-bytes 'Bytes per FIFO slot (one pipelined chunk); default 512K on the host, 128K on CUDA'
            cand --arch 'Target architecture for --compile-only (sm_80, sm_90...; default: the local GPUs'', else sm_80 and sm_90)'
            cand -r 'Root rank of broadcast and reduce (a program is for the root it was written for)'
            cand --root 'Root rank of broadcast and reduce (a program is for the root it was written for)'
            cand --algo 'Run this MSCCL-IR program instead of NCCL''s rings (refused with `topo algo check`''s findings unless it passes), on host threads or with the CUDA interpreter kernel (one GPU per rank)'
            cand --in-place 'Only the in-place measurement'
            cand --out-of-place 'Only the out-of-place measurement'
            cand --compile-only 'Compile every kernel with NVRTC and report registers and spills; no GPU needed'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'topo;bench;reducescatter'= {
            cand -b 'Smallest message size in bytes (K, M, G suffixes)'
            cand --minbytes 'Smallest message size in bytes (K, M, G suffixes)'
            cand -e 'Largest message size in bytes'
            cand --maxbytes 'Largest message size in bytes'
            cand -i 'Size increment between steps, when no step factor is given (a sweep holds at most 4096 sizes)'
            cand --stepbytes 'Size increment between steps, when no step factor is given (a sweep holds at most 4096 sizes)'
            cand -f 'Multiply the size by this factor at each step (over 1 takes precedence over -i)'
            cand --stepfactor 'Multiply the size by this factor at each step (over 1 takes precedence over -i)'
            cand -n 'Timed iterations per size (1 to 1000000)'
            cand --iters 'Timed iterations per size (1 to 1000000)'
            cand -w 'Warm-up iterations per size (sizes doubling from min to max), before timing (at most 10000)'
            cand --warmup_iters 'Warm-up iterations per size (sizes doubling from min to max), before timing (at most 10000)'
            cand -c 'Validation runs per measurement (0: no validation, #wrong is N/A; at most 1000)'
            cand --check 'Validation runs per measurement (0: no validation, #wrong is N/A; at most 1000)'
            cand -d 'Element type: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, or all'
            cand --datatype 'Element type: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, or all'
            cand -o 'Reduction: sum, prod, min, max, avg, or all'
            cand --op 'Reduction: sum, prod, min, max, avg, or all'
            cand -g 'Number of ranks, 1 to 256 (default: every local GPU; host backend: CPU cores, 2 to 8)'
            cand --ngpus 'Number of ranks, 1 to 256 (default: every local GPU; host backend: CPU cores, 2 to 8)'
            cand -J 'Also write nccl-tests'' JSON report here (never overwritten: FILE.0, FILE.1... instead, said on stderr)'
            cand --output_file 'Also write nccl-tests'' JSON report here (never overwritten: FILE.0, FILE.1... instead, said on stderr)'
            cand --backend 'Run on the GPUs (cuda) or on CPU threads (host)'
            cand --channels 'Channels (rings) to run, 1 to 64; repeats or trims the plan''s rings (default: the plan''s; without a search 8 on CUDA and 1 on the host backend)'
            cand --graph-file 'Run the ring channels (graph 0) of this NCCL graph XML file (NCCL_GRAPH_DUMP_FILE format)'
            cand --transport 'Use this transport on every ring edge instead of the plan''s (P2P when there is no model)'
            cand --slot-bytes 'Bytes per FIFO slot (one pipelined chunk); default 512K on the host, 128K on CUDA'
            cand --arch 'Target architecture for --compile-only (sm_80, sm_90...; default: the local GPUs'', else sm_80 and sm_90)'
            cand -r 'Root rank of broadcast and reduce (a program is for the root it was written for)'
            cand --root 'Root rank of broadcast and reduce (a program is for the root it was written for)'
            cand --algo 'Run this MSCCL-IR program instead of NCCL''s rings (refused with `topo algo check`''s findings unless it passes), on host threads or with the CUDA interpreter kernel (one GPU per rank)'
            cand --in-place 'Only the in-place measurement'
            cand --out-of-place 'Only the out-of-place measurement'
            cand --compile-only 'Compile every kernel with NVRTC and report registers and spills; no GPU needed'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'topo;bench;alltoall'= {
            cand -b 'Smallest message size in bytes (K, M, G suffixes)'
            cand --minbytes 'Smallest message size in bytes (K, M, G suffixes)'
            cand -e 'Largest message size in bytes'
            cand --maxbytes 'Largest message size in bytes'
            cand -i 'Size increment between steps, when no step factor is given (a sweep holds at most 4096 sizes)'
            cand --stepbytes 'Size increment between steps, when no step factor is given (a sweep holds at most 4096 sizes)'
            cand -f 'Multiply the size by this factor at each step (over 1 takes precedence over -i)'
            cand --stepfactor 'Multiply the size by this factor at each step (over 1 takes precedence over -i)'
            cand -n 'Timed iterations per size (1 to 1000000)'
            cand --iters 'Timed iterations per size (1 to 1000000)'
            cand -w 'Warm-up iterations per size (sizes doubling from min to max), before timing (at most 10000)'
            cand --warmup_iters 'Warm-up iterations per size (sizes doubling from min to max), before timing (at most 10000)'
            cand -c 'Validation runs per measurement (0: no validation, #wrong is N/A; at most 1000)'
            cand --check 'Validation runs per measurement (0: no validation, #wrong is N/A; at most 1000)'
            cand -d 'Element type: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, or all'
            cand --datatype 'Element type: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, or all'
            cand -o 'Reduction: sum, prod, min, max, avg, or all'
            cand --op 'Reduction: sum, prod, min, max, avg, or all'
            cand -g 'Number of ranks, 1 to 256 (default: every local GPU; host backend: CPU cores, 2 to 8)'
            cand --ngpus 'Number of ranks, 1 to 256 (default: every local GPU; host backend: CPU cores, 2 to 8)'
            cand -J 'Also write nccl-tests'' JSON report here (never overwritten: FILE.0, FILE.1... instead, said on stderr)'
            cand --output_file 'Also write nccl-tests'' JSON report here (never overwritten: FILE.0, FILE.1... instead, said on stderr)'
            cand --backend 'Run on the GPUs (cuda) or on CPU threads (host)'
            cand --channels 'Channels (rings) to run, 1 to 64; repeats or trims the plan''s rings (default: the plan''s; without a search 8 on CUDA and 1 on the host backend)'
            cand --graph-file 'Run the ring channels (graph 0) of this NCCL graph XML file (NCCL_GRAPH_DUMP_FILE format)'
            cand --transport 'Use this transport on every ring edge instead of the plan''s (P2P when there is no model)'
            cand --slot-bytes 'Bytes per FIFO slot (one pipelined chunk); default 512K on the host, 128K on CUDA'
            cand --arch 'Target architecture for --compile-only (sm_80, sm_90...; default: the local GPUs'', else sm_80 and sm_90)'
            cand -r 'Root rank of broadcast and reduce (a program is for the root it was written for)'
            cand --root 'Root rank of broadcast and reduce (a program is for the root it was written for)'
            cand --algo 'Run this MSCCL-IR program instead of NCCL''s rings (refused with `topo algo check`''s findings unless it passes), on host threads or with the CUDA interpreter kernel (one GPU per rank)'
            cand --in-place 'Only the in-place measurement'
            cand --out-of-place 'Only the out-of-place measurement'
            cand --compile-only 'Compile every kernel with NVRTC and report registers and spills; no GPU needed'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'topo;bench;broadcast'= {
            cand -b 'Smallest message size in bytes (K, M, G suffixes)'
            cand --minbytes 'Smallest message size in bytes (K, M, G suffixes)'
            cand -e 'Largest message size in bytes'
            cand --maxbytes 'Largest message size in bytes'
            cand -i 'Size increment between steps, when no step factor is given (a sweep holds at most 4096 sizes)'
            cand --stepbytes 'Size increment between steps, when no step factor is given (a sweep holds at most 4096 sizes)'
            cand -f 'Multiply the size by this factor at each step (over 1 takes precedence over -i)'
            cand --stepfactor 'Multiply the size by this factor at each step (over 1 takes precedence over -i)'
            cand -n 'Timed iterations per size (1 to 1000000)'
            cand --iters 'Timed iterations per size (1 to 1000000)'
            cand -w 'Warm-up iterations per size (sizes doubling from min to max), before timing (at most 10000)'
            cand --warmup_iters 'Warm-up iterations per size (sizes doubling from min to max), before timing (at most 10000)'
            cand -c 'Validation runs per measurement (0: no validation, #wrong is N/A; at most 1000)'
            cand --check 'Validation runs per measurement (0: no validation, #wrong is N/A; at most 1000)'
            cand -d 'Element type: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, or all'
            cand --datatype 'Element type: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, or all'
            cand -o 'Reduction: sum, prod, min, max, avg, or all'
            cand --op 'Reduction: sum, prod, min, max, avg, or all'
            cand -g 'Number of ranks, 1 to 256 (default: every local GPU; host backend: CPU cores, 2 to 8)'
            cand --ngpus 'Number of ranks, 1 to 256 (default: every local GPU; host backend: CPU cores, 2 to 8)'
            cand -J 'Also write nccl-tests'' JSON report here (never overwritten: FILE.0, FILE.1... instead, said on stderr)'
            cand --output_file 'Also write nccl-tests'' JSON report here (never overwritten: FILE.0, FILE.1... instead, said on stderr)'
            cand --backend 'Run on the GPUs (cuda) or on CPU threads (host)'
            cand --channels 'Channels (rings) to run, 1 to 64; repeats or trims the plan''s rings (default: the plan''s; without a search 8 on CUDA and 1 on the host backend)'
            cand --graph-file 'Run the ring channels (graph 0) of this NCCL graph XML file (NCCL_GRAPH_DUMP_FILE format)'
            cand --transport 'Use this transport on every ring edge instead of the plan''s (P2P when there is no model)'
            cand --slot-bytes 'Bytes per FIFO slot (one pipelined chunk); default 512K on the host, 128K on CUDA'
            cand --arch 'Target architecture for --compile-only (sm_80, sm_90...; default: the local GPUs'', else sm_80 and sm_90)'
            cand -r 'Root rank of broadcast and reduce (a program is for the root it was written for)'
            cand --root 'Root rank of broadcast and reduce (a program is for the root it was written for)'
            cand --algo 'Run this MSCCL-IR program instead of NCCL''s rings (refused with `topo algo check`''s findings unless it passes), on host threads or with the CUDA interpreter kernel (one GPU per rank)'
            cand --in-place 'Only the in-place measurement'
            cand --out-of-place 'Only the out-of-place measurement'
            cand --compile-only 'Compile every kernel with NVRTC and report registers and spills; no GPU needed'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'topo;bench;reduce'= {
            cand -b 'Smallest message size in bytes (K, M, G suffixes)'
            cand --minbytes 'Smallest message size in bytes (K, M, G suffixes)'
            cand -e 'Largest message size in bytes'
            cand --maxbytes 'Largest message size in bytes'
            cand -i 'Size increment between steps, when no step factor is given (a sweep holds at most 4096 sizes)'
            cand --stepbytes 'Size increment between steps, when no step factor is given (a sweep holds at most 4096 sizes)'
            cand -f 'Multiply the size by this factor at each step (over 1 takes precedence over -i)'
            cand --stepfactor 'Multiply the size by this factor at each step (over 1 takes precedence over -i)'
            cand -n 'Timed iterations per size (1 to 1000000)'
            cand --iters 'Timed iterations per size (1 to 1000000)'
            cand -w 'Warm-up iterations per size (sizes doubling from min to max), before timing (at most 10000)'
            cand --warmup_iters 'Warm-up iterations per size (sizes doubling from min to max), before timing (at most 10000)'
            cand -c 'Validation runs per measurement (0: no validation, #wrong is N/A; at most 1000)'
            cand --check 'Validation runs per measurement (0: no validation, #wrong is N/A; at most 1000)'
            cand -d 'Element type: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, or all'
            cand --datatype 'Element type: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, or all'
            cand -o 'Reduction: sum, prod, min, max, avg, or all'
            cand --op 'Reduction: sum, prod, min, max, avg, or all'
            cand -g 'Number of ranks, 1 to 256 (default: every local GPU; host backend: CPU cores, 2 to 8)'
            cand --ngpus 'Number of ranks, 1 to 256 (default: every local GPU; host backend: CPU cores, 2 to 8)'
            cand -J 'Also write nccl-tests'' JSON report here (never overwritten: FILE.0, FILE.1... instead, said on stderr)'
            cand --output_file 'Also write nccl-tests'' JSON report here (never overwritten: FILE.0, FILE.1... instead, said on stderr)'
            cand --backend 'Run on the GPUs (cuda) or on CPU threads (host)'
            cand --channels 'Channels (rings) to run, 1 to 64; repeats or trims the plan''s rings (default: the plan''s; without a search 8 on CUDA and 1 on the host backend)'
            cand --graph-file 'Run the ring channels (graph 0) of this NCCL graph XML file (NCCL_GRAPH_DUMP_FILE format)'
            cand --transport 'Use this transport on every ring edge instead of the plan''s (P2P when there is no model)'
            cand --slot-bytes 'Bytes per FIFO slot (one pipelined chunk); default 512K on the host, 128K on CUDA'
            cand --arch 'Target architecture for --compile-only (sm_80, sm_90...; default: the local GPUs'', else sm_80 and sm_90)'
            cand -r 'Root rank of broadcast and reduce (a program is for the root it was written for)'
            cand --root 'Root rank of broadcast and reduce (a program is for the root it was written for)'
            cand --algo 'Run this MSCCL-IR program instead of NCCL''s rings (refused with `topo algo check`''s findings unless it passes), on host threads or with the CUDA interpreter kernel (one GPU per rank)'
            cand --in-place 'Only the in-place measurement'
            cand --out-of-place 'Only the out-of-place measurement'
            cand --compile-only 'Compile every kernel with NVRTC and report registers and spills; no GPU needed'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'topo;bench;help'= {
            cand allreduce 'Allreduce bandwidth probe with nccl-tests'' flags and output, set against the model'
            cand allgather 'Allgather of an MSCCL-IR program (--algo) on host threads or a GPU per rank, in all_gather_perf''s columns'
            cand reducescatter 'Reduce-scatter of an MSCCL-IR program (--algo) on host threads or a GPU per rank, in reduce_scatter_perf''s columns'
            cand alltoall 'Alltoall of an MSCCL-IR program (--algo) on host threads or a GPU per rank, in alltoall_perf''s columns'
            cand broadcast 'Broadcast of an MSCCL-IR program (--algo) on host threads or a GPU per rank, in broadcast_perf''s columns'
            cand reduce 'Reduce of an MSCCL-IR program (--algo) on host threads or a GPU per rank, in reduce_perf''s columns'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'topo;bench;help;allreduce'= {
        }
        &'topo;bench;help;allgather'= {
        }
        &'topo;bench;help;reducescatter'= {
        }
        &'topo;bench;help;alltoall'= {
        }
        &'topo;bench;help;broadcast'= {
        }
        &'topo;bench;help;reduce'= {
        }
        &'topo;bench;help;help'= {
        }
        &'topo;algo'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand check 'Check MSCCL-IR programs: the runtime''s rules, connection pairing, deadlocks at the real FIFO depth, the result against the collective''s definition, data races (exit 0 ok, 1 findings, 2 unreadable input)'
            cand show 'A program''s thread blocks, channels, peers and connections, and with a machine the path each connection runs over'
            cand make 'Make an MSCCL-IR program for a collective by a named algorithm, scheduled as the MSCCLang compiler does, for the machine (or --ngpus) and a runtime'
            cand plan 'HCCL''s view of a collective on a machine: algorithm per level, resources per rank (sub-streams, notifies, links, scratch) and each stream''s task list'
            cand cost 'A program''s time, algbw and busbw per message size from a timed run over the machine''s links, the bottleneck, and NCCL''s own pick beside it'
            cand compare 'Programs of one collective costed side by side per size, with the winner per size range'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'topo;algo;check'= {
            cand --runtime 'Whose rules: executor (msccl-executor-nccl), rccl or legacy (microsoft/msccl)'
            cand --depth 'FIFO slots per connection to hold the program to (default 8, the runtimes'' NCCL_STEPS; a Simple call takes 4 slots, an LL or LL128 call 1)'
            cand --color 'Colour verdicts and severities (errors red, warnings yellow, what is fine green): auto (on a terminal, unless NO_COLOR is set), always or never. Text fits the terminal''s width (or COLUMNS when set); into a pipe without COLUMNS it is printed unwrapped, the same every time'
            cand --json 'Write the report as JSON (schema topo.algo.check/1; several files: topo.algo.check-many/1)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'topo;algo;show'= {
            cand --runtime 'Whose rules the program is read by'
            cand --topo 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)'
            cand --fixture 'A machine topo carries built in (see `topo fixtures`)'
            cand --root 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine'
            cand --nvml-fake 'With live or --root detection: NVML''s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README''s "The fake-NVML file" describes every key)'
            cand --nodes 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0'
            cand --color 'Colour verdicts and severities (errors red, warnings yellow, what is fine green): auto (on a terminal, unless NO_COLOR is set), always or never. Text fits the terminal''s width (or COLUMNS when set); into a pipe without COLUMNS it is printed unwrapped, the same every time'
            cand --json 'Write JSON (schema topo.algo.show/1)'
            cand --dot 'Write a Graphviz drawing of GPUs and connections by channel'
            cand --no-p2p-support 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)'
            cand --no-nic-fusion 'The network plugin does not fuse the ports of a NIC into one virtual device'
            cand --collnet 'Every NIC is CollNet (SHARP) capable'
            cand --no-nvls 'NVLink SHARP (NVLS) is not available'
            cand --mnnvl 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'topo;algo;make'= {
            cand --algo 'The algorithm: ring, mesh (all pairs), rhd (recursive halving-doubling), nhr, nb (HCCL''s nonuniform ring and Bruck), hierarchical (intra-node ring reduce-scatter, inter-node rings, intra-node all-gather), nccl (the rings NCCL chose on the machine)'
            cand --ngpus 'Without a machine: GPUs a node (the job is --nodes x N ranks)'
            cand --channels 'Rings (ring: copies of one ring, nccl: the first C of NCCL''s channels), one channel each'
            cand --instances 'Copies of the whole program on disjoint channels, each on its share of the chunks'
            cand --proto 'The protocol the program declares'
            cand --runtime 'The runtime the program is for (rccl: no fused steps; legacy: no outofplace header)'
            cand --min-bytes 'The smallest call (bytes; K, M, G are powers of 1024) the runtime selects the program for: the header''s minBytes'
            cand --max-bytes 'The largest call the runtime selects the program for (inclusive): the header''s maxBytes (default: no bound). Bigger calls go to NCCL''s own algorithms'
            cand -o 'Write the program here (atomically) instead of to standard output'
            cand --output 'Write the program here (atomically) instead of to standard output'
            cand --topo 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)'
            cand --fixture 'A machine topo carries built in (see `topo fixtures`)'
            cand --root 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine'
            cand --nvml-fake 'With live or --root detection: NVML''s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README''s "The fake-NVML file" describes every key)'
            cand --nodes 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0'
            cand --no-p2p-support 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)'
            cand --no-nic-fusion 'The network plugin does not fuse the ports of a NIC into one virtual device'
            cand --collnet 'Every NIC is CollNet (SHARP) capable'
            cand --no-nvls 'NVLink SHARP (NVLS) is not available'
            cand --mnnvl 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'topo;algo;plan'= {
            cand --algo 'Force algorithms with HCCL_ALGO''s syntax, e.g. "level0:mesh;level1:ring" or "allgather=level0:NA;level1:H-D_R/others=level1:NHR" (level0 takes mesh or ring, level1 ring, H-D_R, NHR, NB or pipeline; NA or null: HCCL''s own choice)'
            cand --size 'The call''s size in bytes (all ranks'' for allgather and reducescatter): level 1''s choice depends on it'
            cand --topo 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)'
            cand --fixture 'A machine topo carries built in (see `topo fixtures`)'
            cand --root 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine'
            cand --nvml-fake 'With live or --root detection: NVML''s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README''s "The fake-NVML file" describes every key)'
            cand --nodes 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0'
            cand --json 'Write JSON (schema topo.algo.plan/1): per rank sub_streams, notifies, links, streams'
            cand --no-p2p-support 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)'
            cand --no-nic-fusion 'The network plugin does not fuse the ports of a NIC into one virtual device'
            cand --collnet 'Every NIC is CollNet (SHARP) capable'
            cand --no-nvls 'NVLink SHARP (NVLS) is not available'
            cand --mnnvl 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'topo;algo;cost'= {
            cand --algo 'With a collective: the algorithm to make it by (as `topo algo make --algo`)'
            cand --channels 'Rings (ring: copies of one ring, nccl: the first C of NCCL''s channels), one channel each'
            cand --instances 'Copies of the whole program on disjoint channels, each on its share of the chunks'
            cand --proto 'The protocol the program declares'
            cand --runtime 'Whose rules the program is read and run by'
            cand -b 'Smallest size in bytes, as nccl-tests'' -b (K, M, G are powers of 1024)'
            cand --minbytes 'Smallest size in bytes, as nccl-tests'' -b (K, M, G are powers of 1024)'
            cand -e 'Largest size in bytes, as nccl-tests'' -e'
            cand --maxbytes 'Largest size in bytes, as nccl-tests'' -e'
            cand -f 'Multiply the size by this between rows, as nccl-tests'' -f'
            cand --stepfactor 'Multiply the size by this between rows, as nccl-tests'' -f'
            cand --topo 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)'
            cand --fixture 'A machine topo carries built in (see `topo fixtures`)'
            cand --root 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine'
            cand --nvml-fake 'With live or --root detection: NVML''s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README''s "The fake-NVML file" describes every key)'
            cand --nodes 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0'
            cand --json 'Write JSON (schema topo.algo.cost/1); rows carry topo tune''s prediction fields'
            cand --no-p2p-support 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)'
            cand --no-nic-fusion 'The network plugin does not fuse the ports of a NIC into one virtual device'
            cand --collnet 'Every NIC is CollNet (SHARP) capable'
            cand --no-nvls 'NVLink SHARP (NVLS) is not available'
            cand --mnnvl 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'topo;algo;compare'= {
            cand --proto 'The protocol the program declares'
            cand --runtime 'runtime'
            cand -b 'Smallest size in bytes, as nccl-tests'' -b (K, M, G are powers of 1024)'
            cand --minbytes 'Smallest size in bytes, as nccl-tests'' -b (K, M, G are powers of 1024)'
            cand -e 'Largest size in bytes, as nccl-tests'' -e'
            cand --maxbytes 'Largest size in bytes, as nccl-tests'' -e'
            cand -f 'Multiply the size by this between rows, as nccl-tests'' -f'
            cand --stepfactor 'Multiply the size by this between rows, as nccl-tests'' -f'
            cand --topo 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)'
            cand --fixture 'A machine topo carries built in (see `topo fixtures`)'
            cand --root 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine'
            cand --nvml-fake 'With live or --root detection: NVML''s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README''s "The fake-NVML file" describes every key)'
            cand --nodes 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0'
            cand --json 'Write JSON (schema topo.algo.compare/1)'
            cand --no-p2p-support 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)'
            cand --no-nic-fusion 'The network plugin does not fuse the ports of a NIC into one virtual device'
            cand --collnet 'Every NIC is CollNet (SHARP) capable'
            cand --no-nvls 'NVLink SHARP (NVLS) is not available'
            cand --mnnvl 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'topo;algo;help'= {
            cand check 'Check MSCCL-IR programs: the runtime''s rules, connection pairing, deadlocks at the real FIFO depth, the result against the collective''s definition, data races (exit 0 ok, 1 findings, 2 unreadable input)'
            cand show 'A program''s thread blocks, channels, peers and connections, and with a machine the path each connection runs over'
            cand make 'Make an MSCCL-IR program for a collective by a named algorithm, scheduled as the MSCCLang compiler does, for the machine (or --ngpus) and a runtime'
            cand plan 'HCCL''s view of a collective on a machine: algorithm per level, resources per rank (sub-streams, notifies, links, scratch) and each stream''s task list'
            cand cost 'A program''s time, algbw and busbw per message size from a timed run over the machine''s links, the bottleneck, and NCCL''s own pick beside it'
            cand compare 'Programs of one collective costed side by side per size, with the winner per size range'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'topo;algo;help;check'= {
        }
        &'topo;algo;help;show'= {
        }
        &'topo;algo;help;make'= {
        }
        &'topo;algo;help;plan'= {
        }
        &'topo;algo;help;cost'= {
        }
        &'topo;algo;help;compare'= {
        }
        &'topo;algo;help;help'= {
        }
        &'topo;detect'= {
            cand -o 'Write to FILE instead of standard output (replaced whole, never half-written)'
            cand --output 'Write to FILE instead of standard output (replaced whole, never half-written)'
            cand --root 'Read DIR/sys and DIR/proc instead of /sys and /proc (hwloc''s fsroot layout); NVML facts then come from DIR/nvml.json when it exists'
            cand --nvml-fake 'Take NVML''s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README''s "The fake-NVML file" describes every key)'
            cand --topo-file 'Seed detection with a topology file, as NCCL_TOPO_FILE does: its attributes win'
            cand --xml 'Write NCCL topology XML (the default)'
            cand --json 'Write a JSON report instead: the XML, the detected facts, notices and health findings'
            cand --all 'Keep every PCI device and NUMA node, not only GPUs, NICs, NVSwitches and the bridges above them (the file may then exceed NCCL''s 256 elements per rank)'
            cand --no-check 'Skip the health checks (`topo check`) that detect prints as warnings'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'topo;check'= {
            cand --root 'Read DIR/sys and DIR/proc instead of /sys and /proc (hwloc''s fsroot layout); NVML facts then come from DIR/nvml.json when it exists'
            cand --nvml-fake 'Take NVML''s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README''s "The fake-NVML file" describes every key)'
            cand --topo 'Check this NCCL topology XML file (a dump) instead of this machine: only what a file shows (PCIe links against their siblings, NIC and GPU sockets, GDR, NVLink counts, NIC speeds, C2C)'
            cand --fixture 'Check a machine topo carries built in (see `topo fixtures`), as a dump'
            cand --color 'Colour verdicts and severities (errors red, warnings yellow, what is fine green): auto (on a terminal, unless NO_COLOR is set), always or never. Text fits the terminal''s width (or COLUMNS when set); into a pipe without COLUMNS it is printed unwrapped, the same every time'
            cand --json 'Write the findings as JSON'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'topo;fixtures'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'topo;help'= {
            cand show 'Show the system NCCL builds: CPUs, switches, GPUs, NICs, links and bandwidths'
            cand paths 'Path type and bandwidth between every GPU and NIC, then the P2P and GDR verdicts'
            cand analyze 'Everything the model decides: the system, paths and verdicts, graphs, the channels NCCL runs, tuning'
            cand search 'NCCL''s channel search: ring, tree, NVLS and CollNet graphs, and the channels NCCL runs'
            cand tune 'NCCL''s performance model: algorithm, protocol, time and bandwidth per message size'
            cand diff 'What differs between two topology dumps, and what it does to NCCL (exit 0 same, 1 different)'
            cand fleet 'Group many dumps (one per node) and explain every outlier against the largest group'
            cand log 'Read an NCCL debug log (NCCL_DEBUG=INFO), show what it says, and hold it against the model'
            cand bench 'Measure collectives through topo''s own ring kernels along the searched channels'
            cand algo 'Collective programs (MSCCL-IR): check and show them, make them for a machine, plan them as HCCL does, cost and compare them'
            cand detect 'Detect this machine (or a --root tree) and write it as NCCL topology XML'
            cand check 'Health checks of this machine for NCCL (exit 1 when a finding is an error)'
            cand fixtures 'List the machines topo carries built in (for --fixture)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'topo;help;show'= {
        }
        &'topo;help;paths'= {
        }
        &'topo;help;analyze'= {
        }
        &'topo;help;search'= {
        }
        &'topo;help;tune'= {
        }
        &'topo;help;diff'= {
        }
        &'topo;help;fleet'= {
        }
        &'topo;help;log'= {
        }
        &'topo;help;bench'= {
            cand allreduce 'Allreduce bandwidth probe with nccl-tests'' flags and output, set against the model'
            cand allgather 'Allgather of an MSCCL-IR program (--algo) on host threads or a GPU per rank, in all_gather_perf''s columns'
            cand reducescatter 'Reduce-scatter of an MSCCL-IR program (--algo) on host threads or a GPU per rank, in reduce_scatter_perf''s columns'
            cand alltoall 'Alltoall of an MSCCL-IR program (--algo) on host threads or a GPU per rank, in alltoall_perf''s columns'
            cand broadcast 'Broadcast of an MSCCL-IR program (--algo) on host threads or a GPU per rank, in broadcast_perf''s columns'
            cand reduce 'Reduce of an MSCCL-IR program (--algo) on host threads or a GPU per rank, in reduce_perf''s columns'
        }
        &'topo;help;bench;allreduce'= {
        }
        &'topo;help;bench;allgather'= {
        }
        &'topo;help;bench;reducescatter'= {
        }
        &'topo;help;bench;alltoall'= {
        }
        &'topo;help;bench;broadcast'= {
        }
        &'topo;help;bench;reduce'= {
        }
        &'topo;help;algo'= {
            cand check 'Check MSCCL-IR programs: the runtime''s rules, connection pairing, deadlocks at the real FIFO depth, the result against the collective''s definition, data races (exit 0 ok, 1 findings, 2 unreadable input)'
            cand show 'A program''s thread blocks, channels, peers and connections, and with a machine the path each connection runs over'
            cand make 'Make an MSCCL-IR program for a collective by a named algorithm, scheduled as the MSCCLang compiler does, for the machine (or --ngpus) and a runtime'
            cand plan 'HCCL''s view of a collective on a machine: algorithm per level, resources per rank (sub-streams, notifies, links, scratch) and each stream''s task list'
            cand cost 'A program''s time, algbw and busbw per message size from a timed run over the machine''s links, the bottleneck, and NCCL''s own pick beside it'
            cand compare 'Programs of one collective costed side by side per size, with the winner per size range'
        }
        &'topo;help;algo;check'= {
        }
        &'topo;help;algo;show'= {
        }
        &'topo;help;algo;make'= {
        }
        &'topo;help;algo;plan'= {
        }
        &'topo;help;algo;cost'= {
        }
        &'topo;help;algo;compare'= {
        }
        &'topo;help;detect'= {
        }
        &'topo;help;check'= {
        }
        &'topo;help;fixtures'= {
        }
        &'topo;help;help'= {
        }
    ]
    $completions[$command]
}
