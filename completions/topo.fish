# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_topo_global_optspecs
    string join \n h/help V/version
end

function __fish_topo_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_topo_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_topo_using_subcommand
    set -l cmd (__fish_topo_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c topo -n "__fish_topo_needs_command" -s h -l help -d 'Print help'
complete -c topo -n "__fish_topo_needs_command" -s V -l version -d 'Print version'
complete -c topo -n "__fish_topo_needs_command" -f -a "show" -d 'Show the system NCCL builds: CPUs, switches, GPUs, NICs, links and bandwidths'
complete -c topo -n "__fish_topo_needs_command" -f -a "paths" -d 'Path type and bandwidth between every GPU and NIC, then the P2P and GDR verdicts'
complete -c topo -n "__fish_topo_needs_command" -f -a "analyze" -d 'Everything the model decides: the system, paths and verdicts, graphs, the channels NCCL runs, tuning'
complete -c topo -n "__fish_topo_needs_command" -f -a "search" -d 'NCCL\'s channel search: ring, tree, NVLS and CollNet graphs, and the channels NCCL runs'
complete -c topo -n "__fish_topo_needs_command" -f -a "tune" -d 'NCCL\'s performance model: algorithm, protocol, time and bandwidth per message size'
complete -c topo -n "__fish_topo_needs_command" -f -a "diff" -d 'What differs between two topology dumps, and what it does to NCCL (exit 0 same, 1 different)'
complete -c topo -n "__fish_topo_needs_command" -f -a "fleet" -d 'Group many dumps (one per node) and explain every outlier against the largest group'
complete -c topo -n "__fish_topo_needs_command" -f -a "log" -d 'Read an NCCL debug log (NCCL_DEBUG=INFO), show what it says, and hold it against the model'
complete -c topo -n "__fish_topo_needs_command" -f -a "bench" -d 'Measure collectives through topo\'s own ring kernels along the searched channels'
complete -c topo -n "__fish_topo_needs_command" -f -a "algo" -d 'Collective programs (MSCCL-IR): check and show them, make them for a machine, plan them as HCCL does, cost and compare them'
complete -c topo -n "__fish_topo_needs_command" -f -a "detect" -d 'Detect this machine (or a --root tree) and write it as NCCL topology XML'
complete -c topo -n "__fish_topo_needs_command" -f -a "check" -d 'Health checks of this machine for NCCL (exit 1 when a finding is an error)'
complete -c topo -n "__fish_topo_needs_command" -f -a "fixtures" -d 'List the machines topo carries built in (for --fixture)'
complete -c topo -n "__fish_topo_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c topo -n "__fish_topo_using_subcommand show" -l topo -d 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)' -r -F
complete -c topo -n "__fish_topo_using_subcommand show" -l fixture -d 'A machine topo carries built in (see `topo fixtures`)' -r -f -a "dgx-h100\t''
dgx1-v100\t''
gb200-nvl72-tray\t''
gh200\t''
workstation-4gpu\t''"
complete -c topo -n "__fish_topo_using_subcommand show" -l root -d 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine' -r -F
complete -c topo -n "__fish_topo_using_subcommand show" -l nvml-fake -d 'With live or --root detection: NVML\'s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README\'s "The fake-NVML file" describes every key)' -r -F
complete -c topo -n "__fish_topo_using_subcommand show" -l nodes -d 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0' -r
complete -c topo -n "__fish_topo_using_subcommand show" -l mnnvl-cliques -d 'With --mnnvl: the N nodes fall into K equal cliques of consecutive trays (K NVL racks, say), each fused by NCCL into one node; NCCL then goes through the NICs between cliques. NVML\'s clique ids are per GPU, so the layout is stated here' -r
complete -c topo -n "__fish_topo_using_subcommand show" -l color -d 'Colour verdicts and severities (errors red, warnings yellow, what is fine green): auto (on a terminal, unless NO_COLOR is set), always or never. Text fits the terminal\'s width (or COLUMNS when set); into a pipe without COLUMNS it is printed unwrapped, the same every time' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always, even into a pipe or a file'
never\t'Never'"
complete -c topo -n "__fish_topo_using_subcommand show" -l no-p2p-support -d 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)'
complete -c topo -n "__fish_topo_using_subcommand show" -l no-nic-fusion -d 'The network plugin does not fuse the ports of a NIC into one virtual device'
complete -c topo -n "__fish_topo_using_subcommand show" -l collnet -d 'Every NIC is CollNet (SHARP) capable'
complete -c topo -n "__fish_topo_using_subcommand show" -l no-nvls -d 'NVLink SHARP (NVLS) is not available'
complete -c topo -n "__fish_topo_using_subcommand show" -l mnnvl -d 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node'
complete -c topo -n "__fish_topo_using_subcommand show" -l mnnvl-one-domain -d 'With --mnnvl-cliques: the cliques are partitions of one NVLink domain (one cluster UUID), where NCCL_MNNVL_CROSS_CLIQUE=1 lets them use P2P over NVLink; without it each clique is its own domain'
complete -c topo -n "__fish_topo_using_subcommand show" -l xml -d 'Print the topology as normalised NCCL XML instead'
complete -c topo -n "__fish_topo_using_subcommand show" -l json -d 'Print the system as JSON'
complete -c topo -n "__fish_topo_using_subcommand show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c topo -n "__fish_topo_using_subcommand show" -s V -l version -d 'Print version'
complete -c topo -n "__fish_topo_using_subcommand paths" -l topo -d 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)' -r -F
complete -c topo -n "__fish_topo_using_subcommand paths" -l fixture -d 'A machine topo carries built in (see `topo fixtures`)' -r -f -a "dgx-h100\t''
dgx1-v100\t''
gb200-nvl72-tray\t''
gh200\t''
workstation-4gpu\t''"
complete -c topo -n "__fish_topo_using_subcommand paths" -l root -d 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine' -r -F
complete -c topo -n "__fish_topo_using_subcommand paths" -l nvml-fake -d 'With live or --root detection: NVML\'s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README\'s "The fake-NVML file" describes every key)' -r -F
complete -c topo -n "__fish_topo_using_subcommand paths" -l nodes -d 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0' -r
complete -c topo -n "__fish_topo_using_subcommand paths" -l mnnvl-cliques -d 'With --mnnvl: the N nodes fall into K equal cliques of consecutive trays (K NVL racks, say), each fused by NCCL into one node; NCCL then goes through the NICs between cliques. NVML\'s clique ids are per GPU, so the layout is stated here' -r
complete -c topo -n "__fish_topo_using_subcommand paths" -l color -d 'Colour path types and verdicts: auto (on a terminal, unless NO_COLOR is set), always or never. Tables fit the terminal\'s width (or COLUMNS when set); into a pipe without COLUMNS they are printed whole, one matrix' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always, even into a pipe or a file'
never\t'Never'"
complete -c topo -n "__fish_topo_using_subcommand paths" -l no-p2p-support -d 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)'
complete -c topo -n "__fish_topo_using_subcommand paths" -l no-nic-fusion -d 'The network plugin does not fuse the ports of a NIC into one virtual device'
complete -c topo -n "__fish_topo_using_subcommand paths" -l collnet -d 'Every NIC is CollNet (SHARP) capable'
complete -c topo -n "__fish_topo_using_subcommand paths" -l no-nvls -d 'NVLink SHARP (NVLS) is not available'
complete -c topo -n "__fish_topo_using_subcommand paths" -l mnnvl -d 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node'
complete -c topo -n "__fish_topo_using_subcommand paths" -l mnnvl-one-domain -d 'With --mnnvl-cliques: the cliques are partitions of one NVLink domain (one cluster UUID), where NCCL_MNNVL_CROSS_CLIQUE=1 lets them use P2P over NVLink; without it each clique is its own domain'
complete -c topo -n "__fish_topo_using_subcommand paths" -l json -d 'Print JSON (paths, P2P and GDR verdicts with their reasons)'
complete -c topo -n "__fish_topo_using_subcommand paths" -l explain -d 'Give the reason for every P2P, transport and GDR decision, and each path\'s route'
complete -c topo -n "__fish_topo_using_subcommand paths" -l dot -d 'Print Graphviz of the system with the chosen paths (`| dot -Tsvg > topo.svg`)'
complete -c topo -n "__fish_topo_using_subcommand paths" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c topo -n "__fish_topo_using_subcommand paths" -s V -l version -d 'Print version'
complete -c topo -n "__fish_topo_using_subcommand analyze" -l topo -d 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)' -r -F
complete -c topo -n "__fish_topo_using_subcommand analyze" -l fixture -d 'A machine topo carries built in (see `topo fixtures`)' -r -f -a "dgx-h100\t''
dgx1-v100\t''
gb200-nvl72-tray\t''
gh200\t''
workstation-4gpu\t''"
complete -c topo -n "__fish_topo_using_subcommand analyze" -l root -d 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine' -r -F
complete -c topo -n "__fish_topo_using_subcommand analyze" -l nvml-fake -d 'With live or --root detection: NVML\'s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README\'s "The fake-NVML file" describes every key)' -r -F
complete -c topo -n "__fish_topo_using_subcommand analyze" -l nodes -d 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0' -r
complete -c topo -n "__fish_topo_using_subcommand analyze" -l mnnvl-cliques -d 'With --mnnvl: the N nodes fall into K equal cliques of consecutive trays (K NVL racks, say), each fused by NCCL into one node; NCCL then goes through the NICs between cliques. NVML\'s clique ids are per GPU, so the layout is stated here' -r
complete -c topo -n "__fish_topo_using_subcommand analyze" -l color -d 'Colour verdicts and severities (errors red, warnings yellow, what is fine green): auto (on a terminal, unless NO_COLOR is set), always or never. Text fits the terminal\'s width (or COLUMNS when set); into a pipe without COLUMNS it is printed unwrapped, the same every time' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always, even into a pipe or a file'
never\t'Never'"
complete -c topo -n "__fish_topo_using_subcommand analyze" -l no-p2p-support -d 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)'
complete -c topo -n "__fish_topo_using_subcommand analyze" -l no-nic-fusion -d 'The network plugin does not fuse the ports of a NIC into one virtual device'
complete -c topo -n "__fish_topo_using_subcommand analyze" -l collnet -d 'Every NIC is CollNet (SHARP) capable'
complete -c topo -n "__fish_topo_using_subcommand analyze" -l no-nvls -d 'NVLink SHARP (NVLS) is not available'
complete -c topo -n "__fish_topo_using_subcommand analyze" -l mnnvl -d 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node'
complete -c topo -n "__fish_topo_using_subcommand analyze" -l mnnvl-one-domain -d 'With --mnnvl-cliques: the cliques are partitions of one NVLink domain (one cluster UUID), where NCCL_MNNVL_CROSS_CLIQUE=1 lets them use P2P over NVLink; without it each clique is its own domain'
complete -c topo -n "__fish_topo_using_subcommand analyze" -l json -d 'Print the JSON document (schema 1) instead of the human summary'
complete -c topo -n "__fish_topo_using_subcommand analyze" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c topo -n "__fish_topo_using_subcommand analyze" -s V -l version -d 'Print version'
complete -c topo -n "__fish_topo_using_subcommand search" -l topo -d 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)' -r -F
complete -c topo -n "__fish_topo_using_subcommand search" -l fixture -d 'A machine topo carries built in (see `topo fixtures`)' -r -f -a "dgx-h100\t''
dgx1-v100\t''
gb200-nvl72-tray\t''
gh200\t''
workstation-4gpu\t''"
complete -c topo -n "__fish_topo_using_subcommand search" -l root -d 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine' -r -F
complete -c topo -n "__fish_topo_using_subcommand search" -l nvml-fake -d 'With live or --root detection: NVML\'s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README\'s "The fake-NVML file" describes every key)' -r -F
complete -c topo -n "__fish_topo_using_subcommand search" -l nodes -d 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0' -r
complete -c topo -n "__fish_topo_using_subcommand search" -l mnnvl-cliques -d 'With --mnnvl: the N nodes fall into K equal cliques of consecutive trays (K NVL racks, say), each fused by NCCL into one node; NCCL then goes through the NICs between cliques. NVML\'s clique ids are per GPU, so the layout is stated here' -r
complete -c topo -n "__fish_topo_using_subcommand search" -l channel -d 'With --dot: draw channel N of one graph (--graph, default ring) over the machine, with each link\'s load per direction' -r
complete -c topo -n "__fish_topo_using_subcommand search" -l graph -d 'Graphs to show, comma-separated or repeated [default: all computed]' -r -f -a "ring\t''
tree\t''
nvls\t''
collnet-chain\t''
collnet-direct\t''
all\t''"
complete -c topo -n "__fish_topo_using_subcommand search" -l rank -d 'Show this rank\'s Ring/Trees log lines instead of rank 0\'s' -r
complete -c topo -n "__fish_topo_using_subcommand search" -l graph-file -d 'Load graphs from an NCCL graph file, as NCCL_GRAPH_FILE does (overrides it), and report what they cost: oversubscribed links and the bandwidth each channel gets' -r -F
complete -c topo -n "__fish_topo_using_subcommand search" -l color -d 'Colour verdicts and severities (errors red, warnings yellow, what is fine green): auto (on a terminal, unless NO_COLOR is set), always or never. Text fits the terminal\'s width (or COLUMNS when set); into a pipe without COLUMNS it is printed unwrapped, the same every time' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always, even into a pipe or a file'
never\t'Never'"
complete -c topo -n "__fish_topo_using_subcommand search" -l no-p2p-support -d 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)'
complete -c topo -n "__fish_topo_using_subcommand search" -l no-nic-fusion -d 'The network plugin does not fuse the ports of a NIC into one virtual device'
complete -c topo -n "__fish_topo_using_subcommand search" -l collnet -d 'Every NIC is CollNet (SHARP) capable'
complete -c topo -n "__fish_topo_using_subcommand search" -l no-nvls -d 'NVLink SHARP (NVLS) is not available'
complete -c topo -n "__fish_topo_using_subcommand search" -l mnnvl -d 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node'
complete -c topo -n "__fish_topo_using_subcommand search" -l mnnvl-one-domain -d 'With --mnnvl-cliques: the cliques are partitions of one NVLink domain (one cluster UUID), where NCCL_MNNVL_CROSS_CLIQUE=1 lets them use P2P over NVLink; without it each clique is its own domain'
complete -c topo -n "__fish_topo_using_subcommand search" -l xml -d 'Print exactly what NCCL writes to NCCL_GRAPH_DUMP_FILE (all graphs)'
complete -c topo -n "__fish_topo_using_subcommand search" -l json -d 'Print the graphs and the channels NCCL runs (`run`) as JSON'
complete -c topo -n "__fish_topo_using_subcommand search" -l dot -d 'Print Graphviz of the channels, one small diagram per distinct channel (`| dot -Tsvg > ch.svg`)'
complete -c topo -n "__fish_topo_using_subcommand search" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c topo -n "__fish_topo_using_subcommand search" -s V -l version -d 'Print version'
complete -c topo -n "__fish_topo_using_subcommand tune" -s d -l datatype -d 'Element type, as nccl-tests\' -d (int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16): sizes become whole elements of it, and NVLS runs only the types it can reduce' -r
complete -c topo -n "__fish_topo_using_subcommand tune" -s o -l op -d 'Reduction, as nccl-tests\' -o (sum, prod, min, max, avg): NVLS reduces only some' -r
complete -c topo -n "__fish_topo_using_subcommand tune" -l topo -d 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)' -r -F
complete -c topo -n "__fish_topo_using_subcommand tune" -l fixture -d 'A machine topo carries built in (see `topo fixtures`)' -r -f -a "dgx-h100\t''
dgx1-v100\t''
gb200-nvl72-tray\t''
gh200\t''
workstation-4gpu\t''"
complete -c topo -n "__fish_topo_using_subcommand tune" -l root -d 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine' -r -F
complete -c topo -n "__fish_topo_using_subcommand tune" -l nvml-fake -d 'With live or --root detection: NVML\'s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README\'s "The fake-NVML file" describes every key)' -r -F
complete -c topo -n "__fish_topo_using_subcommand tune" -l nodes -d 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0' -r
complete -c topo -n "__fish_topo_using_subcommand tune" -l mnnvl-cliques -d 'With --mnnvl: the N nodes fall into K equal cliques of consecutive trays (K NVL racks, say), each fused by NCCL into one node; NCCL then goes through the NICs between cliques. NVML\'s clique ids are per GPU, so the layout is stated here' -r
complete -c topo -n "__fish_topo_using_subcommand tune" -s b -l minbytes -d 'Smallest size in bytes, as nccl-tests\' -b (K, M, G suffixes are powers of 1024)' -r
complete -c topo -n "__fish_topo_using_subcommand tune" -s e -l maxbytes -d 'Largest size in bytes, as nccl-tests\' -e' -r
complete -c topo -n "__fish_topo_using_subcommand tune" -s f -l stepfactor -d 'Multiply the size by this between rows, as nccl-tests\' -f (default 2)' -r
complete -c topo -n "__fish_topo_using_subcommand tune" -s i -l stepbytes -d 'Add this many bytes between rows instead, as nccl-tests\' -i' -r
complete -c topo -n "__fish_topo_using_subcommand tune" -l color -d 'Colour verdicts and severities (errors red, warnings yellow, what is fine green): auto (on a terminal, unless NO_COLOR is set), always or never. Text fits the terminal\'s width (or COLUMNS when set); into a pipe without COLUMNS it is printed unwrapped, the same every time' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always, even into a pipe or a file'
never\t'Never'"
complete -c topo -n "__fish_topo_using_subcommand tune" -l no-p2p-support -d 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)'
complete -c topo -n "__fish_topo_using_subcommand tune" -l no-nic-fusion -d 'The network plugin does not fuse the ports of a NIC into one virtual device'
complete -c topo -n "__fish_topo_using_subcommand tune" -l collnet -d 'Every NIC is CollNet (SHARP) capable'
complete -c topo -n "__fish_topo_using_subcommand tune" -l no-nvls -d 'NVLink SHARP (NVLS) is not available'
complete -c topo -n "__fish_topo_using_subcommand tune" -l mnnvl -d 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node'
complete -c topo -n "__fish_topo_using_subcommand tune" -l mnnvl-one-domain -d 'With --mnnvl-cliques: the cliques are partitions of one NVLink domain (one cluster UUID), where NCCL_MNNVL_CROSS_CLIQUE=1 lets them use P2P over NVLink; without it each clique is its own domain'
complete -c topo -n "__fish_topo_using_subcommand tune" -l table -d 'Also print NCCL\'s tuning table (latency/bandwidth per collective, algorithm and protocol)'
complete -c topo -n "__fish_topo_using_subcommand tune" -l json -d 'Print JSON'
complete -c topo -n "__fish_topo_using_subcommand tune" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c topo -n "__fish_topo_using_subcommand tune" -s V -l version -d 'Print version'
complete -c topo -n "__fish_topo_using_subcommand diff" -l against-version -d 'Model B as this NCCL release (A stays at --nccl-version): what changes on the same machine when NCCL is upgraded, e.g. `topo diff m.xml --nccl-version 2.21.5 --against-version 2.28.9`' -r
complete -c topo -n "__fish_topo_using_subcommand diff" -l ignore -d 'Hide differences in these attributes (comma-separated or repeated), e.g. host_hash, guid, name, busid, affinity; `nccl` hides the NCCL results' -r
complete -c topo -n "__fish_topo_using_subcommand diff" -l nodes -d 'Model each dump as one node of an N-node job (2 and more route rings and trees through the NICs, as on a cluster; 1 models a single machine)' -r
complete -c topo -n "__fish_topo_using_subcommand diff" -l color -d 'Colour verdicts and severities (errors red, warnings yellow, what is fine green): auto (on a terminal, unless NO_COLOR is set), always or never. Text fits the terminal\'s width (or COLUMNS when set); into a pipe without COLUMNS it is printed unwrapped, the same every time' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always, even into a pipe or a file'
never\t'Never'"
complete -c topo -n "__fish_topo_using_subcommand diff" -l json -d 'Print JSON for scripts'
complete -c topo -n "__fish_topo_using_subcommand diff" -l no-nic-fusion -d 'The network plugin does not fuse the ports of a NIC into one virtual device'
complete -c topo -n "__fish_topo_using_subcommand diff" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c topo -n "__fish_topo_using_subcommand diff" -s V -l version -d 'Print version'
complete -c topo -n "__fish_topo_using_subcommand fleet" -l ignore -d 'Also ignore these attributes (comma-separated or repeated), e.g. name to ignore NIC names; host_hash and guid are always ignored' -r
complete -c topo -n "__fish_topo_using_subcommand fleet" -l reference -d 'Compare with this dump\'s group instead of the largest group (a file of the fleet, or any other dump)' -r -F
complete -c topo -n "__fish_topo_using_subcommand fleet" -l nodes -d 'Model each dump as one node of an N-node job (2 and more route rings and trees through the NICs, as on a cluster; 1 models a single machine)' -r
complete -c topo -n "__fish_topo_using_subcommand fleet" -l color -d 'Colour verdicts and severities (errors red, warnings yellow, what is fine green): auto (on a terminal, unless NO_COLOR is set), always or never. Text fits the terminal\'s width (or COLUMNS when set); into a pipe without COLUMNS it is printed unwrapped, the same every time' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always, even into a pipe or a file'
never\t'Never'"
complete -c topo -n "__fish_topo_using_subcommand fleet" -l json -d 'Print JSON for scripts'
complete -c topo -n "__fish_topo_using_subcommand fleet" -l skip-bad -d 'Report unreadable dumps and go on, instead of stopping with exit status 2'
complete -c topo -n "__fish_topo_using_subcommand fleet" -l no-nic-fusion -d 'The network plugin does not fuse the ports of a NIC into one virtual device'
complete -c topo -n "__fish_topo_using_subcommand fleet" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c topo -n "__fish_topo_using_subcommand fleet" -s V -l version -d 'Print version'
complete -c topo -n "__fish_topo_using_subcommand log" -l rank -d 'Show only this rank\'s per-rank lines (graphs, trees, connections)' -r
complete -c topo -n "__fish_topo_using_subcommand log" -l topo -d 'The machine the log ran on, when the log has no system print (or to check a topology file against a log)' -r -F
complete -c topo -n "__fish_topo_using_subcommand log" -s o -l output -d 'Write to FILE instead of standard output (replaced whole, never half-written; the text unwrapped, as into a pipe, and coloured only with --color always)' -r -F
complete -c topo -n "__fish_topo_using_subcommand log" -l color -d 'Colour verdicts and severities (errors red, warnings yellow, what is fine green): auto (on a terminal, unless NO_COLOR is set), always or never. Text fits the terminal\'s width (or COLUMNS when set); into a pipe without COLUMNS it is printed unwrapped, the same every time' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always, even into a pipe or a file'
never\t'Never'"
complete -c topo -n "__fish_topo_using_subcommand log" -l json -d 'Print JSON for scripts (the facts, what is unusual, the model\'s findings)'
complete -c topo -n "__fish_topo_using_subcommand log" -l xml -d 'Print the topology rebuilt from the log\'s system print, as NCCL topology XML (what the log cannot tell is said on stderr)'
complete -c topo -n "__fish_topo_using_subcommand log" -l dot -d 'Print the logged rings as Graphviz'
complete -c topo -n "__fish_topo_using_subcommand log" -l no-model -d 'Do not hold the log against topo\'s model (by default it is, when the log has a system print or --topo names the machine)'
complete -c topo -n "__fish_topo_using_subcommand log" -s v -l verbose -d 'Count the NCCL lines topo does not know, by first word'
complete -c topo -n "__fish_topo_using_subcommand log" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c topo -n "__fish_topo_using_subcommand log" -s V -l version -d 'Print version'
complete -c topo -n "__fish_topo_using_subcommand bench; and not __fish_seen_subcommand_from allreduce allgather reducescatter alltoall broadcast reduce help" -s h -l help -d 'Print help'
complete -c topo -n "__fish_topo_using_subcommand bench; and not __fish_seen_subcommand_from allreduce allgather reducescatter alltoall broadcast reduce help" -s V -l version -d 'Print version'
complete -c topo -n "__fish_topo_using_subcommand bench; and not __fish_seen_subcommand_from allreduce allgather reducescatter alltoall broadcast reduce help" -f -a "allreduce" -d 'Allreduce bandwidth probe with nccl-tests\' flags and output, set against the model'
complete -c topo -n "__fish_topo_using_subcommand bench; and not __fish_seen_subcommand_from allreduce allgather reducescatter alltoall broadcast reduce help" -f -a "allgather" -d 'Allgather by NCCL\'s rings or --algo NAME|PROGRAM.xml, on host threads or a GPU per rank, in all_gather_perf\'s columns'
complete -c topo -n "__fish_topo_using_subcommand bench; and not __fish_seen_subcommand_from allreduce allgather reducescatter alltoall broadcast reduce help" -f -a "reducescatter" -d 'Reduce-scatter by NCCL\'s rings or --algo NAME|PROGRAM.xml, on host threads or a GPU per rank, in reduce_scatter_perf\'s columns'
complete -c topo -n "__fish_topo_using_subcommand bench; and not __fish_seen_subcommand_from allreduce allgather reducescatter alltoall broadcast reduce help" -f -a "alltoall" -d 'Alltoall by all pairs (mesh) or --algo NAME|PROGRAM.xml, on host threads or a GPU per rank, in alltoall_perf\'s columns'
complete -c topo -n "__fish_topo_using_subcommand bench; and not __fish_seen_subcommand_from allreduce allgather reducescatter alltoall broadcast reduce help" -f -a "broadcast" -d 'Broadcast by NCCL\'s rings or --algo NAME|PROGRAM.xml, on host threads or a GPU per rank, in broadcast_perf\'s columns'
complete -c topo -n "__fish_topo_using_subcommand bench; and not __fish_seen_subcommand_from allreduce allgather reducescatter alltoall broadcast reduce help" -f -a "reduce" -d 'Reduce to the root -r by NCCL\'s rings or --algo NAME|PROGRAM.xml, on host threads or a GPU per rank, in reduce_perf\'s columns'
complete -c topo -n "__fish_topo_using_subcommand bench; and not __fish_seen_subcommand_from allreduce allgather reducescatter alltoall broadcast reduce help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -s b -l minbytes -d 'Smallest message size in bytes (K, M, G suffixes)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -s e -l maxbytes -d 'Largest message size in bytes' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -s i -l stepbytes -d 'Size increment between steps, when no step factor is given (a sweep holds at most 4096 sizes)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -s f -l stepfactor -d 'Multiply the size by this factor at each step (over 1 takes precedence over -i)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -s n -l iters -d 'Timed iterations per size (1 to 1000000)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -s w -l warmup_iters -d 'Warm-up iterations per size (sizes doubling from min to max), before timing (at most 10000)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -s c -l check -d 'Validation runs per measurement (0: no validation, #wrong is N/A; at most 1000)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -s d -l datatype -d 'Element type: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, or all' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -s o -l op -d 'Reduction: sum, prod, min, max, avg, or all' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -s g -l ngpus -d 'Number of ranks, 1 to 256 (default: every local GPU; host backend: CPU cores, 2 to 8)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -s J -l output_file -d 'Also write nccl-tests\' JSON report here (never overwritten: FILE.0, FILE.1... instead, said on stderr)' -r -F
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -l backend -d 'Run on the GPUs (cuda) or on CPU threads (host)' -r -f -a "cuda\t'CUDA kernels on the local GPUs'
host\t'CPU threads (one per rank and channel): the same protocol, host measurements'"
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -l channels -d 'Channels (rings) to run, 1 to 64; repeats or trims the plan\'s rings (default: the plan\'s; without a search 8 on CUDA and 1 on the host backend)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -l graph-file -d 'Run the ring channels (graph 0) of this NCCL graph XML file (NCCL_GRAPH_DUMP_FILE format)' -r -F
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -l transport -d 'Use this transport on every ring edge instead of the plan\'s (P2P when there is no model)' -r -f -a "p2p\t'The sender writes straight into the receiver\'s FIFO (CUDA peer access)'
host-staged\t'The sender writes into a staging FIFO in host memory; a proxy thread copies each filled slot into the receiver\'s FIFO'"
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -l slot-bytes -d 'Bytes per FIFO slot (one pipelined chunk); default 512K on the host, 128K on CUDA' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -l arch -d 'Target architecture for --compile-only (sm_80, sm_90...; default: the local GPUs\', else sm_80 and sm_90)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -l topo -d 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)' -r -F
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -l fixture -d 'A machine topo carries built in (see `topo fixtures`)' -r -f -a "dgx-h100\t''
dgx1-v100\t''
gb200-nvl72-tray\t''
gh200\t''
workstation-4gpu\t''"
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -l root -d 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine' -r -F
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -l nvml-fake -d 'With live or --root detection: NVML\'s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README\'s "The fake-NVML file" describes every key)' -r -F
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -l nodes -d 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -l mnnvl-cliques -d 'With --mnnvl: the N nodes fall into K equal cliques of consecutive trays (K NVL racks, say), each fused by NCCL into one node; NCCL then goes through the NICs between cliques. NVML\'s clique ids are per GPU, so the layout is stated here' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -l algo -d 'Run this program: an MSCCL-IR file (refused with `topo algo check`\'s findings unless it passes), or an algorithm `topo algo make` makes for the machine the flags name (ring, mesh, rhd, nhr, nb, hierarchical, nccl, nccl-tree; without a machine, for -g ranks). Runs on host threads or with the CUDA interpreter kernel (one GPU per rank). A name that is an existing file is the file' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -l streams -d 'Run `topo algo plan`\'s streams for the machine (allgather, reducescatter, allreduce; every node of --nodes) on host threads or CUDA streams: "auto" for HCCL\'s own choice, or HCCL_ALGO\'s syntax, e.g. "mesh" or "level0:ring;level1:NHR"' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -l in-place -d 'Only the in-place measurement'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -l out-of-place -d 'Only the out-of-place measurement'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -l compile-only -d 'Compile every kernel with NVRTC and report registers and spills; no GPU needed'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -l no-p2p-support -d 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -l no-nic-fusion -d 'The network plugin does not fuse the ports of a NIC into one virtual device'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -l collnet -d 'Every NIC is CollNet (SHARP) capable'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -l no-nvls -d 'NVLink SHARP (NVLS) is not available'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -l mnnvl -d 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -l mnnvl-one-domain -d 'With --mnnvl-cliques: the cliques are partitions of one NVLink domain (one cluster UUID), where NCCL_MNNVL_CROSS_CLIQUE=1 lets them use P2P over NVLink; without it each clique is its own domain'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allreduce" -s V -l version -d 'Print version'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -s b -l minbytes -d 'Smallest message size in bytes (K, M, G suffixes)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -s e -l maxbytes -d 'Largest message size in bytes' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -s i -l stepbytes -d 'Size increment between steps, when no step factor is given (a sweep holds at most 4096 sizes)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -s f -l stepfactor -d 'Multiply the size by this factor at each step (over 1 takes precedence over -i)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -s n -l iters -d 'Timed iterations per size (1 to 1000000)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -s w -l warmup_iters -d 'Warm-up iterations per size (sizes doubling from min to max), before timing (at most 10000)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -s c -l check -d 'Validation runs per measurement (0: no validation, #wrong is N/A; at most 1000)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -s d -l datatype -d 'Element type: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, or all' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -s o -l op -d 'Reduction: sum, prod, min, max, avg, or all' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -s g -l ngpus -d 'Number of ranks, 1 to 256 (default: every local GPU; host backend: CPU cores, 2 to 8)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -s J -l output_file -d 'Also write nccl-tests\' JSON report here (never overwritten: FILE.0, FILE.1... instead, said on stderr)' -r -F
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -l backend -d 'Run on the GPUs (cuda) or on CPU threads (host)' -r -f -a "cuda\t'CUDA kernels on the local GPUs'
host\t'CPU threads (one per rank and channel): the same protocol, host measurements'"
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -l channels -d 'Channels (rings) to run, 1 to 64; repeats or trims the plan\'s rings (default: the plan\'s; without a search 8 on CUDA and 1 on the host backend)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -l graph-file -d 'Run the ring channels (graph 0) of this NCCL graph XML file (NCCL_GRAPH_DUMP_FILE format)' -r -F
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -l transport -d 'Use this transport on every ring edge instead of the plan\'s (P2P when there is no model)' -r -f -a "p2p\t'The sender writes straight into the receiver\'s FIFO (CUDA peer access)'
host-staged\t'The sender writes into a staging FIFO in host memory; a proxy thread copies each filled slot into the receiver\'s FIFO'"
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -l slot-bytes -d 'Bytes per FIFO slot (one pipelined chunk); default 512K on the host, 128K on CUDA' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -l arch -d 'Target architecture for --compile-only (sm_80, sm_90...; default: the local GPUs\', else sm_80 and sm_90)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -l topo -d 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)' -r -F
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -l fixture -d 'A machine topo carries built in (see `topo fixtures`)' -r -f -a "dgx-h100\t''
dgx1-v100\t''
gb200-nvl72-tray\t''
gh200\t''
workstation-4gpu\t''"
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -l root -d 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine' -r -F
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -l nvml-fake -d 'With live or --root detection: NVML\'s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README\'s "The fake-NVML file" describes every key)' -r -F
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -l nodes -d 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -l mnnvl-cliques -d 'With --mnnvl: the N nodes fall into K equal cliques of consecutive trays (K NVL racks, say), each fused by NCCL into one node; NCCL then goes through the NICs between cliques. NVML\'s clique ids are per GPU, so the layout is stated here' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -s r -d 'Root rank of broadcast and reduce (a program file is for the root it was written for; a made one is made for -r; -r only: --root names a machine\'s sysfs root)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -l algo -d 'Run this program: an MSCCL-IR file (refused with `topo algo check`\'s findings unless it passes), or an algorithm `topo algo make` makes for the machine the flags name (ring, mesh, rhd, nhr, nb, hierarchical, nccl, nccl-tree; without a machine, for -g ranks). Runs on host threads or with the CUDA interpreter kernel (one GPU per rank). A name that is an existing file is the file' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -l streams -d 'Run `topo algo plan`\'s streams for the machine (allgather, reducescatter, allreduce; every node of --nodes) on host threads or CUDA streams: "auto" for HCCL\'s own choice, or HCCL_ALGO\'s syntax, e.g. "mesh" or "level0:ring;level1:NHR"' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -l in-place -d 'Only the in-place measurement'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -l out-of-place -d 'Only the out-of-place measurement'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -l compile-only -d 'Compile every kernel with NVRTC and report registers and spills; no GPU needed'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -l no-p2p-support -d 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -l no-nic-fusion -d 'The network plugin does not fuse the ports of a NIC into one virtual device'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -l collnet -d 'Every NIC is CollNet (SHARP) capable'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -l no-nvls -d 'NVLink SHARP (NVLS) is not available'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -l mnnvl -d 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -l mnnvl-one-domain -d 'With --mnnvl-cliques: the cliques are partitions of one NVLink domain (one cluster UUID), where NCCL_MNNVL_CROSS_CLIQUE=1 lets them use P2P over NVLink; without it each clique is its own domain'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from allgather" -s V -l version -d 'Print version'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -s b -l minbytes -d 'Smallest message size in bytes (K, M, G suffixes)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -s e -l maxbytes -d 'Largest message size in bytes' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -s i -l stepbytes -d 'Size increment between steps, when no step factor is given (a sweep holds at most 4096 sizes)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -s f -l stepfactor -d 'Multiply the size by this factor at each step (over 1 takes precedence over -i)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -s n -l iters -d 'Timed iterations per size (1 to 1000000)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -s w -l warmup_iters -d 'Warm-up iterations per size (sizes doubling from min to max), before timing (at most 10000)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -s c -l check -d 'Validation runs per measurement (0: no validation, #wrong is N/A; at most 1000)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -s d -l datatype -d 'Element type: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, or all' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -s o -l op -d 'Reduction: sum, prod, min, max, avg, or all' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -s g -l ngpus -d 'Number of ranks, 1 to 256 (default: every local GPU; host backend: CPU cores, 2 to 8)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -s J -l output_file -d 'Also write nccl-tests\' JSON report here (never overwritten: FILE.0, FILE.1... instead, said on stderr)' -r -F
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -l backend -d 'Run on the GPUs (cuda) or on CPU threads (host)' -r -f -a "cuda\t'CUDA kernels on the local GPUs'
host\t'CPU threads (one per rank and channel): the same protocol, host measurements'"
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -l channels -d 'Channels (rings) to run, 1 to 64; repeats or trims the plan\'s rings (default: the plan\'s; without a search 8 on CUDA and 1 on the host backend)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -l graph-file -d 'Run the ring channels (graph 0) of this NCCL graph XML file (NCCL_GRAPH_DUMP_FILE format)' -r -F
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -l transport -d 'Use this transport on every ring edge instead of the plan\'s (P2P when there is no model)' -r -f -a "p2p\t'The sender writes straight into the receiver\'s FIFO (CUDA peer access)'
host-staged\t'The sender writes into a staging FIFO in host memory; a proxy thread copies each filled slot into the receiver\'s FIFO'"
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -l slot-bytes -d 'Bytes per FIFO slot (one pipelined chunk); default 512K on the host, 128K on CUDA' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -l arch -d 'Target architecture for --compile-only (sm_80, sm_90...; default: the local GPUs\', else sm_80 and sm_90)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -l topo -d 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)' -r -F
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -l fixture -d 'A machine topo carries built in (see `topo fixtures`)' -r -f -a "dgx-h100\t''
dgx1-v100\t''
gb200-nvl72-tray\t''
gh200\t''
workstation-4gpu\t''"
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -l root -d 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine' -r -F
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -l nvml-fake -d 'With live or --root detection: NVML\'s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README\'s "The fake-NVML file" describes every key)' -r -F
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -l nodes -d 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -l mnnvl-cliques -d 'With --mnnvl: the N nodes fall into K equal cliques of consecutive trays (K NVL racks, say), each fused by NCCL into one node; NCCL then goes through the NICs between cliques. NVML\'s clique ids are per GPU, so the layout is stated here' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -s r -d 'Root rank of broadcast and reduce (a program file is for the root it was written for; a made one is made for -r; -r only: --root names a machine\'s sysfs root)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -l algo -d 'Run this program: an MSCCL-IR file (refused with `topo algo check`\'s findings unless it passes), or an algorithm `topo algo make` makes for the machine the flags name (ring, mesh, rhd, nhr, nb, hierarchical, nccl, nccl-tree; without a machine, for -g ranks). Runs on host threads or with the CUDA interpreter kernel (one GPU per rank). A name that is an existing file is the file' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -l streams -d 'Run `topo algo plan`\'s streams for the machine (allgather, reducescatter, allreduce; every node of --nodes) on host threads or CUDA streams: "auto" for HCCL\'s own choice, or HCCL_ALGO\'s syntax, e.g. "mesh" or "level0:ring;level1:NHR"' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -l in-place -d 'Only the in-place measurement'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -l out-of-place -d 'Only the out-of-place measurement'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -l compile-only -d 'Compile every kernel with NVRTC and report registers and spills; no GPU needed'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -l no-p2p-support -d 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -l no-nic-fusion -d 'The network plugin does not fuse the ports of a NIC into one virtual device'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -l collnet -d 'Every NIC is CollNet (SHARP) capable'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -l no-nvls -d 'NVLink SHARP (NVLS) is not available'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -l mnnvl -d 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -l mnnvl-one-domain -d 'With --mnnvl-cliques: the cliques are partitions of one NVLink domain (one cluster UUID), where NCCL_MNNVL_CROSS_CLIQUE=1 lets them use P2P over NVLink; without it each clique is its own domain'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reducescatter" -s V -l version -d 'Print version'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -s b -l minbytes -d 'Smallest message size in bytes (K, M, G suffixes)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -s e -l maxbytes -d 'Largest message size in bytes' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -s i -l stepbytes -d 'Size increment between steps, when no step factor is given (a sweep holds at most 4096 sizes)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -s f -l stepfactor -d 'Multiply the size by this factor at each step (over 1 takes precedence over -i)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -s n -l iters -d 'Timed iterations per size (1 to 1000000)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -s w -l warmup_iters -d 'Warm-up iterations per size (sizes doubling from min to max), before timing (at most 10000)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -s c -l check -d 'Validation runs per measurement (0: no validation, #wrong is N/A; at most 1000)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -s d -l datatype -d 'Element type: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, or all' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -s o -l op -d 'Reduction: sum, prod, min, max, avg, or all' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -s g -l ngpus -d 'Number of ranks, 1 to 256 (default: every local GPU; host backend: CPU cores, 2 to 8)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -s J -l output_file -d 'Also write nccl-tests\' JSON report here (never overwritten: FILE.0, FILE.1... instead, said on stderr)' -r -F
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -l backend -d 'Run on the GPUs (cuda) or on CPU threads (host)' -r -f -a "cuda\t'CUDA kernels on the local GPUs'
host\t'CPU threads (one per rank and channel): the same protocol, host measurements'"
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -l channels -d 'Channels (rings) to run, 1 to 64; repeats or trims the plan\'s rings (default: the plan\'s; without a search 8 on CUDA and 1 on the host backend)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -l graph-file -d 'Run the ring channels (graph 0) of this NCCL graph XML file (NCCL_GRAPH_DUMP_FILE format)' -r -F
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -l transport -d 'Use this transport on every ring edge instead of the plan\'s (P2P when there is no model)' -r -f -a "p2p\t'The sender writes straight into the receiver\'s FIFO (CUDA peer access)'
host-staged\t'The sender writes into a staging FIFO in host memory; a proxy thread copies each filled slot into the receiver\'s FIFO'"
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -l slot-bytes -d 'Bytes per FIFO slot (one pipelined chunk); default 512K on the host, 128K on CUDA' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -l arch -d 'Target architecture for --compile-only (sm_80, sm_90...; default: the local GPUs\', else sm_80 and sm_90)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -l topo -d 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)' -r -F
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -l fixture -d 'A machine topo carries built in (see `topo fixtures`)' -r -f -a "dgx-h100\t''
dgx1-v100\t''
gb200-nvl72-tray\t''
gh200\t''
workstation-4gpu\t''"
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -l root -d 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine' -r -F
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -l nvml-fake -d 'With live or --root detection: NVML\'s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README\'s "The fake-NVML file" describes every key)' -r -F
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -l nodes -d 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -l mnnvl-cliques -d 'With --mnnvl: the N nodes fall into K equal cliques of consecutive trays (K NVL racks, say), each fused by NCCL into one node; NCCL then goes through the NICs between cliques. NVML\'s clique ids are per GPU, so the layout is stated here' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -s r -d 'Root rank of broadcast and reduce (a program file is for the root it was written for; a made one is made for -r; -r only: --root names a machine\'s sysfs root)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -l algo -d 'Run this program: an MSCCL-IR file (refused with `topo algo check`\'s findings unless it passes), or an algorithm `topo algo make` makes for the machine the flags name (ring, mesh, rhd, nhr, nb, hierarchical, nccl, nccl-tree; without a machine, for -g ranks). Runs on host threads or with the CUDA interpreter kernel (one GPU per rank). A name that is an existing file is the file' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -l streams -d 'Run `topo algo plan`\'s streams for the machine (allgather, reducescatter, allreduce; every node of --nodes) on host threads or CUDA streams: "auto" for HCCL\'s own choice, or HCCL_ALGO\'s syntax, e.g. "mesh" or "level0:ring;level1:NHR"' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -l in-place -d 'Only the in-place measurement'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -l out-of-place -d 'Only the out-of-place measurement'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -l compile-only -d 'Compile every kernel with NVRTC and report registers and spills; no GPU needed'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -l no-p2p-support -d 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -l no-nic-fusion -d 'The network plugin does not fuse the ports of a NIC into one virtual device'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -l collnet -d 'Every NIC is CollNet (SHARP) capable'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -l no-nvls -d 'NVLink SHARP (NVLS) is not available'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -l mnnvl -d 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -l mnnvl-one-domain -d 'With --mnnvl-cliques: the cliques are partitions of one NVLink domain (one cluster UUID), where NCCL_MNNVL_CROSS_CLIQUE=1 lets them use P2P over NVLink; without it each clique is its own domain'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from alltoall" -s V -l version -d 'Print version'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -s b -l minbytes -d 'Smallest message size in bytes (K, M, G suffixes)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -s e -l maxbytes -d 'Largest message size in bytes' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -s i -l stepbytes -d 'Size increment between steps, when no step factor is given (a sweep holds at most 4096 sizes)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -s f -l stepfactor -d 'Multiply the size by this factor at each step (over 1 takes precedence over -i)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -s n -l iters -d 'Timed iterations per size (1 to 1000000)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -s w -l warmup_iters -d 'Warm-up iterations per size (sizes doubling from min to max), before timing (at most 10000)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -s c -l check -d 'Validation runs per measurement (0: no validation, #wrong is N/A; at most 1000)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -s d -l datatype -d 'Element type: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, or all' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -s o -l op -d 'Reduction: sum, prod, min, max, avg, or all' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -s g -l ngpus -d 'Number of ranks, 1 to 256 (default: every local GPU; host backend: CPU cores, 2 to 8)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -s J -l output_file -d 'Also write nccl-tests\' JSON report here (never overwritten: FILE.0, FILE.1... instead, said on stderr)' -r -F
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -l backend -d 'Run on the GPUs (cuda) or on CPU threads (host)' -r -f -a "cuda\t'CUDA kernels on the local GPUs'
host\t'CPU threads (one per rank and channel): the same protocol, host measurements'"
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -l channels -d 'Channels (rings) to run, 1 to 64; repeats or trims the plan\'s rings (default: the plan\'s; without a search 8 on CUDA and 1 on the host backend)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -l graph-file -d 'Run the ring channels (graph 0) of this NCCL graph XML file (NCCL_GRAPH_DUMP_FILE format)' -r -F
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -l transport -d 'Use this transport on every ring edge instead of the plan\'s (P2P when there is no model)' -r -f -a "p2p\t'The sender writes straight into the receiver\'s FIFO (CUDA peer access)'
host-staged\t'The sender writes into a staging FIFO in host memory; a proxy thread copies each filled slot into the receiver\'s FIFO'"
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -l slot-bytes -d 'Bytes per FIFO slot (one pipelined chunk); default 512K on the host, 128K on CUDA' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -l arch -d 'Target architecture for --compile-only (sm_80, sm_90...; default: the local GPUs\', else sm_80 and sm_90)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -l topo -d 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)' -r -F
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -l fixture -d 'A machine topo carries built in (see `topo fixtures`)' -r -f -a "dgx-h100\t''
dgx1-v100\t''
gb200-nvl72-tray\t''
gh200\t''
workstation-4gpu\t''"
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -l root -d 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine' -r -F
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -l nvml-fake -d 'With live or --root detection: NVML\'s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README\'s "The fake-NVML file" describes every key)' -r -F
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -l nodes -d 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -l mnnvl-cliques -d 'With --mnnvl: the N nodes fall into K equal cliques of consecutive trays (K NVL racks, say), each fused by NCCL into one node; NCCL then goes through the NICs between cliques. NVML\'s clique ids are per GPU, so the layout is stated here' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -s r -d 'Root rank of broadcast and reduce (a program file is for the root it was written for; a made one is made for -r; -r only: --root names a machine\'s sysfs root)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -l algo -d 'Run this program: an MSCCL-IR file (refused with `topo algo check`\'s findings unless it passes), or an algorithm `topo algo make` makes for the machine the flags name (ring, mesh, rhd, nhr, nb, hierarchical, nccl, nccl-tree; without a machine, for -g ranks). Runs on host threads or with the CUDA interpreter kernel (one GPU per rank). A name that is an existing file is the file' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -l streams -d 'Run `topo algo plan`\'s streams for the machine (allgather, reducescatter, allreduce; every node of --nodes) on host threads or CUDA streams: "auto" for HCCL\'s own choice, or HCCL_ALGO\'s syntax, e.g. "mesh" or "level0:ring;level1:NHR"' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -l in-place -d 'Only the in-place measurement'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -l out-of-place -d 'Only the out-of-place measurement'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -l compile-only -d 'Compile every kernel with NVRTC and report registers and spills; no GPU needed'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -l no-p2p-support -d 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -l no-nic-fusion -d 'The network plugin does not fuse the ports of a NIC into one virtual device'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -l collnet -d 'Every NIC is CollNet (SHARP) capable'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -l no-nvls -d 'NVLink SHARP (NVLS) is not available'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -l mnnvl -d 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -l mnnvl-one-domain -d 'With --mnnvl-cliques: the cliques are partitions of one NVLink domain (one cluster UUID), where NCCL_MNNVL_CROSS_CLIQUE=1 lets them use P2P over NVLink; without it each clique is its own domain'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from broadcast" -s V -l version -d 'Print version'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -s b -l minbytes -d 'Smallest message size in bytes (K, M, G suffixes)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -s e -l maxbytes -d 'Largest message size in bytes' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -s i -l stepbytes -d 'Size increment between steps, when no step factor is given (a sweep holds at most 4096 sizes)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -s f -l stepfactor -d 'Multiply the size by this factor at each step (over 1 takes precedence over -i)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -s n -l iters -d 'Timed iterations per size (1 to 1000000)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -s w -l warmup_iters -d 'Warm-up iterations per size (sizes doubling from min to max), before timing (at most 10000)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -s c -l check -d 'Validation runs per measurement (0: no validation, #wrong is N/A; at most 1000)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -s d -l datatype -d 'Element type: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, or all' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -s o -l op -d 'Reduction: sum, prod, min, max, avg, or all' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -s g -l ngpus -d 'Number of ranks, 1 to 256 (default: every local GPU; host backend: CPU cores, 2 to 8)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -s J -l output_file -d 'Also write nccl-tests\' JSON report here (never overwritten: FILE.0, FILE.1... instead, said on stderr)' -r -F
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -l backend -d 'Run on the GPUs (cuda) or on CPU threads (host)' -r -f -a "cuda\t'CUDA kernels on the local GPUs'
host\t'CPU threads (one per rank and channel): the same protocol, host measurements'"
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -l channels -d 'Channels (rings) to run, 1 to 64; repeats or trims the plan\'s rings (default: the plan\'s; without a search 8 on CUDA and 1 on the host backend)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -l graph-file -d 'Run the ring channels (graph 0) of this NCCL graph XML file (NCCL_GRAPH_DUMP_FILE format)' -r -F
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -l transport -d 'Use this transport on every ring edge instead of the plan\'s (P2P when there is no model)' -r -f -a "p2p\t'The sender writes straight into the receiver\'s FIFO (CUDA peer access)'
host-staged\t'The sender writes into a staging FIFO in host memory; a proxy thread copies each filled slot into the receiver\'s FIFO'"
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -l slot-bytes -d 'Bytes per FIFO slot (one pipelined chunk); default 512K on the host, 128K on CUDA' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -l arch -d 'Target architecture for --compile-only (sm_80, sm_90...; default: the local GPUs\', else sm_80 and sm_90)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -l topo -d 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)' -r -F
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -l fixture -d 'A machine topo carries built in (see `topo fixtures`)' -r -f -a "dgx-h100\t''
dgx1-v100\t''
gb200-nvl72-tray\t''
gh200\t''
workstation-4gpu\t''"
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -l root -d 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine' -r -F
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -l nvml-fake -d 'With live or --root detection: NVML\'s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README\'s "The fake-NVML file" describes every key)' -r -F
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -l nodes -d 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -l mnnvl-cliques -d 'With --mnnvl: the N nodes fall into K equal cliques of consecutive trays (K NVL racks, say), each fused by NCCL into one node; NCCL then goes through the NICs between cliques. NVML\'s clique ids are per GPU, so the layout is stated here' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -s r -d 'Root rank of broadcast and reduce (a program file is for the root it was written for; a made one is made for -r; -r only: --root names a machine\'s sysfs root)' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -l algo -d 'Run this program: an MSCCL-IR file (refused with `topo algo check`\'s findings unless it passes), or an algorithm `topo algo make` makes for the machine the flags name (ring, mesh, rhd, nhr, nb, hierarchical, nccl, nccl-tree; without a machine, for -g ranks). Runs on host threads or with the CUDA interpreter kernel (one GPU per rank). A name that is an existing file is the file' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -l streams -d 'Run `topo algo plan`\'s streams for the machine (allgather, reducescatter, allreduce; every node of --nodes) on host threads or CUDA streams: "auto" for HCCL\'s own choice, or HCCL_ALGO\'s syntax, e.g. "mesh" or "level0:ring;level1:NHR"' -r
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -l in-place -d 'Only the in-place measurement'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -l out-of-place -d 'Only the out-of-place measurement'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -l compile-only -d 'Compile every kernel with NVRTC and report registers and spills; no GPU needed'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -l no-p2p-support -d 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -l no-nic-fusion -d 'The network plugin does not fuse the ports of a NIC into one virtual device'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -l collnet -d 'Every NIC is CollNet (SHARP) capable'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -l no-nvls -d 'NVLink SHARP (NVLS) is not available'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -l mnnvl -d 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -l mnnvl-one-domain -d 'With --mnnvl-cliques: the cliques are partitions of one NVLink domain (one cluster UUID), where NCCL_MNNVL_CROSS_CLIQUE=1 lets them use P2P over NVLink; without it each clique is its own domain'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from reduce" -s V -l version -d 'Print version'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from help" -f -a "allreduce" -d 'Allreduce bandwidth probe with nccl-tests\' flags and output, set against the model'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from help" -f -a "allgather" -d 'Allgather by NCCL\'s rings or --algo NAME|PROGRAM.xml, on host threads or a GPU per rank, in all_gather_perf\'s columns'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from help" -f -a "reducescatter" -d 'Reduce-scatter by NCCL\'s rings or --algo NAME|PROGRAM.xml, on host threads or a GPU per rank, in reduce_scatter_perf\'s columns'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from help" -f -a "alltoall" -d 'Alltoall by all pairs (mesh) or --algo NAME|PROGRAM.xml, on host threads or a GPU per rank, in alltoall_perf\'s columns'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from help" -f -a "broadcast" -d 'Broadcast by NCCL\'s rings or --algo NAME|PROGRAM.xml, on host threads or a GPU per rank, in broadcast_perf\'s columns'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from help" -f -a "reduce" -d 'Reduce to the root -r by NCCL\'s rings or --algo NAME|PROGRAM.xml, on host threads or a GPU per rank, in reduce_perf\'s columns'
complete -c topo -n "__fish_topo_using_subcommand bench; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c topo -n "__fish_topo_using_subcommand algo; and not __fish_seen_subcommand_from check show make plan cost compare help" -s h -l help -d 'Print help'
complete -c topo -n "__fish_topo_using_subcommand algo; and not __fish_seen_subcommand_from check show make plan cost compare help" -s V -l version -d 'Print version'
complete -c topo -n "__fish_topo_using_subcommand algo; and not __fish_seen_subcommand_from check show make plan cost compare help" -f -a "check" -d 'Check MSCCL-IR programs: the runtime\'s rules, connection pairing, deadlocks at the real FIFO depth, the result against the collective\'s definition, data races (exit 0 ok, 1 findings, 2 unreadable input)'
complete -c topo -n "__fish_topo_using_subcommand algo; and not __fish_seen_subcommand_from check show make plan cost compare help" -f -a "show" -d 'A program\'s thread blocks, channels, peers and connections, and with a machine the path each connection runs over'
complete -c topo -n "__fish_topo_using_subcommand algo; and not __fish_seen_subcommand_from check show make plan cost compare help" -f -a "make" -d 'Make an MSCCL-IR program for a collective by a named algorithm, scheduled as the MSCCLang compiler does, for the machine (or --ngpus) and a runtime'
complete -c topo -n "__fish_topo_using_subcommand algo; and not __fish_seen_subcommand_from check show make plan cost compare help" -f -a "plan" -d 'HCCL\'s view of a collective on a machine: algorithm per level, resources per rank (sub-streams, notifies, links, scratch) and each stream\'s task list'
complete -c topo -n "__fish_topo_using_subcommand algo; and not __fish_seen_subcommand_from check show make plan cost compare help" -f -a "cost" -d 'A program\'s time, algbw and busbw per message size from a timed run over the machine\'s links, the bottleneck, and NCCL\'s own pick beside it'
complete -c topo -n "__fish_topo_using_subcommand algo; and not __fish_seen_subcommand_from check show make plan cost compare help" -f -a "compare" -d 'Programs of one collective costed side by side per size, with the winner per size range'
complete -c topo -n "__fish_topo_using_subcommand algo; and not __fish_seen_subcommand_from check show make plan cost compare help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from check" -l runtime -d 'Whose rules: executor (msccl-executor-nccl), rccl or legacy (microsoft/msccl)' -r -f -a "executor\t'msccl-executor-nccl (NCCL 2.23 with MSCCL): 64 steps, 1024 thread blocks, channels 0-32'
rccl\t'RCCL\'s MSCCL: 64 thread blocks, channels 0-128, no fused steps (rcs, rrs, rrc, rrcs)'
legacy\t'microsoft/msccl (NCCL 2.12): 256 steps, 216 thread blocks, no outofplace/minBytes/maxBytes needed'"
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from check" -l depth -d 'FIFO slots per connection to hold the program to (default 8, the runtimes\' NCCL_STEPS; a Simple call takes 4 slots, an LL or LL128 call 1)' -r
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from check" -l color -d 'Colour verdicts and severities (errors red, warnings yellow, what is fine green): auto (on a terminal, unless NO_COLOR is set), always or never. Text fits the terminal\'s width (or COLUMNS when set); into a pipe without COLUMNS it is printed unwrapped, the same every time' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always, even into a pipe or a file'
never\t'Never'"
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from check" -l json -d 'Write the report as JSON (schema topo.algo.check/1; several files: topo.algo.check-many/1)'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from check" -s V -l version -d 'Print version'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from show" -l runtime -d 'Whose rules the program is read by' -r -f -a "executor\t'msccl-executor-nccl (NCCL 2.23 with MSCCL): 64 steps, 1024 thread blocks, channels 0-32'
rccl\t'RCCL\'s MSCCL: 64 thread blocks, channels 0-128, no fused steps (rcs, rrs, rrc, rrcs)'
legacy\t'microsoft/msccl (NCCL 2.12): 256 steps, 216 thread blocks, no outofplace/minBytes/maxBytes needed'"
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from show" -l topo -d 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)' -r -F
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from show" -l fixture -d 'A machine topo carries built in (see `topo fixtures`)' -r -f -a "dgx-h100\t''
dgx1-v100\t''
gb200-nvl72-tray\t''
gh200\t''
workstation-4gpu\t''"
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from show" -l root -d 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine' -r -F
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from show" -l nvml-fake -d 'With live or --root detection: NVML\'s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README\'s "The fake-NVML file" describes every key)' -r -F
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from show" -l nodes -d 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0' -r
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from show" -l mnnvl-cliques -d 'With --mnnvl: the N nodes fall into K equal cliques of consecutive trays (K NVL racks, say), each fused by NCCL into one node; NCCL then goes through the NICs between cliques. NVML\'s clique ids are per GPU, so the layout is stated here' -r
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from show" -l color -d 'Colour verdicts and severities (errors red, warnings yellow, what is fine green): auto (on a terminal, unless NO_COLOR is set), always or never. Text fits the terminal\'s width (or COLUMNS when set); into a pipe without COLUMNS it is printed unwrapped, the same every time' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always, even into a pipe or a file'
never\t'Never'"
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from show" -l json -d 'Write JSON (schema topo.algo.show/1)'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from show" -l dot -d 'Write a Graphviz drawing of GPUs and connections by channel'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from show" -l no-p2p-support -d 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from show" -l no-nic-fusion -d 'The network plugin does not fuse the ports of a NIC into one virtual device'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from show" -l collnet -d 'Every NIC is CollNet (SHARP) capable'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from show" -l no-nvls -d 'NVLink SHARP (NVLS) is not available'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from show" -l mnnvl -d 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from show" -l mnnvl-one-domain -d 'With --mnnvl-cliques: the cliques are partitions of one NVLink domain (one cluster UUID), where NCCL_MNNVL_CROSS_CLIQUE=1 lets them use P2P over NVLink; without it each clique is its own domain'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from make" -l algo -d 'The algorithm: ring, mesh (all pairs), rhd (recursive halving-doubling), nhr, nb (HCCL\'s nonuniform ring and Bruck), hierarchical (intra-node ring reduce-scatter, inter-node rings, intra-node all-gather), nccl (the rings NCCL chose on the machine), nccl-tree (allreduce over NCCL\'s trees on the machine)' -r -f -a "ring\t''
mesh\t''
rhd\t''
nhr\t''
nb\t''
hierarchical\t''
nccl\t''
nccl-tree\t''"
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from make" -l ngpus -d 'Without a machine: GPUs a node (the job is --nodes x N ranks)' -r
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from make" -l channels -d 'Rings (ring: copies of one ring, nccl: the first C of NCCL\'s channels) or trees (nccl-tree: the first C of NCCL\'s channels), one channel each' -r
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from make" -l instances -d 'Copies of the whole program on disjoint channels, each on its share of the chunks' -r
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from make" -l proto -d 'The protocol the program declares' -r -f -a "Simple\t''
LL\t''
LL128\t''"
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from make" -s r -d 'The root rank of broadcast and reduce (nccl-tests\' -r)' -r
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from make" -l runtime -d 'The runtime the program is for (rccl: no fused steps; legacy: no outofplace header)' -r -f -a "executor\t'msccl-executor-nccl (NCCL 2.23 with MSCCL): 64 steps, 1024 thread blocks, channels 0-32'
rccl\t'RCCL\'s MSCCL: 64 thread blocks, channels 0-128, no fused steps (rcs, rrs, rrc, rrcs)'
legacy\t'microsoft/msccl (NCCL 2.12): 256 steps, 216 thread blocks, no outofplace/minBytes/maxBytes needed'"
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from make" -l min-bytes -d 'The smallest call (bytes; K, M, G are powers of 1024) the runtime selects the program for: the header\'s minBytes' -r
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from make" -l max-bytes -d 'The largest call the runtime selects the program for (inclusive): the header\'s maxBytes (default: no bound). Bigger calls go to NCCL\'s own algorithms' -r
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from make" -s o -l output -d 'Write the program here (atomically) instead of to standard output' -r -F
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from make" -l topo -d 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)' -r -F
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from make" -l fixture -d 'A machine topo carries built in (see `topo fixtures`)' -r -f -a "dgx-h100\t''
dgx1-v100\t''
gb200-nvl72-tray\t''
gh200\t''
workstation-4gpu\t''"
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from make" -l root -d 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine' -r -F
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from make" -l nvml-fake -d 'With live or --root detection: NVML\'s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README\'s "The fake-NVML file" describes every key)' -r -F
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from make" -l nodes -d 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0' -r
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from make" -l mnnvl-cliques -d 'With --mnnvl: the N nodes fall into K equal cliques of consecutive trays (K NVL racks, say), each fused by NCCL into one node; NCCL then goes through the NICs between cliques. NVML\'s clique ids are per GPU, so the layout is stated here' -r
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from make" -l no-p2p-support -d 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from make" -l no-nic-fusion -d 'The network plugin does not fuse the ports of a NIC into one virtual device'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from make" -l collnet -d 'Every NIC is CollNet (SHARP) capable'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from make" -l no-nvls -d 'NVLink SHARP (NVLS) is not available'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from make" -l mnnvl -d 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from make" -l mnnvl-one-domain -d 'With --mnnvl-cliques: the cliques are partitions of one NVLink domain (one cluster UUID), where NCCL_MNNVL_CROSS_CLIQUE=1 lets them use P2P over NVLink; without it each clique is its own domain'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from make" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from make" -s V -l version -d 'Print version'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from plan" -l algo -d 'Force algorithms with HCCL_ALGO\'s syntax, e.g. "level0:mesh;level1:ring" or "allgather=level0:NA;level1:H-D_R/others=level1:NHR" (level0 takes mesh or ring, level1 ring, H-D_R, NHR, NB or pipeline; NA or null: HCCL\'s own choice)' -r
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from plan" -l size -d 'The call\'s size in bytes (all ranks\' for allgather and reducescatter): level 1\'s choice depends on it' -r
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from plan" -l topo -d 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)' -r -F
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from plan" -l fixture -d 'A machine topo carries built in (see `topo fixtures`)' -r -f -a "dgx-h100\t''
dgx1-v100\t''
gb200-nvl72-tray\t''
gh200\t''
workstation-4gpu\t''"
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from plan" -l root -d 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine' -r -F
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from plan" -l nvml-fake -d 'With live or --root detection: NVML\'s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README\'s "The fake-NVML file" describes every key)' -r -F
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from plan" -l nodes -d 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0' -r
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from plan" -l mnnvl-cliques -d 'With --mnnvl: the N nodes fall into K equal cliques of consecutive trays (K NVL racks, say), each fused by NCCL into one node; NCCL then goes through the NICs between cliques. NVML\'s clique ids are per GPU, so the layout is stated here' -r
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from plan" -l json -d 'Write JSON (schema topo.algo.plan/1): per rank sub_streams, notifies, links, streams'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from plan" -l no-p2p-support -d 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from plan" -l no-nic-fusion -d 'The network plugin does not fuse the ports of a NIC into one virtual device'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from plan" -l collnet -d 'Every NIC is CollNet (SHARP) capable'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from plan" -l no-nvls -d 'NVLink SHARP (NVLS) is not available'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from plan" -l mnnvl -d 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from plan" -l mnnvl-one-domain -d 'With --mnnvl-cliques: the cliques are partitions of one NVLink domain (one cluster UUID), where NCCL_MNNVL_CROSS_CLIQUE=1 lets them use P2P over NVLink; without it each clique is its own domain'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from plan" -s h -l help -d 'Print help'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from plan" -s V -l version -d 'Print version'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from cost" -l algo -d 'With a collective: the algorithm to make it by (as `topo algo make --algo`)' -r -f -a "ring\t''
mesh\t''
rhd\t''
nhr\t''
nb\t''
hierarchical\t''
nccl\t''
nccl-tree\t''"
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from cost" -l channels -d 'Rings (ring: copies of one ring, nccl: the first C of NCCL\'s channels) or trees (nccl-tree: the first C of NCCL\'s channels), one channel each' -r
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from cost" -l instances -d 'Copies of the whole program on disjoint channels, each on its share of the chunks' -r
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from cost" -l proto -d 'The protocol the program declares' -r -f -a "Simple\t''
LL\t''
LL128\t''"
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from cost" -s r -d 'The root rank of broadcast and reduce (nccl-tests\' -r)' -r
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from cost" -l runtime -d 'Whose rules the program is read and run by' -r -f -a "executor\t'msccl-executor-nccl (NCCL 2.23 with MSCCL): 64 steps, 1024 thread blocks, channels 0-32'
rccl\t'RCCL\'s MSCCL: 64 thread blocks, channels 0-128, no fused steps (rcs, rrs, rrc, rrcs)'
legacy\t'microsoft/msccl (NCCL 2.12): 256 steps, 216 thread blocks, no outofplace/minBytes/maxBytes needed'"
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from cost" -s b -l minbytes -d 'Smallest size in bytes, as nccl-tests\' -b (K, M, G are powers of 1024)' -r
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from cost" -s e -l maxbytes -d 'Largest size in bytes, as nccl-tests\' -e' -r
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from cost" -s f -l stepfactor -d 'Multiply the size by this between rows, as nccl-tests\' -f' -r
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from cost" -l topo -d 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)' -r -F
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from cost" -l fixture -d 'A machine topo carries built in (see `topo fixtures`)' -r -f -a "dgx-h100\t''
dgx1-v100\t''
gb200-nvl72-tray\t''
gh200\t''
workstation-4gpu\t''"
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from cost" -l root -d 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine' -r -F
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from cost" -l nvml-fake -d 'With live or --root detection: NVML\'s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README\'s "The fake-NVML file" describes every key)' -r -F
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from cost" -l nodes -d 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0' -r
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from cost" -l mnnvl-cliques -d 'With --mnnvl: the N nodes fall into K equal cliques of consecutive trays (K NVL racks, say), each fused by NCCL into one node; NCCL then goes through the NICs between cliques. NVML\'s clique ids are per GPU, so the layout is stated here' -r
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from cost" -l json -d 'Write JSON (schema topo.algo.cost/1); rows carry topo tune\'s prediction fields'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from cost" -l no-p2p-support -d 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from cost" -l no-nic-fusion -d 'The network plugin does not fuse the ports of a NIC into one virtual device'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from cost" -l collnet -d 'Every NIC is CollNet (SHARP) capable'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from cost" -l no-nvls -d 'NVLink SHARP (NVLS) is not available'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from cost" -l mnnvl -d 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from cost" -l mnnvl-one-domain -d 'With --mnnvl-cliques: the cliques are partitions of one NVLink domain (one cluster UUID), where NCCL_MNNVL_CROSS_CLIQUE=1 lets them use P2P over NVLink; without it each clique is its own domain'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from cost" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from cost" -s V -l version -d 'Print version'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from compare" -l proto -d 'The protocol the program declares' -r -f -a "Simple\t''
LL\t''
LL128\t''"
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from compare" -l runtime -r -f -a "executor\t'msccl-executor-nccl (NCCL 2.23 with MSCCL): 64 steps, 1024 thread blocks, channels 0-32'
rccl\t'RCCL\'s MSCCL: 64 thread blocks, channels 0-128, no fused steps (rcs, rrs, rrc, rrcs)'
legacy\t'microsoft/msccl (NCCL 2.12): 256 steps, 216 thread blocks, no outofplace/minBytes/maxBytes needed'"
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from compare" -s b -l minbytes -d 'Smallest size in bytes, as nccl-tests\' -b (K, M, G are powers of 1024)' -r
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from compare" -s e -l maxbytes -d 'Largest size in bytes, as nccl-tests\' -e' -r
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from compare" -s f -l stepfactor -d 'Multiply the size by this between rows, as nccl-tests\' -f' -r
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from compare" -l topo -d 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)' -r -F
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from compare" -l fixture -d 'A machine topo carries built in (see `topo fixtures`)' -r -f -a "dgx-h100\t''
dgx1-v100\t''
gb200-nvl72-tray\t''
gh200\t''
workstation-4gpu\t''"
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from compare" -l root -d 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine' -r -F
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from compare" -l nvml-fake -d 'With live or --root detection: NVML\'s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README\'s "The fake-NVML file" describes every key)' -r -F
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from compare" -l nodes -d 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0' -r
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from compare" -l mnnvl-cliques -d 'With --mnnvl: the N nodes fall into K equal cliques of consecutive trays (K NVL racks, say), each fused by NCCL into one node; NCCL then goes through the NICs between cliques. NVML\'s clique ids are per GPU, so the layout is stated here' -r
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from compare" -l json -d 'Write JSON (schema topo.algo.compare/1)'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from compare" -l no-p2p-support -d 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from compare" -l no-nic-fusion -d 'The network plugin does not fuse the ports of a NIC into one virtual device'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from compare" -l collnet -d 'Every NIC is CollNet (SHARP) capable'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from compare" -l no-nvls -d 'NVLink SHARP (NVLS) is not available'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from compare" -l mnnvl -d 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from compare" -l mnnvl-one-domain -d 'With --mnnvl-cliques: the cliques are partitions of one NVLink domain (one cluster UUID), where NCCL_MNNVL_CROSS_CLIQUE=1 lets them use P2P over NVLink; without it each clique is its own domain'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from compare" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from compare" -s V -l version -d 'Print version'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from help" -f -a "check" -d 'Check MSCCL-IR programs: the runtime\'s rules, connection pairing, deadlocks at the real FIFO depth, the result against the collective\'s definition, data races (exit 0 ok, 1 findings, 2 unreadable input)'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from help" -f -a "show" -d 'A program\'s thread blocks, channels, peers and connections, and with a machine the path each connection runs over'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from help" -f -a "make" -d 'Make an MSCCL-IR program for a collective by a named algorithm, scheduled as the MSCCLang compiler does, for the machine (or --ngpus) and a runtime'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from help" -f -a "plan" -d 'HCCL\'s view of a collective on a machine: algorithm per level, resources per rank (sub-streams, notifies, links, scratch) and each stream\'s task list'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from help" -f -a "cost" -d 'A program\'s time, algbw and busbw per message size from a timed run over the machine\'s links, the bottleneck, and NCCL\'s own pick beside it'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from help" -f -a "compare" -d 'Programs of one collective costed side by side per size, with the winner per size range'
complete -c topo -n "__fish_topo_using_subcommand algo; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c topo -n "__fish_topo_using_subcommand detect" -s o -l output -d 'Write to FILE instead of standard output (replaced whole, never half-written)' -r -F
complete -c topo -n "__fish_topo_using_subcommand detect" -l root -d 'Read DIR/sys and DIR/proc instead of /sys and /proc (hwloc\'s fsroot layout); NVML facts then come from DIR/nvml.json when it exists' -r -F
complete -c topo -n "__fish_topo_using_subcommand detect" -l nvml-fake -d 'Take NVML\'s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README\'s "The fake-NVML file" describes every key)' -r -F
complete -c topo -n "__fish_topo_using_subcommand detect" -l topo-file -d 'Seed detection with a topology file, as NCCL_TOPO_FILE does: its attributes win' -r -F
complete -c topo -n "__fish_topo_using_subcommand detect" -l xml -d 'Write NCCL topology XML (the default)'
complete -c topo -n "__fish_topo_using_subcommand detect" -l json -d 'Write a JSON report instead: the XML, the detected facts, notices and health findings'
complete -c topo -n "__fish_topo_using_subcommand detect" -l all -d 'Keep every PCI device and NUMA node, not only GPUs, NICs, NVSwitches and the bridges above them (the file may then exceed NCCL\'s 256 elements per rank)'
complete -c topo -n "__fish_topo_using_subcommand detect" -l no-check -d 'Skip the health checks (`topo check`) that detect prints as warnings'
complete -c topo -n "__fish_topo_using_subcommand detect" -s h -l help -d 'Print help'
complete -c topo -n "__fish_topo_using_subcommand detect" -s V -l version -d 'Print version'
complete -c topo -n "__fish_topo_using_subcommand check" -l root -d 'Read DIR/sys and DIR/proc instead of /sys and /proc (hwloc\'s fsroot layout); NVML facts then come from DIR/nvml.json when it exists' -r -F
complete -c topo -n "__fish_topo_using_subcommand check" -l nvml-fake -d 'Take NVML\'s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README\'s "The fake-NVML file" describes every key)' -r -F
complete -c topo -n "__fish_topo_using_subcommand check" -l topo -d 'Check this NCCL topology XML file (a dump) instead of this machine: only what a file shows (PCIe links against their siblings, NIC and GPU sockets, GDR, NVLink counts, NIC speeds, C2C)' -r -F
complete -c topo -n "__fish_topo_using_subcommand check" -l fixture -d 'Check a machine topo carries built in (see `topo fixtures`), as a dump' -r -f -a "dgx-h100\t''
dgx1-v100\t''
gb200-nvl72-tray\t''
gh200\t''
workstation-4gpu\t''"
complete -c topo -n "__fish_topo_using_subcommand check" -l color -d 'Colour verdicts and severities (errors red, warnings yellow, what is fine green): auto (on a terminal, unless NO_COLOR is set), always or never. Text fits the terminal\'s width (or COLUMNS when set); into a pipe without COLUMNS it is printed unwrapped, the same every time' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always, even into a pipe or a file'
never\t'Never'"
complete -c topo -n "__fish_topo_using_subcommand check" -l json -d 'Write the findings as JSON'
complete -c topo -n "__fish_topo_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c topo -n "__fish_topo_using_subcommand check" -s V -l version -d 'Print version'
complete -c topo -n "__fish_topo_using_subcommand fixtures" -s h -l help -d 'Print help'
complete -c topo -n "__fish_topo_using_subcommand fixtures" -s V -l version -d 'Print version'
complete -c topo -n "__fish_topo_using_subcommand help; and not __fish_seen_subcommand_from show paths analyze search tune diff fleet log bench algo detect check fixtures help" -f -a "show" -d 'Show the system NCCL builds: CPUs, switches, GPUs, NICs, links and bandwidths'
complete -c topo -n "__fish_topo_using_subcommand help; and not __fish_seen_subcommand_from show paths analyze search tune diff fleet log bench algo detect check fixtures help" -f -a "paths" -d 'Path type and bandwidth between every GPU and NIC, then the P2P and GDR verdicts'
complete -c topo -n "__fish_topo_using_subcommand help; and not __fish_seen_subcommand_from show paths analyze search tune diff fleet log bench algo detect check fixtures help" -f -a "analyze" -d 'Everything the model decides: the system, paths and verdicts, graphs, the channels NCCL runs, tuning'
complete -c topo -n "__fish_topo_using_subcommand help; and not __fish_seen_subcommand_from show paths analyze search tune diff fleet log bench algo detect check fixtures help" -f -a "search" -d 'NCCL\'s channel search: ring, tree, NVLS and CollNet graphs, and the channels NCCL runs'
complete -c topo -n "__fish_topo_using_subcommand help; and not __fish_seen_subcommand_from show paths analyze search tune diff fleet log bench algo detect check fixtures help" -f -a "tune" -d 'NCCL\'s performance model: algorithm, protocol, time and bandwidth per message size'
complete -c topo -n "__fish_topo_using_subcommand help; and not __fish_seen_subcommand_from show paths analyze search tune diff fleet log bench algo detect check fixtures help" -f -a "diff" -d 'What differs between two topology dumps, and what it does to NCCL (exit 0 same, 1 different)'
complete -c topo -n "__fish_topo_using_subcommand help; and not __fish_seen_subcommand_from show paths analyze search tune diff fleet log bench algo detect check fixtures help" -f -a "fleet" -d 'Group many dumps (one per node) and explain every outlier against the largest group'
complete -c topo -n "__fish_topo_using_subcommand help; and not __fish_seen_subcommand_from show paths analyze search tune diff fleet log bench algo detect check fixtures help" -f -a "log" -d 'Read an NCCL debug log (NCCL_DEBUG=INFO), show what it says, and hold it against the model'
complete -c topo -n "__fish_topo_using_subcommand help; and not __fish_seen_subcommand_from show paths analyze search tune diff fleet log bench algo detect check fixtures help" -f -a "bench" -d 'Measure collectives through topo\'s own ring kernels along the searched channels'
complete -c topo -n "__fish_topo_using_subcommand help; and not __fish_seen_subcommand_from show paths analyze search tune diff fleet log bench algo detect check fixtures help" -f -a "algo" -d 'Collective programs (MSCCL-IR): check and show them, make them for a machine, plan them as HCCL does, cost and compare them'
complete -c topo -n "__fish_topo_using_subcommand help; and not __fish_seen_subcommand_from show paths analyze search tune diff fleet log bench algo detect check fixtures help" -f -a "detect" -d 'Detect this machine (or a --root tree) and write it as NCCL topology XML'
complete -c topo -n "__fish_topo_using_subcommand help; and not __fish_seen_subcommand_from show paths analyze search tune diff fleet log bench algo detect check fixtures help" -f -a "check" -d 'Health checks of this machine for NCCL (exit 1 when a finding is an error)'
complete -c topo -n "__fish_topo_using_subcommand help; and not __fish_seen_subcommand_from show paths analyze search tune diff fleet log bench algo detect check fixtures help" -f -a "fixtures" -d 'List the machines topo carries built in (for --fixture)'
complete -c topo -n "__fish_topo_using_subcommand help; and not __fish_seen_subcommand_from show paths analyze search tune diff fleet log bench algo detect check fixtures help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c topo -n "__fish_topo_using_subcommand help; and __fish_seen_subcommand_from bench" -f -a "allreduce" -d 'Allreduce bandwidth probe with nccl-tests\' flags and output, set against the model'
complete -c topo -n "__fish_topo_using_subcommand help; and __fish_seen_subcommand_from bench" -f -a "allgather" -d 'Allgather by NCCL\'s rings or --algo NAME|PROGRAM.xml, on host threads or a GPU per rank, in all_gather_perf\'s columns'
complete -c topo -n "__fish_topo_using_subcommand help; and __fish_seen_subcommand_from bench" -f -a "reducescatter" -d 'Reduce-scatter by NCCL\'s rings or --algo NAME|PROGRAM.xml, on host threads or a GPU per rank, in reduce_scatter_perf\'s columns'
complete -c topo -n "__fish_topo_using_subcommand help; and __fish_seen_subcommand_from bench" -f -a "alltoall" -d 'Alltoall by all pairs (mesh) or --algo NAME|PROGRAM.xml, on host threads or a GPU per rank, in alltoall_perf\'s columns'
complete -c topo -n "__fish_topo_using_subcommand help; and __fish_seen_subcommand_from bench" -f -a "broadcast" -d 'Broadcast by NCCL\'s rings or --algo NAME|PROGRAM.xml, on host threads or a GPU per rank, in broadcast_perf\'s columns'
complete -c topo -n "__fish_topo_using_subcommand help; and __fish_seen_subcommand_from bench" -f -a "reduce" -d 'Reduce to the root -r by NCCL\'s rings or --algo NAME|PROGRAM.xml, on host threads or a GPU per rank, in reduce_perf\'s columns'
complete -c topo -n "__fish_topo_using_subcommand help; and __fish_seen_subcommand_from algo" -f -a "check" -d 'Check MSCCL-IR programs: the runtime\'s rules, connection pairing, deadlocks at the real FIFO depth, the result against the collective\'s definition, data races (exit 0 ok, 1 findings, 2 unreadable input)'
complete -c topo -n "__fish_topo_using_subcommand help; and __fish_seen_subcommand_from algo" -f -a "show" -d 'A program\'s thread blocks, channels, peers and connections, and with a machine the path each connection runs over'
complete -c topo -n "__fish_topo_using_subcommand help; and __fish_seen_subcommand_from algo" -f -a "make" -d 'Make an MSCCL-IR program for a collective by a named algorithm, scheduled as the MSCCLang compiler does, for the machine (or --ngpus) and a runtime'
complete -c topo -n "__fish_topo_using_subcommand help; and __fish_seen_subcommand_from algo" -f -a "plan" -d 'HCCL\'s view of a collective on a machine: algorithm per level, resources per rank (sub-streams, notifies, links, scratch) and each stream\'s task list'
complete -c topo -n "__fish_topo_using_subcommand help; and __fish_seen_subcommand_from algo" -f -a "cost" -d 'A program\'s time, algbw and busbw per message size from a timed run over the machine\'s links, the bottleneck, and NCCL\'s own pick beside it'
complete -c topo -n "__fish_topo_using_subcommand help; and __fish_seen_subcommand_from algo" -f -a "compare" -d 'Programs of one collective costed side by side per size, with the winner per size range'
