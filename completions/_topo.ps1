
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'topo' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'topo'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'topo' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show the system NCCL builds: CPUs, switches, GPUs, NICs, links and bandwidths')
            [CompletionResult]::new('paths', 'paths', [CompletionResultType]::ParameterValue, 'Path type and bandwidth between every GPU and NIC, then the P2P and GDR verdicts')
            [CompletionResult]::new('analyze', 'analyze', [CompletionResultType]::ParameterValue, 'Everything the model decides: the system, paths and verdicts, graphs, the channels NCCL runs, tuning')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'NCCL''s channel search: ring, tree, NVLS and CollNet graphs, and the channels NCCL runs')
            [CompletionResult]::new('tune', 'tune', [CompletionResultType]::ParameterValue, 'NCCL''s performance model: algorithm, protocol, time and bandwidth per message size')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'What differs between two topology dumps, and what it does to NCCL (exit 0 same, 1 different)')
            [CompletionResult]::new('fleet', 'fleet', [CompletionResultType]::ParameterValue, 'Group many dumps (one per node) and explain every outlier against the largest group')
            [CompletionResult]::new('log', 'log', [CompletionResultType]::ParameterValue, 'Read an NCCL debug log (NCCL_DEBUG=INFO), show what it says, and hold it against the model')
            [CompletionResult]::new('bench', 'bench', [CompletionResultType]::ParameterValue, 'Measure collectives through topo''s own ring kernels along the searched channels')
            [CompletionResult]::new('algo', 'algo', [CompletionResultType]::ParameterValue, 'Collective programs (MSCCL-IR): check and show them, make them for a machine, plan them as HCCL does, cost and compare them')
            [CompletionResult]::new('detect', 'detect', [CompletionResultType]::ParameterValue, 'Detect this machine (or a --root tree) and write it as NCCL topology XML')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Health checks of this machine for NCCL (exit 1 when a finding is an error)')
            [CompletionResult]::new('fixtures', 'fixtures', [CompletionResultType]::ParameterValue, 'List the machines topo carries built in (for --fixture)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'topo;show' {
            [CompletionResult]::new('--topo', '--topo', [CompletionResultType]::ParameterName, 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)')
            [CompletionResult]::new('--fixture', '--fixture', [CompletionResultType]::ParameterName, 'A machine topo carries built in (see `topo fixtures`)')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine')
            [CompletionResult]::new('--nvml-fake', '--nvml-fake', [CompletionResultType]::ParameterName, 'With live or --root detection: NVML''s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README''s "The fake-NVML file" describes every key)')
            [CompletionResult]::new('--nodes', '--nodes', [CompletionResultType]::ParameterName, 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0')
            [CompletionResult]::new('--mnnvl-cliques', '--mnnvl-cliques', [CompletionResultType]::ParameterName, 'With --mnnvl: the N nodes fall into K equal cliques of consecutive trays (K NVL racks, say), each fused by NCCL into one node; NCCL then goes through the NICs between cliques. NVML''s clique ids are per GPU, so the layout is stated here')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour verdicts and severities (errors red, warnings yellow, what is fine green): auto (on a terminal, unless NO_COLOR is set), always or never. Text fits the terminal''s width (or COLUMNS when set); into a pipe without COLUMNS it is printed unwrapped, the same every time')
            [CompletionResult]::new('--no-p2p-support', '--no-p2p-support', [CompletionResultType]::ParameterName, 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)')
            [CompletionResult]::new('--no-nic-fusion', '--no-nic-fusion', [CompletionResultType]::ParameterName, 'The network plugin does not fuse the ports of a NIC into one virtual device')
            [CompletionResult]::new('--collnet', '--collnet', [CompletionResultType]::ParameterName, 'Every NIC is CollNet (SHARP) capable')
            [CompletionResult]::new('--no-nvls', '--no-nvls', [CompletionResultType]::ParameterName, 'NVLink SHARP (NVLS) is not available')
            [CompletionResult]::new('--mnnvl', '--mnnvl', [CompletionResultType]::ParameterName, 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node')
            [CompletionResult]::new('--mnnvl-one-domain', '--mnnvl-one-domain', [CompletionResultType]::ParameterName, 'With --mnnvl-cliques: the cliques are partitions of one NVLink domain (one cluster UUID), where NCCL_MNNVL_CROSS_CLIQUE=1 lets them use P2P over NVLink; without it each clique is its own domain')
            [CompletionResult]::new('--xml', '--xml', [CompletionResultType]::ParameterName, 'Print the topology as normalised NCCL XML instead')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the system as JSON')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'topo;paths' {
            [CompletionResult]::new('--topo', '--topo', [CompletionResultType]::ParameterName, 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)')
            [CompletionResult]::new('--fixture', '--fixture', [CompletionResultType]::ParameterName, 'A machine topo carries built in (see `topo fixtures`)')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine')
            [CompletionResult]::new('--nvml-fake', '--nvml-fake', [CompletionResultType]::ParameterName, 'With live or --root detection: NVML''s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README''s "The fake-NVML file" describes every key)')
            [CompletionResult]::new('--nodes', '--nodes', [CompletionResultType]::ParameterName, 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0')
            [CompletionResult]::new('--mnnvl-cliques', '--mnnvl-cliques', [CompletionResultType]::ParameterName, 'With --mnnvl: the N nodes fall into K equal cliques of consecutive trays (K NVL racks, say), each fused by NCCL into one node; NCCL then goes through the NICs between cliques. NVML''s clique ids are per GPU, so the layout is stated here')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour path types and verdicts: auto (on a terminal, unless NO_COLOR is set), always or never. Tables fit the terminal''s width (or COLUMNS when set); into a pipe without COLUMNS they are printed whole, one matrix')
            [CompletionResult]::new('--no-p2p-support', '--no-p2p-support', [CompletionResultType]::ParameterName, 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)')
            [CompletionResult]::new('--no-nic-fusion', '--no-nic-fusion', [CompletionResultType]::ParameterName, 'The network plugin does not fuse the ports of a NIC into one virtual device')
            [CompletionResult]::new('--collnet', '--collnet', [CompletionResultType]::ParameterName, 'Every NIC is CollNet (SHARP) capable')
            [CompletionResult]::new('--no-nvls', '--no-nvls', [CompletionResultType]::ParameterName, 'NVLink SHARP (NVLS) is not available')
            [CompletionResult]::new('--mnnvl', '--mnnvl', [CompletionResultType]::ParameterName, 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node')
            [CompletionResult]::new('--mnnvl-one-domain', '--mnnvl-one-domain', [CompletionResultType]::ParameterName, 'With --mnnvl-cliques: the cliques are partitions of one NVLink domain (one cluster UUID), where NCCL_MNNVL_CROSS_CLIQUE=1 lets them use P2P over NVLink; without it each clique is its own domain')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON (paths, P2P and GDR verdicts with their reasons)')
            [CompletionResult]::new('--explain', '--explain', [CompletionResultType]::ParameterName, 'Give the reason for every P2P, transport and GDR decision, and each path''s route')
            [CompletionResult]::new('--dot', '--dot', [CompletionResultType]::ParameterName, 'Print Graphviz of the system with the chosen paths (`| dot -Tsvg > topo.svg`)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'topo;analyze' {
            [CompletionResult]::new('--topo', '--topo', [CompletionResultType]::ParameterName, 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)')
            [CompletionResult]::new('--fixture', '--fixture', [CompletionResultType]::ParameterName, 'A machine topo carries built in (see `topo fixtures`)')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine')
            [CompletionResult]::new('--nvml-fake', '--nvml-fake', [CompletionResultType]::ParameterName, 'With live or --root detection: NVML''s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README''s "The fake-NVML file" describes every key)')
            [CompletionResult]::new('--nodes', '--nodes', [CompletionResultType]::ParameterName, 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0')
            [CompletionResult]::new('--mnnvl-cliques', '--mnnvl-cliques', [CompletionResultType]::ParameterName, 'With --mnnvl: the N nodes fall into K equal cliques of consecutive trays (K NVL racks, say), each fused by NCCL into one node; NCCL then goes through the NICs between cliques. NVML''s clique ids are per GPU, so the layout is stated here')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour verdicts and severities (errors red, warnings yellow, what is fine green): auto (on a terminal, unless NO_COLOR is set), always or never. Text fits the terminal''s width (or COLUMNS when set); into a pipe without COLUMNS it is printed unwrapped, the same every time')
            [CompletionResult]::new('--no-p2p-support', '--no-p2p-support', [CompletionResultType]::ParameterName, 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)')
            [CompletionResult]::new('--no-nic-fusion', '--no-nic-fusion', [CompletionResultType]::ParameterName, 'The network plugin does not fuse the ports of a NIC into one virtual device')
            [CompletionResult]::new('--collnet', '--collnet', [CompletionResultType]::ParameterName, 'Every NIC is CollNet (SHARP) capable')
            [CompletionResult]::new('--no-nvls', '--no-nvls', [CompletionResultType]::ParameterName, 'NVLink SHARP (NVLS) is not available')
            [CompletionResult]::new('--mnnvl', '--mnnvl', [CompletionResultType]::ParameterName, 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node')
            [CompletionResult]::new('--mnnvl-one-domain', '--mnnvl-one-domain', [CompletionResultType]::ParameterName, 'With --mnnvl-cliques: the cliques are partitions of one NVLink domain (one cluster UUID), where NCCL_MNNVL_CROSS_CLIQUE=1 lets them use P2P over NVLink; without it each clique is its own domain')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the JSON document (schema 1) instead of the human summary')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'topo;search' {
            [CompletionResult]::new('--topo', '--topo', [CompletionResultType]::ParameterName, 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)')
            [CompletionResult]::new('--fixture', '--fixture', [CompletionResultType]::ParameterName, 'A machine topo carries built in (see `topo fixtures`)')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine')
            [CompletionResult]::new('--nvml-fake', '--nvml-fake', [CompletionResultType]::ParameterName, 'With live or --root detection: NVML''s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README''s "The fake-NVML file" describes every key)')
            [CompletionResult]::new('--nodes', '--nodes', [CompletionResultType]::ParameterName, 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0')
            [CompletionResult]::new('--mnnvl-cliques', '--mnnvl-cliques', [CompletionResultType]::ParameterName, 'With --mnnvl: the N nodes fall into K equal cliques of consecutive trays (K NVL racks, say), each fused by NCCL into one node; NCCL then goes through the NICs between cliques. NVML''s clique ids are per GPU, so the layout is stated here')
            [CompletionResult]::new('--channel', '--channel', [CompletionResultType]::ParameterName, 'With --dot: draw channel N of one graph (--graph, default ring) over the machine, with each link''s load per direction')
            [CompletionResult]::new('--graph', '--graph', [CompletionResultType]::ParameterName, 'Graphs to show, comma-separated or repeated [default: all computed]')
            [CompletionResult]::new('--rank', '--rank', [CompletionResultType]::ParameterName, 'Show this rank''s Ring/Trees log lines instead of rank 0''s')
            [CompletionResult]::new('--graph-file', '--graph-file', [CompletionResultType]::ParameterName, 'Load graphs from an NCCL graph file, as NCCL_GRAPH_FILE does (overrides it), and report what they cost: oversubscribed links and the bandwidth each channel gets')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour verdicts and severities (errors red, warnings yellow, what is fine green): auto (on a terminal, unless NO_COLOR is set), always or never. Text fits the terminal''s width (or COLUMNS when set); into a pipe without COLUMNS it is printed unwrapped, the same every time')
            [CompletionResult]::new('--no-p2p-support', '--no-p2p-support', [CompletionResultType]::ParameterName, 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)')
            [CompletionResult]::new('--no-nic-fusion', '--no-nic-fusion', [CompletionResultType]::ParameterName, 'The network plugin does not fuse the ports of a NIC into one virtual device')
            [CompletionResult]::new('--collnet', '--collnet', [CompletionResultType]::ParameterName, 'Every NIC is CollNet (SHARP) capable')
            [CompletionResult]::new('--no-nvls', '--no-nvls', [CompletionResultType]::ParameterName, 'NVLink SHARP (NVLS) is not available')
            [CompletionResult]::new('--mnnvl', '--mnnvl', [CompletionResultType]::ParameterName, 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node')
            [CompletionResult]::new('--mnnvl-one-domain', '--mnnvl-one-domain', [CompletionResultType]::ParameterName, 'With --mnnvl-cliques: the cliques are partitions of one NVLink domain (one cluster UUID), where NCCL_MNNVL_CROSS_CLIQUE=1 lets them use P2P over NVLink; without it each clique is its own domain')
            [CompletionResult]::new('--xml', '--xml', [CompletionResultType]::ParameterName, 'Print exactly what NCCL writes to NCCL_GRAPH_DUMP_FILE (all graphs)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the graphs and the channels NCCL runs (`run`) as JSON')
            [CompletionResult]::new('--dot', '--dot', [CompletionResultType]::ParameterName, 'Print Graphviz of the channels, one small diagram per distinct channel (`| dot -Tsvg > ch.svg`)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'topo;tune' {
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Element type, as nccl-tests'' -d (int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16): sizes become whole elements of it, and NVLS runs only the types it can reduce')
            [CompletionResult]::new('--datatype', '--datatype', [CompletionResultType]::ParameterName, 'Element type, as nccl-tests'' -d (int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16): sizes become whole elements of it, and NVLS runs only the types it can reduce')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Reduction, as nccl-tests'' -o (sum, prod, min, max, avg): NVLS reduces only some')
            [CompletionResult]::new('--op', '--op', [CompletionResultType]::ParameterName, 'Reduction, as nccl-tests'' -o (sum, prod, min, max, avg): NVLS reduces only some')
            [CompletionResult]::new('--topo', '--topo', [CompletionResultType]::ParameterName, 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)')
            [CompletionResult]::new('--fixture', '--fixture', [CompletionResultType]::ParameterName, 'A machine topo carries built in (see `topo fixtures`)')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine')
            [CompletionResult]::new('--nvml-fake', '--nvml-fake', [CompletionResultType]::ParameterName, 'With live or --root detection: NVML''s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README''s "The fake-NVML file" describes every key)')
            [CompletionResult]::new('--nodes', '--nodes', [CompletionResultType]::ParameterName, 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0')
            [CompletionResult]::new('--mnnvl-cliques', '--mnnvl-cliques', [CompletionResultType]::ParameterName, 'With --mnnvl: the N nodes fall into K equal cliques of consecutive trays (K NVL racks, say), each fused by NCCL into one node; NCCL then goes through the NICs between cliques. NVML''s clique ids are per GPU, so the layout is stated here')
            [CompletionResult]::new('-b', '-b', [CompletionResultType]::ParameterName, 'Smallest size in bytes, as nccl-tests'' -b (K, M, G suffixes are powers of 1024)')
            [CompletionResult]::new('--minbytes', '--minbytes', [CompletionResultType]::ParameterName, 'Smallest size in bytes, as nccl-tests'' -b (K, M, G suffixes are powers of 1024)')
            [CompletionResult]::new('-e', '-e', [CompletionResultType]::ParameterName, 'Largest size in bytes, as nccl-tests'' -e')
            [CompletionResult]::new('--maxbytes', '--maxbytes', [CompletionResultType]::ParameterName, 'Largest size in bytes, as nccl-tests'' -e')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Multiply the size by this between rows, as nccl-tests'' -f (default 2)')
            [CompletionResult]::new('--stepfactor', '--stepfactor', [CompletionResultType]::ParameterName, 'Multiply the size by this between rows, as nccl-tests'' -f (default 2)')
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'Add this many bytes between rows instead, as nccl-tests'' -i')
            [CompletionResult]::new('--stepbytes', '--stepbytes', [CompletionResultType]::ParameterName, 'Add this many bytes between rows instead, as nccl-tests'' -i')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour verdicts and severities (errors red, warnings yellow, what is fine green): auto (on a terminal, unless NO_COLOR is set), always or never. Text fits the terminal''s width (or COLUMNS when set); into a pipe without COLUMNS it is printed unwrapped, the same every time')
            [CompletionResult]::new('--no-p2p-support', '--no-p2p-support', [CompletionResultType]::ParameterName, 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)')
            [CompletionResult]::new('--no-nic-fusion', '--no-nic-fusion', [CompletionResultType]::ParameterName, 'The network plugin does not fuse the ports of a NIC into one virtual device')
            [CompletionResult]::new('--collnet', '--collnet', [CompletionResultType]::ParameterName, 'Every NIC is CollNet (SHARP) capable')
            [CompletionResult]::new('--no-nvls', '--no-nvls', [CompletionResultType]::ParameterName, 'NVLink SHARP (NVLS) is not available')
            [CompletionResult]::new('--mnnvl', '--mnnvl', [CompletionResultType]::ParameterName, 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node')
            [CompletionResult]::new('--mnnvl-one-domain', '--mnnvl-one-domain', [CompletionResultType]::ParameterName, 'With --mnnvl-cliques: the cliques are partitions of one NVLink domain (one cluster UUID), where NCCL_MNNVL_CROSS_CLIQUE=1 lets them use P2P over NVLink; without it each clique is its own domain')
            [CompletionResult]::new('--table', '--table', [CompletionResultType]::ParameterName, 'Also print NCCL''s tuning table (latency/bandwidth per collective, algorithm and protocol)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'topo;diff' {
            [CompletionResult]::new('--against-version', '--against-version', [CompletionResultType]::ParameterName, 'Model B as this NCCL release (A stays at --nccl-version): what changes on the same machine when NCCL is upgraded, e.g. `topo diff m.xml --nccl-version 2.21.5 --against-version 2.28.9`')
            [CompletionResult]::new('--ignore', '--ignore', [CompletionResultType]::ParameterName, 'Hide differences in these attributes (comma-separated or repeated), e.g. host_hash, guid, name, busid, affinity; `nccl` hides the NCCL results')
            [CompletionResult]::new('--nodes', '--nodes', [CompletionResultType]::ParameterName, 'Model each dump as one node of an N-node job (2 and more route rings and trees through the NICs, as on a cluster; 1 models a single machine)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour verdicts and severities (errors red, warnings yellow, what is fine green): auto (on a terminal, unless NO_COLOR is set), always or never. Text fits the terminal''s width (or COLUMNS when set); into a pipe without COLUMNS it is printed unwrapped, the same every time')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON for scripts')
            [CompletionResult]::new('--no-nic-fusion', '--no-nic-fusion', [CompletionResultType]::ParameterName, 'The network plugin does not fuse the ports of a NIC into one virtual device')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'topo;fleet' {
            [CompletionResult]::new('--ignore', '--ignore', [CompletionResultType]::ParameterName, 'Also ignore these attributes (comma-separated or repeated), e.g. name to ignore NIC names; host_hash and guid are always ignored')
            [CompletionResult]::new('--reference', '--reference', [CompletionResultType]::ParameterName, 'Compare with this dump''s group instead of the largest group (a file of the fleet, or any other dump)')
            [CompletionResult]::new('--nodes', '--nodes', [CompletionResultType]::ParameterName, 'Model each dump as one node of an N-node job (2 and more route rings and trees through the NICs, as on a cluster; 1 models a single machine)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour verdicts and severities (errors red, warnings yellow, what is fine green): auto (on a terminal, unless NO_COLOR is set), always or never. Text fits the terminal''s width (or COLUMNS when set); into a pipe without COLUMNS it is printed unwrapped, the same every time')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON for scripts')
            [CompletionResult]::new('--skip-bad', '--skip-bad', [CompletionResultType]::ParameterName, 'Report unreadable dumps and go on, instead of stopping with exit status 2')
            [CompletionResult]::new('--no-nic-fusion', '--no-nic-fusion', [CompletionResultType]::ParameterName, 'The network plugin does not fuse the ports of a NIC into one virtual device')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'topo;log' {
            [CompletionResult]::new('--rank', '--rank', [CompletionResultType]::ParameterName, 'Show only this rank''s per-rank lines (graphs, trees, connections)')
            [CompletionResult]::new('--topo', '--topo', [CompletionResultType]::ParameterName, 'The machine the log ran on, when the log has no system print (or to check a topology file against a log)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write to FILE instead of standard output (replaced whole, never half-written; the text unwrapped, as into a pipe, and coloured only with --color always)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write to FILE instead of standard output (replaced whole, never half-written; the text unwrapped, as into a pipe, and coloured only with --color always)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour verdicts and severities (errors red, warnings yellow, what is fine green): auto (on a terminal, unless NO_COLOR is set), always or never. Text fits the terminal''s width (or COLUMNS when set); into a pipe without COLUMNS it is printed unwrapped, the same every time')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON for scripts (the facts, what is unusual, the model''s findings)')
            [CompletionResult]::new('--xml', '--xml', [CompletionResultType]::ParameterName, 'Print the topology rebuilt from the log''s system print, as NCCL topology XML (what the log cannot tell is said on stderr)')
            [CompletionResult]::new('--dot', '--dot', [CompletionResultType]::ParameterName, 'Print the logged rings as Graphviz')
            [CompletionResult]::new('--no-model', '--no-model', [CompletionResultType]::ParameterName, 'Do not hold the log against topo''s model (by default it is, when the log has a system print or --topo names the machine)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Count the NCCL lines topo does not know, by first word')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Count the NCCL lines topo does not know, by first word')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'topo;bench' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('allreduce', 'allreduce', [CompletionResultType]::ParameterValue, 'Allreduce bandwidth probe with nccl-tests'' flags and output, set against the model')
            [CompletionResult]::new('allgather', 'allgather', [CompletionResultType]::ParameterValue, 'Allgather by NCCL''s rings or --algo NAME|PROGRAM.xml, on host threads or a GPU per rank, in all_gather_perf''s columns')
            [CompletionResult]::new('reducescatter', 'reducescatter', [CompletionResultType]::ParameterValue, 'Reduce-scatter by NCCL''s rings or --algo NAME|PROGRAM.xml, on host threads or a GPU per rank, in reduce_scatter_perf''s columns')
            [CompletionResult]::new('alltoall', 'alltoall', [CompletionResultType]::ParameterValue, 'Alltoall by all pairs (mesh) or --algo NAME|PROGRAM.xml, on host threads or a GPU per rank, in alltoall_perf''s columns')
            [CompletionResult]::new('broadcast', 'broadcast', [CompletionResultType]::ParameterValue, 'Broadcast by NCCL''s rings or --algo NAME|PROGRAM.xml, on host threads or a GPU per rank, in broadcast_perf''s columns')
            [CompletionResult]::new('reduce', 'reduce', [CompletionResultType]::ParameterValue, 'Reduce to the root -r by NCCL''s rings or --algo NAME|PROGRAM.xml, on host threads or a GPU per rank, in reduce_perf''s columns')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'topo;bench;allreduce' {
            [CompletionResult]::new('-b', '-b', [CompletionResultType]::ParameterName, 'Smallest message size in bytes (K, M, G suffixes)')
            [CompletionResult]::new('--minbytes', '--minbytes', [CompletionResultType]::ParameterName, 'Smallest message size in bytes (K, M, G suffixes)')
            [CompletionResult]::new('-e', '-e', [CompletionResultType]::ParameterName, 'Largest message size in bytes')
            [CompletionResult]::new('--maxbytes', '--maxbytes', [CompletionResultType]::ParameterName, 'Largest message size in bytes')
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'Size increment between steps, when no step factor is given (a sweep holds at most 4096 sizes)')
            [CompletionResult]::new('--stepbytes', '--stepbytes', [CompletionResultType]::ParameterName, 'Size increment between steps, when no step factor is given (a sweep holds at most 4096 sizes)')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Multiply the size by this factor at each step (over 1 takes precedence over -i)')
            [CompletionResult]::new('--stepfactor', '--stepfactor', [CompletionResultType]::ParameterName, 'Multiply the size by this factor at each step (over 1 takes precedence over -i)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Timed iterations per size (1 to 1000000)')
            [CompletionResult]::new('--iters', '--iters', [CompletionResultType]::ParameterName, 'Timed iterations per size (1 to 1000000)')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Warm-up iterations per size (sizes doubling from min to max), before timing (at most 10000)')
            [CompletionResult]::new('--warmup_iters', '--warmup_iters', [CompletionResultType]::ParameterName, 'Warm-up iterations per size (sizes doubling from min to max), before timing (at most 10000)')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Validation runs per measurement (0: no validation, #wrong is N/A; at most 1000)')
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Validation runs per measurement (0: no validation, #wrong is N/A; at most 1000)')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Element type: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, or all')
            [CompletionResult]::new('--datatype', '--datatype', [CompletionResultType]::ParameterName, 'Element type: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, or all')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Reduction: sum, prod, min, max, avg, or all')
            [CompletionResult]::new('--op', '--op', [CompletionResultType]::ParameterName, 'Reduction: sum, prod, min, max, avg, or all')
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'Number of ranks, 1 to 256 (default: every local GPU; host backend: CPU cores, 2 to 8)')
            [CompletionResult]::new('--ngpus', '--ngpus', [CompletionResultType]::ParameterName, 'Number of ranks, 1 to 256 (default: every local GPU; host backend: CPU cores, 2 to 8)')
            [CompletionResult]::new('-J', '-J ', [CompletionResultType]::ParameterName, 'Also write nccl-tests'' JSON report here (never overwritten: FILE.0, FILE.1... instead, said on stderr)')
            [CompletionResult]::new('--output_file', '--output_file', [CompletionResultType]::ParameterName, 'Also write nccl-tests'' JSON report here (never overwritten: FILE.0, FILE.1... instead, said on stderr)')
            [CompletionResult]::new('--backend', '--backend', [CompletionResultType]::ParameterName, 'Run on the GPUs (cuda) or on CPU threads (host)')
            [CompletionResult]::new('--channels', '--channels', [CompletionResultType]::ParameterName, 'Channels (rings) to run, 1 to 64; repeats or trims the plan''s rings (default: the plan''s; without a search 8 on CUDA and 1 on the host backend)')
            [CompletionResult]::new('--graph-file', '--graph-file', [CompletionResultType]::ParameterName, 'Run the ring channels (graph 0) of this NCCL graph XML file (NCCL_GRAPH_DUMP_FILE format)')
            [CompletionResult]::new('--transport', '--transport', [CompletionResultType]::ParameterName, 'Use this transport on every ring edge instead of the plan''s (P2P when there is no model)')
            [CompletionResult]::new('--slot-bytes', '--slot-bytes', [CompletionResultType]::ParameterName, 'Bytes per FIFO slot (one pipelined chunk); default 512K on the host, 128K on CUDA')
            [CompletionResult]::new('--arch', '--arch', [CompletionResultType]::ParameterName, 'Target architecture for --compile-only (sm_80, sm_90...; default: the local GPUs'', else sm_80 and sm_90)')
            [CompletionResult]::new('--topo', '--topo', [CompletionResultType]::ParameterName, 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)')
            [CompletionResult]::new('--fixture', '--fixture', [CompletionResultType]::ParameterName, 'A machine topo carries built in (see `topo fixtures`)')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine')
            [CompletionResult]::new('--nvml-fake', '--nvml-fake', [CompletionResultType]::ParameterName, 'With live or --root detection: NVML''s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README''s "The fake-NVML file" describes every key)')
            [CompletionResult]::new('--nodes', '--nodes', [CompletionResultType]::ParameterName, 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0')
            [CompletionResult]::new('--mnnvl-cliques', '--mnnvl-cliques', [CompletionResultType]::ParameterName, 'With --mnnvl: the N nodes fall into K equal cliques of consecutive trays (K NVL racks, say), each fused by NCCL into one node; NCCL then goes through the NICs between cliques. NVML''s clique ids are per GPU, so the layout is stated here')
            [CompletionResult]::new('--algo', '--algo', [CompletionResultType]::ParameterName, 'Run this program: an MSCCL-IR file (refused with `topo algo check`''s findings unless it passes), or an algorithm `topo algo make` makes for the machine the flags name (ring, mesh, rhd, nhr, nb, hierarchical, nccl, nccl-tree; without a machine, for -g ranks). Runs on host threads or with the CUDA interpreter kernel (one GPU per rank). A name that is an existing file is the file')
            [CompletionResult]::new('--streams', '--streams', [CompletionResultType]::ParameterName, 'Run `topo algo plan`''s streams for the machine (allgather, reducescatter, allreduce; every node of --nodes) on host threads or CUDA streams: "auto" for HCCL''s own choice, or HCCL_ALGO''s syntax, e.g. "mesh" or "level0:ring;level1:NHR"')
            [CompletionResult]::new('--in-place', '--in-place', [CompletionResultType]::ParameterName, 'Only the in-place measurement')
            [CompletionResult]::new('--out-of-place', '--out-of-place', [CompletionResultType]::ParameterName, 'Only the out-of-place measurement')
            [CompletionResult]::new('--compile-only', '--compile-only', [CompletionResultType]::ParameterName, 'Compile every kernel with NVRTC and report registers and spills; no GPU needed')
            [CompletionResult]::new('--no-p2p-support', '--no-p2p-support', [CompletionResultType]::ParameterName, 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)')
            [CompletionResult]::new('--no-nic-fusion', '--no-nic-fusion', [CompletionResultType]::ParameterName, 'The network plugin does not fuse the ports of a NIC into one virtual device')
            [CompletionResult]::new('--collnet', '--collnet', [CompletionResultType]::ParameterName, 'Every NIC is CollNet (SHARP) capable')
            [CompletionResult]::new('--no-nvls', '--no-nvls', [CompletionResultType]::ParameterName, 'NVLink SHARP (NVLS) is not available')
            [CompletionResult]::new('--mnnvl', '--mnnvl', [CompletionResultType]::ParameterName, 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node')
            [CompletionResult]::new('--mnnvl-one-domain', '--mnnvl-one-domain', [CompletionResultType]::ParameterName, 'With --mnnvl-cliques: the cliques are partitions of one NVLink domain (one cluster UUID), where NCCL_MNNVL_CROSS_CLIQUE=1 lets them use P2P over NVLink; without it each clique is its own domain')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'topo;bench;allgather' {
            [CompletionResult]::new('-b', '-b', [CompletionResultType]::ParameterName, 'Smallest message size in bytes (K, M, G suffixes)')
            [CompletionResult]::new('--minbytes', '--minbytes', [CompletionResultType]::ParameterName, 'Smallest message size in bytes (K, M, G suffixes)')
            [CompletionResult]::new('-e', '-e', [CompletionResultType]::ParameterName, 'Largest message size in bytes')
            [CompletionResult]::new('--maxbytes', '--maxbytes', [CompletionResultType]::ParameterName, 'Largest message size in bytes')
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'Size increment between steps, when no step factor is given (a sweep holds at most 4096 sizes)')
            [CompletionResult]::new('--stepbytes', '--stepbytes', [CompletionResultType]::ParameterName, 'Size increment between steps, when no step factor is given (a sweep holds at most 4096 sizes)')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Multiply the size by this factor at each step (over 1 takes precedence over -i)')
            [CompletionResult]::new('--stepfactor', '--stepfactor', [CompletionResultType]::ParameterName, 'Multiply the size by this factor at each step (over 1 takes precedence over -i)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Timed iterations per size (1 to 1000000)')
            [CompletionResult]::new('--iters', '--iters', [CompletionResultType]::ParameterName, 'Timed iterations per size (1 to 1000000)')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Warm-up iterations per size (sizes doubling from min to max), before timing (at most 10000)')
            [CompletionResult]::new('--warmup_iters', '--warmup_iters', [CompletionResultType]::ParameterName, 'Warm-up iterations per size (sizes doubling from min to max), before timing (at most 10000)')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Validation runs per measurement (0: no validation, #wrong is N/A; at most 1000)')
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Validation runs per measurement (0: no validation, #wrong is N/A; at most 1000)')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Element type: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, or all')
            [CompletionResult]::new('--datatype', '--datatype', [CompletionResultType]::ParameterName, 'Element type: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, or all')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Reduction: sum, prod, min, max, avg, or all')
            [CompletionResult]::new('--op', '--op', [CompletionResultType]::ParameterName, 'Reduction: sum, prod, min, max, avg, or all')
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'Number of ranks, 1 to 256 (default: every local GPU; host backend: CPU cores, 2 to 8)')
            [CompletionResult]::new('--ngpus', '--ngpus', [CompletionResultType]::ParameterName, 'Number of ranks, 1 to 256 (default: every local GPU; host backend: CPU cores, 2 to 8)')
            [CompletionResult]::new('-J', '-J ', [CompletionResultType]::ParameterName, 'Also write nccl-tests'' JSON report here (never overwritten: FILE.0, FILE.1... instead, said on stderr)')
            [CompletionResult]::new('--output_file', '--output_file', [CompletionResultType]::ParameterName, 'Also write nccl-tests'' JSON report here (never overwritten: FILE.0, FILE.1... instead, said on stderr)')
            [CompletionResult]::new('--backend', '--backend', [CompletionResultType]::ParameterName, 'Run on the GPUs (cuda) or on CPU threads (host)')
            [CompletionResult]::new('--channels', '--channels', [CompletionResultType]::ParameterName, 'Channels (rings) to run, 1 to 64; repeats or trims the plan''s rings (default: the plan''s; without a search 8 on CUDA and 1 on the host backend)')
            [CompletionResult]::new('--graph-file', '--graph-file', [CompletionResultType]::ParameterName, 'Run the ring channels (graph 0) of this NCCL graph XML file (NCCL_GRAPH_DUMP_FILE format)')
            [CompletionResult]::new('--transport', '--transport', [CompletionResultType]::ParameterName, 'Use this transport on every ring edge instead of the plan''s (P2P when there is no model)')
            [CompletionResult]::new('--slot-bytes', '--slot-bytes', [CompletionResultType]::ParameterName, 'Bytes per FIFO slot (one pipelined chunk); default 512K on the host, 128K on CUDA')
            [CompletionResult]::new('--arch', '--arch', [CompletionResultType]::ParameterName, 'Target architecture for --compile-only (sm_80, sm_90...; default: the local GPUs'', else sm_80 and sm_90)')
            [CompletionResult]::new('--topo', '--topo', [CompletionResultType]::ParameterName, 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)')
            [CompletionResult]::new('--fixture', '--fixture', [CompletionResultType]::ParameterName, 'A machine topo carries built in (see `topo fixtures`)')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine')
            [CompletionResult]::new('--nvml-fake', '--nvml-fake', [CompletionResultType]::ParameterName, 'With live or --root detection: NVML''s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README''s "The fake-NVML file" describes every key)')
            [CompletionResult]::new('--nodes', '--nodes', [CompletionResultType]::ParameterName, 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0')
            [CompletionResult]::new('--mnnvl-cliques', '--mnnvl-cliques', [CompletionResultType]::ParameterName, 'With --mnnvl: the N nodes fall into K equal cliques of consecutive trays (K NVL racks, say), each fused by NCCL into one node; NCCL then goes through the NICs between cliques. NVML''s clique ids are per GPU, so the layout is stated here')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Root rank of broadcast and reduce (a program file is for the root it was written for; a made one is made for -r; -r only: --root names a machine''s sysfs root)')
            [CompletionResult]::new('--algo', '--algo', [CompletionResultType]::ParameterName, 'Run this program: an MSCCL-IR file (refused with `topo algo check`''s findings unless it passes), or an algorithm `topo algo make` makes for the machine the flags name (ring, mesh, rhd, nhr, nb, hierarchical, nccl, nccl-tree; without a machine, for -g ranks). Runs on host threads or with the CUDA interpreter kernel (one GPU per rank). A name that is an existing file is the file')
            [CompletionResult]::new('--streams', '--streams', [CompletionResultType]::ParameterName, 'Run `topo algo plan`''s streams for the machine (allgather, reducescatter, allreduce; every node of --nodes) on host threads or CUDA streams: "auto" for HCCL''s own choice, or HCCL_ALGO''s syntax, e.g. "mesh" or "level0:ring;level1:NHR"')
            [CompletionResult]::new('--in-place', '--in-place', [CompletionResultType]::ParameterName, 'Only the in-place measurement')
            [CompletionResult]::new('--out-of-place', '--out-of-place', [CompletionResultType]::ParameterName, 'Only the out-of-place measurement')
            [CompletionResult]::new('--compile-only', '--compile-only', [CompletionResultType]::ParameterName, 'Compile every kernel with NVRTC and report registers and spills; no GPU needed')
            [CompletionResult]::new('--no-p2p-support', '--no-p2p-support', [CompletionResultType]::ParameterName, 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)')
            [CompletionResult]::new('--no-nic-fusion', '--no-nic-fusion', [CompletionResultType]::ParameterName, 'The network plugin does not fuse the ports of a NIC into one virtual device')
            [CompletionResult]::new('--collnet', '--collnet', [CompletionResultType]::ParameterName, 'Every NIC is CollNet (SHARP) capable')
            [CompletionResult]::new('--no-nvls', '--no-nvls', [CompletionResultType]::ParameterName, 'NVLink SHARP (NVLS) is not available')
            [CompletionResult]::new('--mnnvl', '--mnnvl', [CompletionResultType]::ParameterName, 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node')
            [CompletionResult]::new('--mnnvl-one-domain', '--mnnvl-one-domain', [CompletionResultType]::ParameterName, 'With --mnnvl-cliques: the cliques are partitions of one NVLink domain (one cluster UUID), where NCCL_MNNVL_CROSS_CLIQUE=1 lets them use P2P over NVLink; without it each clique is its own domain')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'topo;bench;reducescatter' {
            [CompletionResult]::new('-b', '-b', [CompletionResultType]::ParameterName, 'Smallest message size in bytes (K, M, G suffixes)')
            [CompletionResult]::new('--minbytes', '--minbytes', [CompletionResultType]::ParameterName, 'Smallest message size in bytes (K, M, G suffixes)')
            [CompletionResult]::new('-e', '-e', [CompletionResultType]::ParameterName, 'Largest message size in bytes')
            [CompletionResult]::new('--maxbytes', '--maxbytes', [CompletionResultType]::ParameterName, 'Largest message size in bytes')
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'Size increment between steps, when no step factor is given (a sweep holds at most 4096 sizes)')
            [CompletionResult]::new('--stepbytes', '--stepbytes', [CompletionResultType]::ParameterName, 'Size increment between steps, when no step factor is given (a sweep holds at most 4096 sizes)')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Multiply the size by this factor at each step (over 1 takes precedence over -i)')
            [CompletionResult]::new('--stepfactor', '--stepfactor', [CompletionResultType]::ParameterName, 'Multiply the size by this factor at each step (over 1 takes precedence over -i)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Timed iterations per size (1 to 1000000)')
            [CompletionResult]::new('--iters', '--iters', [CompletionResultType]::ParameterName, 'Timed iterations per size (1 to 1000000)')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Warm-up iterations per size (sizes doubling from min to max), before timing (at most 10000)')
            [CompletionResult]::new('--warmup_iters', '--warmup_iters', [CompletionResultType]::ParameterName, 'Warm-up iterations per size (sizes doubling from min to max), before timing (at most 10000)')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Validation runs per measurement (0: no validation, #wrong is N/A; at most 1000)')
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Validation runs per measurement (0: no validation, #wrong is N/A; at most 1000)')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Element type: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, or all')
            [CompletionResult]::new('--datatype', '--datatype', [CompletionResultType]::ParameterName, 'Element type: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, or all')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Reduction: sum, prod, min, max, avg, or all')
            [CompletionResult]::new('--op', '--op', [CompletionResultType]::ParameterName, 'Reduction: sum, prod, min, max, avg, or all')
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'Number of ranks, 1 to 256 (default: every local GPU; host backend: CPU cores, 2 to 8)')
            [CompletionResult]::new('--ngpus', '--ngpus', [CompletionResultType]::ParameterName, 'Number of ranks, 1 to 256 (default: every local GPU; host backend: CPU cores, 2 to 8)')
            [CompletionResult]::new('-J', '-J ', [CompletionResultType]::ParameterName, 'Also write nccl-tests'' JSON report here (never overwritten: FILE.0, FILE.1... instead, said on stderr)')
            [CompletionResult]::new('--output_file', '--output_file', [CompletionResultType]::ParameterName, 'Also write nccl-tests'' JSON report here (never overwritten: FILE.0, FILE.1... instead, said on stderr)')
            [CompletionResult]::new('--backend', '--backend', [CompletionResultType]::ParameterName, 'Run on the GPUs (cuda) or on CPU threads (host)')
            [CompletionResult]::new('--channels', '--channels', [CompletionResultType]::ParameterName, 'Channels (rings) to run, 1 to 64; repeats or trims the plan''s rings (default: the plan''s; without a search 8 on CUDA and 1 on the host backend)')
            [CompletionResult]::new('--graph-file', '--graph-file', [CompletionResultType]::ParameterName, 'Run the ring channels (graph 0) of this NCCL graph XML file (NCCL_GRAPH_DUMP_FILE format)')
            [CompletionResult]::new('--transport', '--transport', [CompletionResultType]::ParameterName, 'Use this transport on every ring edge instead of the plan''s (P2P when there is no model)')
            [CompletionResult]::new('--slot-bytes', '--slot-bytes', [CompletionResultType]::ParameterName, 'Bytes per FIFO slot (one pipelined chunk); default 512K on the host, 128K on CUDA')
            [CompletionResult]::new('--arch', '--arch', [CompletionResultType]::ParameterName, 'Target architecture for --compile-only (sm_80, sm_90...; default: the local GPUs'', else sm_80 and sm_90)')
            [CompletionResult]::new('--topo', '--topo', [CompletionResultType]::ParameterName, 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)')
            [CompletionResult]::new('--fixture', '--fixture', [CompletionResultType]::ParameterName, 'A machine topo carries built in (see `topo fixtures`)')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine')
            [CompletionResult]::new('--nvml-fake', '--nvml-fake', [CompletionResultType]::ParameterName, 'With live or --root detection: NVML''s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README''s "The fake-NVML file" describes every key)')
            [CompletionResult]::new('--nodes', '--nodes', [CompletionResultType]::ParameterName, 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0')
            [CompletionResult]::new('--mnnvl-cliques', '--mnnvl-cliques', [CompletionResultType]::ParameterName, 'With --mnnvl: the N nodes fall into K equal cliques of consecutive trays (K NVL racks, say), each fused by NCCL into one node; NCCL then goes through the NICs between cliques. NVML''s clique ids are per GPU, so the layout is stated here')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Root rank of broadcast and reduce (a program file is for the root it was written for; a made one is made for -r; -r only: --root names a machine''s sysfs root)')
            [CompletionResult]::new('--algo', '--algo', [CompletionResultType]::ParameterName, 'Run this program: an MSCCL-IR file (refused with `topo algo check`''s findings unless it passes), or an algorithm `topo algo make` makes for the machine the flags name (ring, mesh, rhd, nhr, nb, hierarchical, nccl, nccl-tree; without a machine, for -g ranks). Runs on host threads or with the CUDA interpreter kernel (one GPU per rank). A name that is an existing file is the file')
            [CompletionResult]::new('--streams', '--streams', [CompletionResultType]::ParameterName, 'Run `topo algo plan`''s streams for the machine (allgather, reducescatter, allreduce; every node of --nodes) on host threads or CUDA streams: "auto" for HCCL''s own choice, or HCCL_ALGO''s syntax, e.g. "mesh" or "level0:ring;level1:NHR"')
            [CompletionResult]::new('--in-place', '--in-place', [CompletionResultType]::ParameterName, 'Only the in-place measurement')
            [CompletionResult]::new('--out-of-place', '--out-of-place', [CompletionResultType]::ParameterName, 'Only the out-of-place measurement')
            [CompletionResult]::new('--compile-only', '--compile-only', [CompletionResultType]::ParameterName, 'Compile every kernel with NVRTC and report registers and spills; no GPU needed')
            [CompletionResult]::new('--no-p2p-support', '--no-p2p-support', [CompletionResultType]::ParameterName, 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)')
            [CompletionResult]::new('--no-nic-fusion', '--no-nic-fusion', [CompletionResultType]::ParameterName, 'The network plugin does not fuse the ports of a NIC into one virtual device')
            [CompletionResult]::new('--collnet', '--collnet', [CompletionResultType]::ParameterName, 'Every NIC is CollNet (SHARP) capable')
            [CompletionResult]::new('--no-nvls', '--no-nvls', [CompletionResultType]::ParameterName, 'NVLink SHARP (NVLS) is not available')
            [CompletionResult]::new('--mnnvl', '--mnnvl', [CompletionResultType]::ParameterName, 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node')
            [CompletionResult]::new('--mnnvl-one-domain', '--mnnvl-one-domain', [CompletionResultType]::ParameterName, 'With --mnnvl-cliques: the cliques are partitions of one NVLink domain (one cluster UUID), where NCCL_MNNVL_CROSS_CLIQUE=1 lets them use P2P over NVLink; without it each clique is its own domain')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'topo;bench;alltoall' {
            [CompletionResult]::new('-b', '-b', [CompletionResultType]::ParameterName, 'Smallest message size in bytes (K, M, G suffixes)')
            [CompletionResult]::new('--minbytes', '--minbytes', [CompletionResultType]::ParameterName, 'Smallest message size in bytes (K, M, G suffixes)')
            [CompletionResult]::new('-e', '-e', [CompletionResultType]::ParameterName, 'Largest message size in bytes')
            [CompletionResult]::new('--maxbytes', '--maxbytes', [CompletionResultType]::ParameterName, 'Largest message size in bytes')
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'Size increment between steps, when no step factor is given (a sweep holds at most 4096 sizes)')
            [CompletionResult]::new('--stepbytes', '--stepbytes', [CompletionResultType]::ParameterName, 'Size increment between steps, when no step factor is given (a sweep holds at most 4096 sizes)')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Multiply the size by this factor at each step (over 1 takes precedence over -i)')
            [CompletionResult]::new('--stepfactor', '--stepfactor', [CompletionResultType]::ParameterName, 'Multiply the size by this factor at each step (over 1 takes precedence over -i)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Timed iterations per size (1 to 1000000)')
            [CompletionResult]::new('--iters', '--iters', [CompletionResultType]::ParameterName, 'Timed iterations per size (1 to 1000000)')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Warm-up iterations per size (sizes doubling from min to max), before timing (at most 10000)')
            [CompletionResult]::new('--warmup_iters', '--warmup_iters', [CompletionResultType]::ParameterName, 'Warm-up iterations per size (sizes doubling from min to max), before timing (at most 10000)')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Validation runs per measurement (0: no validation, #wrong is N/A; at most 1000)')
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Validation runs per measurement (0: no validation, #wrong is N/A; at most 1000)')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Element type: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, or all')
            [CompletionResult]::new('--datatype', '--datatype', [CompletionResultType]::ParameterName, 'Element type: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, or all')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Reduction: sum, prod, min, max, avg, or all')
            [CompletionResult]::new('--op', '--op', [CompletionResultType]::ParameterName, 'Reduction: sum, prod, min, max, avg, or all')
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'Number of ranks, 1 to 256 (default: every local GPU; host backend: CPU cores, 2 to 8)')
            [CompletionResult]::new('--ngpus', '--ngpus', [CompletionResultType]::ParameterName, 'Number of ranks, 1 to 256 (default: every local GPU; host backend: CPU cores, 2 to 8)')
            [CompletionResult]::new('-J', '-J ', [CompletionResultType]::ParameterName, 'Also write nccl-tests'' JSON report here (never overwritten: FILE.0, FILE.1... instead, said on stderr)')
            [CompletionResult]::new('--output_file', '--output_file', [CompletionResultType]::ParameterName, 'Also write nccl-tests'' JSON report here (never overwritten: FILE.0, FILE.1... instead, said on stderr)')
            [CompletionResult]::new('--backend', '--backend', [CompletionResultType]::ParameterName, 'Run on the GPUs (cuda) or on CPU threads (host)')
            [CompletionResult]::new('--channels', '--channels', [CompletionResultType]::ParameterName, 'Channels (rings) to run, 1 to 64; repeats or trims the plan''s rings (default: the plan''s; without a search 8 on CUDA and 1 on the host backend)')
            [CompletionResult]::new('--graph-file', '--graph-file', [CompletionResultType]::ParameterName, 'Run the ring channels (graph 0) of this NCCL graph XML file (NCCL_GRAPH_DUMP_FILE format)')
            [CompletionResult]::new('--transport', '--transport', [CompletionResultType]::ParameterName, 'Use this transport on every ring edge instead of the plan''s (P2P when there is no model)')
            [CompletionResult]::new('--slot-bytes', '--slot-bytes', [CompletionResultType]::ParameterName, 'Bytes per FIFO slot (one pipelined chunk); default 512K on the host, 128K on CUDA')
            [CompletionResult]::new('--arch', '--arch', [CompletionResultType]::ParameterName, 'Target architecture for --compile-only (sm_80, sm_90...; default: the local GPUs'', else sm_80 and sm_90)')
            [CompletionResult]::new('--topo', '--topo', [CompletionResultType]::ParameterName, 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)')
            [CompletionResult]::new('--fixture', '--fixture', [CompletionResultType]::ParameterName, 'A machine topo carries built in (see `topo fixtures`)')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine')
            [CompletionResult]::new('--nvml-fake', '--nvml-fake', [CompletionResultType]::ParameterName, 'With live or --root detection: NVML''s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README''s "The fake-NVML file" describes every key)')
            [CompletionResult]::new('--nodes', '--nodes', [CompletionResultType]::ParameterName, 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0')
            [CompletionResult]::new('--mnnvl-cliques', '--mnnvl-cliques', [CompletionResultType]::ParameterName, 'With --mnnvl: the N nodes fall into K equal cliques of consecutive trays (K NVL racks, say), each fused by NCCL into one node; NCCL then goes through the NICs between cliques. NVML''s clique ids are per GPU, so the layout is stated here')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Root rank of broadcast and reduce (a program file is for the root it was written for; a made one is made for -r; -r only: --root names a machine''s sysfs root)')
            [CompletionResult]::new('--algo', '--algo', [CompletionResultType]::ParameterName, 'Run this program: an MSCCL-IR file (refused with `topo algo check`''s findings unless it passes), or an algorithm `topo algo make` makes for the machine the flags name (ring, mesh, rhd, nhr, nb, hierarchical, nccl, nccl-tree; without a machine, for -g ranks). Runs on host threads or with the CUDA interpreter kernel (one GPU per rank). A name that is an existing file is the file')
            [CompletionResult]::new('--streams', '--streams', [CompletionResultType]::ParameterName, 'Run `topo algo plan`''s streams for the machine (allgather, reducescatter, allreduce; every node of --nodes) on host threads or CUDA streams: "auto" for HCCL''s own choice, or HCCL_ALGO''s syntax, e.g. "mesh" or "level0:ring;level1:NHR"')
            [CompletionResult]::new('--in-place', '--in-place', [CompletionResultType]::ParameterName, 'Only the in-place measurement')
            [CompletionResult]::new('--out-of-place', '--out-of-place', [CompletionResultType]::ParameterName, 'Only the out-of-place measurement')
            [CompletionResult]::new('--compile-only', '--compile-only', [CompletionResultType]::ParameterName, 'Compile every kernel with NVRTC and report registers and spills; no GPU needed')
            [CompletionResult]::new('--no-p2p-support', '--no-p2p-support', [CompletionResultType]::ParameterName, 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)')
            [CompletionResult]::new('--no-nic-fusion', '--no-nic-fusion', [CompletionResultType]::ParameterName, 'The network plugin does not fuse the ports of a NIC into one virtual device')
            [CompletionResult]::new('--collnet', '--collnet', [CompletionResultType]::ParameterName, 'Every NIC is CollNet (SHARP) capable')
            [CompletionResult]::new('--no-nvls', '--no-nvls', [CompletionResultType]::ParameterName, 'NVLink SHARP (NVLS) is not available')
            [CompletionResult]::new('--mnnvl', '--mnnvl', [CompletionResultType]::ParameterName, 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node')
            [CompletionResult]::new('--mnnvl-one-domain', '--mnnvl-one-domain', [CompletionResultType]::ParameterName, 'With --mnnvl-cliques: the cliques are partitions of one NVLink domain (one cluster UUID), where NCCL_MNNVL_CROSS_CLIQUE=1 lets them use P2P over NVLink; without it each clique is its own domain')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'topo;bench;broadcast' {
            [CompletionResult]::new('-b', '-b', [CompletionResultType]::ParameterName, 'Smallest message size in bytes (K, M, G suffixes)')
            [CompletionResult]::new('--minbytes', '--minbytes', [CompletionResultType]::ParameterName, 'Smallest message size in bytes (K, M, G suffixes)')
            [CompletionResult]::new('-e', '-e', [CompletionResultType]::ParameterName, 'Largest message size in bytes')
            [CompletionResult]::new('--maxbytes', '--maxbytes', [CompletionResultType]::ParameterName, 'Largest message size in bytes')
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'Size increment between steps, when no step factor is given (a sweep holds at most 4096 sizes)')
            [CompletionResult]::new('--stepbytes', '--stepbytes', [CompletionResultType]::ParameterName, 'Size increment between steps, when no step factor is given (a sweep holds at most 4096 sizes)')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Multiply the size by this factor at each step (over 1 takes precedence over -i)')
            [CompletionResult]::new('--stepfactor', '--stepfactor', [CompletionResultType]::ParameterName, 'Multiply the size by this factor at each step (over 1 takes precedence over -i)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Timed iterations per size (1 to 1000000)')
            [CompletionResult]::new('--iters', '--iters', [CompletionResultType]::ParameterName, 'Timed iterations per size (1 to 1000000)')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Warm-up iterations per size (sizes doubling from min to max), before timing (at most 10000)')
            [CompletionResult]::new('--warmup_iters', '--warmup_iters', [CompletionResultType]::ParameterName, 'Warm-up iterations per size (sizes doubling from min to max), before timing (at most 10000)')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Validation runs per measurement (0: no validation, #wrong is N/A; at most 1000)')
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Validation runs per measurement (0: no validation, #wrong is N/A; at most 1000)')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Element type: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, or all')
            [CompletionResult]::new('--datatype', '--datatype', [CompletionResultType]::ParameterName, 'Element type: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, or all')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Reduction: sum, prod, min, max, avg, or all')
            [CompletionResult]::new('--op', '--op', [CompletionResultType]::ParameterName, 'Reduction: sum, prod, min, max, avg, or all')
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'Number of ranks, 1 to 256 (default: every local GPU; host backend: CPU cores, 2 to 8)')
            [CompletionResult]::new('--ngpus', '--ngpus', [CompletionResultType]::ParameterName, 'Number of ranks, 1 to 256 (default: every local GPU; host backend: CPU cores, 2 to 8)')
            [CompletionResult]::new('-J', '-J ', [CompletionResultType]::ParameterName, 'Also write nccl-tests'' JSON report here (never overwritten: FILE.0, FILE.1... instead, said on stderr)')
            [CompletionResult]::new('--output_file', '--output_file', [CompletionResultType]::ParameterName, 'Also write nccl-tests'' JSON report here (never overwritten: FILE.0, FILE.1... instead, said on stderr)')
            [CompletionResult]::new('--backend', '--backend', [CompletionResultType]::ParameterName, 'Run on the GPUs (cuda) or on CPU threads (host)')
            [CompletionResult]::new('--channels', '--channels', [CompletionResultType]::ParameterName, 'Channels (rings) to run, 1 to 64; repeats or trims the plan''s rings (default: the plan''s; without a search 8 on CUDA and 1 on the host backend)')
            [CompletionResult]::new('--graph-file', '--graph-file', [CompletionResultType]::ParameterName, 'Run the ring channels (graph 0) of this NCCL graph XML file (NCCL_GRAPH_DUMP_FILE format)')
            [CompletionResult]::new('--transport', '--transport', [CompletionResultType]::ParameterName, 'Use this transport on every ring edge instead of the plan''s (P2P when there is no model)')
            [CompletionResult]::new('--slot-bytes', '--slot-bytes', [CompletionResultType]::ParameterName, 'Bytes per FIFO slot (one pipelined chunk); default 512K on the host, 128K on CUDA')
            [CompletionResult]::new('--arch', '--arch', [CompletionResultType]::ParameterName, 'Target architecture for --compile-only (sm_80, sm_90...; default: the local GPUs'', else sm_80 and sm_90)')
            [CompletionResult]::new('--topo', '--topo', [CompletionResultType]::ParameterName, 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)')
            [CompletionResult]::new('--fixture', '--fixture', [CompletionResultType]::ParameterName, 'A machine topo carries built in (see `topo fixtures`)')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine')
            [CompletionResult]::new('--nvml-fake', '--nvml-fake', [CompletionResultType]::ParameterName, 'With live or --root detection: NVML''s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README''s "The fake-NVML file" describes every key)')
            [CompletionResult]::new('--nodes', '--nodes', [CompletionResultType]::ParameterName, 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0')
            [CompletionResult]::new('--mnnvl-cliques', '--mnnvl-cliques', [CompletionResultType]::ParameterName, 'With --mnnvl: the N nodes fall into K equal cliques of consecutive trays (K NVL racks, say), each fused by NCCL into one node; NCCL then goes through the NICs between cliques. NVML''s clique ids are per GPU, so the layout is stated here')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Root rank of broadcast and reduce (a program file is for the root it was written for; a made one is made for -r; -r only: --root names a machine''s sysfs root)')
            [CompletionResult]::new('--algo', '--algo', [CompletionResultType]::ParameterName, 'Run this program: an MSCCL-IR file (refused with `topo algo check`''s findings unless it passes), or an algorithm `topo algo make` makes for the machine the flags name (ring, mesh, rhd, nhr, nb, hierarchical, nccl, nccl-tree; without a machine, for -g ranks). Runs on host threads or with the CUDA interpreter kernel (one GPU per rank). A name that is an existing file is the file')
            [CompletionResult]::new('--streams', '--streams', [CompletionResultType]::ParameterName, 'Run `topo algo plan`''s streams for the machine (allgather, reducescatter, allreduce; every node of --nodes) on host threads or CUDA streams: "auto" for HCCL''s own choice, or HCCL_ALGO''s syntax, e.g. "mesh" or "level0:ring;level1:NHR"')
            [CompletionResult]::new('--in-place', '--in-place', [CompletionResultType]::ParameterName, 'Only the in-place measurement')
            [CompletionResult]::new('--out-of-place', '--out-of-place', [CompletionResultType]::ParameterName, 'Only the out-of-place measurement')
            [CompletionResult]::new('--compile-only', '--compile-only', [CompletionResultType]::ParameterName, 'Compile every kernel with NVRTC and report registers and spills; no GPU needed')
            [CompletionResult]::new('--no-p2p-support', '--no-p2p-support', [CompletionResultType]::ParameterName, 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)')
            [CompletionResult]::new('--no-nic-fusion', '--no-nic-fusion', [CompletionResultType]::ParameterName, 'The network plugin does not fuse the ports of a NIC into one virtual device')
            [CompletionResult]::new('--collnet', '--collnet', [CompletionResultType]::ParameterName, 'Every NIC is CollNet (SHARP) capable')
            [CompletionResult]::new('--no-nvls', '--no-nvls', [CompletionResultType]::ParameterName, 'NVLink SHARP (NVLS) is not available')
            [CompletionResult]::new('--mnnvl', '--mnnvl', [CompletionResultType]::ParameterName, 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node')
            [CompletionResult]::new('--mnnvl-one-domain', '--mnnvl-one-domain', [CompletionResultType]::ParameterName, 'With --mnnvl-cliques: the cliques are partitions of one NVLink domain (one cluster UUID), where NCCL_MNNVL_CROSS_CLIQUE=1 lets them use P2P over NVLink; without it each clique is its own domain')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'topo;bench;reduce' {
            [CompletionResult]::new('-b', '-b', [CompletionResultType]::ParameterName, 'Smallest message size in bytes (K, M, G suffixes)')
            [CompletionResult]::new('--minbytes', '--minbytes', [CompletionResultType]::ParameterName, 'Smallest message size in bytes (K, M, G suffixes)')
            [CompletionResult]::new('-e', '-e', [CompletionResultType]::ParameterName, 'Largest message size in bytes')
            [CompletionResult]::new('--maxbytes', '--maxbytes', [CompletionResultType]::ParameterName, 'Largest message size in bytes')
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'Size increment between steps, when no step factor is given (a sweep holds at most 4096 sizes)')
            [CompletionResult]::new('--stepbytes', '--stepbytes', [CompletionResultType]::ParameterName, 'Size increment between steps, when no step factor is given (a sweep holds at most 4096 sizes)')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Multiply the size by this factor at each step (over 1 takes precedence over -i)')
            [CompletionResult]::new('--stepfactor', '--stepfactor', [CompletionResultType]::ParameterName, 'Multiply the size by this factor at each step (over 1 takes precedence over -i)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Timed iterations per size (1 to 1000000)')
            [CompletionResult]::new('--iters', '--iters', [CompletionResultType]::ParameterName, 'Timed iterations per size (1 to 1000000)')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Warm-up iterations per size (sizes doubling from min to max), before timing (at most 10000)')
            [CompletionResult]::new('--warmup_iters', '--warmup_iters', [CompletionResultType]::ParameterName, 'Warm-up iterations per size (sizes doubling from min to max), before timing (at most 10000)')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Validation runs per measurement (0: no validation, #wrong is N/A; at most 1000)')
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Validation runs per measurement (0: no validation, #wrong is N/A; at most 1000)')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Element type: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, or all')
            [CompletionResult]::new('--datatype', '--datatype', [CompletionResultType]::ParameterName, 'Element type: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, or all')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Reduction: sum, prod, min, max, avg, or all')
            [CompletionResult]::new('--op', '--op', [CompletionResultType]::ParameterName, 'Reduction: sum, prod, min, max, avg, or all')
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'Number of ranks, 1 to 256 (default: every local GPU; host backend: CPU cores, 2 to 8)')
            [CompletionResult]::new('--ngpus', '--ngpus', [CompletionResultType]::ParameterName, 'Number of ranks, 1 to 256 (default: every local GPU; host backend: CPU cores, 2 to 8)')
            [CompletionResult]::new('-J', '-J ', [CompletionResultType]::ParameterName, 'Also write nccl-tests'' JSON report here (never overwritten: FILE.0, FILE.1... instead, said on stderr)')
            [CompletionResult]::new('--output_file', '--output_file', [CompletionResultType]::ParameterName, 'Also write nccl-tests'' JSON report here (never overwritten: FILE.0, FILE.1... instead, said on stderr)')
            [CompletionResult]::new('--backend', '--backend', [CompletionResultType]::ParameterName, 'Run on the GPUs (cuda) or on CPU threads (host)')
            [CompletionResult]::new('--channels', '--channels', [CompletionResultType]::ParameterName, 'Channels (rings) to run, 1 to 64; repeats or trims the plan''s rings (default: the plan''s; without a search 8 on CUDA and 1 on the host backend)')
            [CompletionResult]::new('--graph-file', '--graph-file', [CompletionResultType]::ParameterName, 'Run the ring channels (graph 0) of this NCCL graph XML file (NCCL_GRAPH_DUMP_FILE format)')
            [CompletionResult]::new('--transport', '--transport', [CompletionResultType]::ParameterName, 'Use this transport on every ring edge instead of the plan''s (P2P when there is no model)')
            [CompletionResult]::new('--slot-bytes', '--slot-bytes', [CompletionResultType]::ParameterName, 'Bytes per FIFO slot (one pipelined chunk); default 512K on the host, 128K on CUDA')
            [CompletionResult]::new('--arch', '--arch', [CompletionResultType]::ParameterName, 'Target architecture for --compile-only (sm_80, sm_90...; default: the local GPUs'', else sm_80 and sm_90)')
            [CompletionResult]::new('--topo', '--topo', [CompletionResultType]::ParameterName, 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)')
            [CompletionResult]::new('--fixture', '--fixture', [CompletionResultType]::ParameterName, 'A machine topo carries built in (see `topo fixtures`)')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine')
            [CompletionResult]::new('--nvml-fake', '--nvml-fake', [CompletionResultType]::ParameterName, 'With live or --root detection: NVML''s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README''s "The fake-NVML file" describes every key)')
            [CompletionResult]::new('--nodes', '--nodes', [CompletionResultType]::ParameterName, 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0')
            [CompletionResult]::new('--mnnvl-cliques', '--mnnvl-cliques', [CompletionResultType]::ParameterName, 'With --mnnvl: the N nodes fall into K equal cliques of consecutive trays (K NVL racks, say), each fused by NCCL into one node; NCCL then goes through the NICs between cliques. NVML''s clique ids are per GPU, so the layout is stated here')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Root rank of broadcast and reduce (a program file is for the root it was written for; a made one is made for -r; -r only: --root names a machine''s sysfs root)')
            [CompletionResult]::new('--algo', '--algo', [CompletionResultType]::ParameterName, 'Run this program: an MSCCL-IR file (refused with `topo algo check`''s findings unless it passes), or an algorithm `topo algo make` makes for the machine the flags name (ring, mesh, rhd, nhr, nb, hierarchical, nccl, nccl-tree; without a machine, for -g ranks). Runs on host threads or with the CUDA interpreter kernel (one GPU per rank). A name that is an existing file is the file')
            [CompletionResult]::new('--streams', '--streams', [CompletionResultType]::ParameterName, 'Run `topo algo plan`''s streams for the machine (allgather, reducescatter, allreduce; every node of --nodes) on host threads or CUDA streams: "auto" for HCCL''s own choice, or HCCL_ALGO''s syntax, e.g. "mesh" or "level0:ring;level1:NHR"')
            [CompletionResult]::new('--in-place', '--in-place', [CompletionResultType]::ParameterName, 'Only the in-place measurement')
            [CompletionResult]::new('--out-of-place', '--out-of-place', [CompletionResultType]::ParameterName, 'Only the out-of-place measurement')
            [CompletionResult]::new('--compile-only', '--compile-only', [CompletionResultType]::ParameterName, 'Compile every kernel with NVRTC and report registers and spills; no GPU needed')
            [CompletionResult]::new('--no-p2p-support', '--no-p2p-support', [CompletionResultType]::ParameterName, 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)')
            [CompletionResult]::new('--no-nic-fusion', '--no-nic-fusion', [CompletionResultType]::ParameterName, 'The network plugin does not fuse the ports of a NIC into one virtual device')
            [CompletionResult]::new('--collnet', '--collnet', [CompletionResultType]::ParameterName, 'Every NIC is CollNet (SHARP) capable')
            [CompletionResult]::new('--no-nvls', '--no-nvls', [CompletionResultType]::ParameterName, 'NVLink SHARP (NVLS) is not available')
            [CompletionResult]::new('--mnnvl', '--mnnvl', [CompletionResultType]::ParameterName, 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node')
            [CompletionResult]::new('--mnnvl-one-domain', '--mnnvl-one-domain', [CompletionResultType]::ParameterName, 'With --mnnvl-cliques: the cliques are partitions of one NVLink domain (one cluster UUID), where NCCL_MNNVL_CROSS_CLIQUE=1 lets them use P2P over NVLink; without it each clique is its own domain')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'topo;bench;help' {
            [CompletionResult]::new('allreduce', 'allreduce', [CompletionResultType]::ParameterValue, 'Allreduce bandwidth probe with nccl-tests'' flags and output, set against the model')
            [CompletionResult]::new('allgather', 'allgather', [CompletionResultType]::ParameterValue, 'Allgather by NCCL''s rings or --algo NAME|PROGRAM.xml, on host threads or a GPU per rank, in all_gather_perf''s columns')
            [CompletionResult]::new('reducescatter', 'reducescatter', [CompletionResultType]::ParameterValue, 'Reduce-scatter by NCCL''s rings or --algo NAME|PROGRAM.xml, on host threads or a GPU per rank, in reduce_scatter_perf''s columns')
            [CompletionResult]::new('alltoall', 'alltoall', [CompletionResultType]::ParameterValue, 'Alltoall by all pairs (mesh) or --algo NAME|PROGRAM.xml, on host threads or a GPU per rank, in alltoall_perf''s columns')
            [CompletionResult]::new('broadcast', 'broadcast', [CompletionResultType]::ParameterValue, 'Broadcast by NCCL''s rings or --algo NAME|PROGRAM.xml, on host threads or a GPU per rank, in broadcast_perf''s columns')
            [CompletionResult]::new('reduce', 'reduce', [CompletionResultType]::ParameterValue, 'Reduce to the root -r by NCCL''s rings or --algo NAME|PROGRAM.xml, on host threads or a GPU per rank, in reduce_perf''s columns')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'topo;bench;help;allreduce' {
            break
        }
        'topo;bench;help;allgather' {
            break
        }
        'topo;bench;help;reducescatter' {
            break
        }
        'topo;bench;help;alltoall' {
            break
        }
        'topo;bench;help;broadcast' {
            break
        }
        'topo;bench;help;reduce' {
            break
        }
        'topo;bench;help;help' {
            break
        }
        'topo;algo' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check MSCCL-IR programs: the runtime''s rules, connection pairing, deadlocks at the real FIFO depth, the result against the collective''s definition, data races (exit 0 ok, 1 findings, 2 unreadable input)')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'A program''s thread blocks, channels, peers and connections, and with a machine the path each connection runs over')
            [CompletionResult]::new('make', 'make', [CompletionResultType]::ParameterValue, 'Make an MSCCL-IR program for a collective by a named algorithm, scheduled as the MSCCLang compiler does, for the machine (or --ngpus) and a runtime')
            [CompletionResult]::new('plan', 'plan', [CompletionResultType]::ParameterValue, 'HCCL''s view of a collective on a machine: algorithm per level, resources per rank (sub-streams, notifies, links, scratch) and each stream''s task list')
            [CompletionResult]::new('cost', 'cost', [CompletionResultType]::ParameterValue, 'A program''s time, algbw and busbw per message size from a timed run over the machine''s links, the bottleneck, and NCCL''s own pick beside it')
            [CompletionResult]::new('compare', 'compare', [CompletionResultType]::ParameterValue, 'Programs of one collective costed side by side per size, with the winner per size range')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'topo;algo;check' {
            [CompletionResult]::new('--runtime', '--runtime', [CompletionResultType]::ParameterName, 'Whose rules: executor (msccl-executor-nccl), rccl or legacy (microsoft/msccl)')
            [CompletionResult]::new('--depth', '--depth', [CompletionResultType]::ParameterName, 'FIFO slots per connection to hold the program to (default 8, the runtimes'' NCCL_STEPS; a Simple call takes 4 slots, an LL or LL128 call 1)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour verdicts and severities (errors red, warnings yellow, what is fine green): auto (on a terminal, unless NO_COLOR is set), always or never. Text fits the terminal''s width (or COLUMNS when set); into a pipe without COLUMNS it is printed unwrapped, the same every time')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Write the report as JSON (schema topo.algo.check/1; several files: topo.algo.check-many/1)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'topo;algo;show' {
            [CompletionResult]::new('--runtime', '--runtime', [CompletionResultType]::ParameterName, 'Whose rules the program is read by')
            [CompletionResult]::new('--topo', '--topo', [CompletionResultType]::ParameterName, 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)')
            [CompletionResult]::new('--fixture', '--fixture', [CompletionResultType]::ParameterName, 'A machine topo carries built in (see `topo fixtures`)')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine')
            [CompletionResult]::new('--nvml-fake', '--nvml-fake', [CompletionResultType]::ParameterName, 'With live or --root detection: NVML''s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README''s "The fake-NVML file" describes every key)')
            [CompletionResult]::new('--nodes', '--nodes', [CompletionResultType]::ParameterName, 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0')
            [CompletionResult]::new('--mnnvl-cliques', '--mnnvl-cliques', [CompletionResultType]::ParameterName, 'With --mnnvl: the N nodes fall into K equal cliques of consecutive trays (K NVL racks, say), each fused by NCCL into one node; NCCL then goes through the NICs between cliques. NVML''s clique ids are per GPU, so the layout is stated here')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour verdicts and severities (errors red, warnings yellow, what is fine green): auto (on a terminal, unless NO_COLOR is set), always or never. Text fits the terminal''s width (or COLUMNS when set); into a pipe without COLUMNS it is printed unwrapped, the same every time')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Write JSON (schema topo.algo.show/1)')
            [CompletionResult]::new('--dot', '--dot', [CompletionResultType]::ParameterName, 'Write a Graphviz drawing of GPUs and connections by channel')
            [CompletionResult]::new('--no-p2p-support', '--no-p2p-support', [CompletionResultType]::ParameterName, 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)')
            [CompletionResult]::new('--no-nic-fusion', '--no-nic-fusion', [CompletionResultType]::ParameterName, 'The network plugin does not fuse the ports of a NIC into one virtual device')
            [CompletionResult]::new('--collnet', '--collnet', [CompletionResultType]::ParameterName, 'Every NIC is CollNet (SHARP) capable')
            [CompletionResult]::new('--no-nvls', '--no-nvls', [CompletionResultType]::ParameterName, 'NVLink SHARP (NVLS) is not available')
            [CompletionResult]::new('--mnnvl', '--mnnvl', [CompletionResultType]::ParameterName, 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node')
            [CompletionResult]::new('--mnnvl-one-domain', '--mnnvl-one-domain', [CompletionResultType]::ParameterName, 'With --mnnvl-cliques: the cliques are partitions of one NVLink domain (one cluster UUID), where NCCL_MNNVL_CROSS_CLIQUE=1 lets them use P2P over NVLink; without it each clique is its own domain')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'topo;algo;make' {
            [CompletionResult]::new('--algo', '--algo', [CompletionResultType]::ParameterName, 'The algorithm: ring, mesh (all pairs), rhd (recursive halving-doubling), nhr, nb (HCCL''s nonuniform ring and Bruck), hierarchical (intra-node ring reduce-scatter, inter-node rings, intra-node all-gather), nccl (the rings NCCL chose on the machine), nccl-tree (allreduce over NCCL''s trees on the machine)')
            [CompletionResult]::new('--ngpus', '--ngpus', [CompletionResultType]::ParameterName, 'Without a machine: GPUs a node (the job is --nodes x N ranks)')
            [CompletionResult]::new('--channels', '--channels', [CompletionResultType]::ParameterName, 'Rings (ring: copies of one ring, nccl: the first C of NCCL''s channels) or trees (nccl-tree: the first C of NCCL''s channels), one channel each')
            [CompletionResult]::new('--instances', '--instances', [CompletionResultType]::ParameterName, 'Copies of the whole program on disjoint channels, each on its share of the chunks')
            [CompletionResult]::new('--proto', '--proto', [CompletionResultType]::ParameterName, 'The protocol the program declares')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'The root rank of broadcast and reduce (nccl-tests'' -r)')
            [CompletionResult]::new('--runtime', '--runtime', [CompletionResultType]::ParameterName, 'The runtime the program is for (rccl: no fused steps; legacy: no outofplace header)')
            [CompletionResult]::new('--min-bytes', '--min-bytes', [CompletionResultType]::ParameterName, 'The smallest call (bytes; K, M, G are powers of 1024) the runtime selects the program for: the header''s minBytes')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'The largest call the runtime selects the program for (inclusive): the header''s maxBytes (default: no bound). Bigger calls go to NCCL''s own algorithms')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the program here (atomically) instead of to standard output')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the program here (atomically) instead of to standard output')
            [CompletionResult]::new('--topo', '--topo', [CompletionResultType]::ParameterName, 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)')
            [CompletionResult]::new('--fixture', '--fixture', [CompletionResultType]::ParameterName, 'A machine topo carries built in (see `topo fixtures`)')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine')
            [CompletionResult]::new('--nvml-fake', '--nvml-fake', [CompletionResultType]::ParameterName, 'With live or --root detection: NVML''s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README''s "The fake-NVML file" describes every key)')
            [CompletionResult]::new('--nodes', '--nodes', [CompletionResultType]::ParameterName, 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0')
            [CompletionResult]::new('--mnnvl-cliques', '--mnnvl-cliques', [CompletionResultType]::ParameterName, 'With --mnnvl: the N nodes fall into K equal cliques of consecutive trays (K NVL racks, say), each fused by NCCL into one node; NCCL then goes through the NICs between cliques. NVML''s clique ids are per GPU, so the layout is stated here')
            [CompletionResult]::new('--no-p2p-support', '--no-p2p-support', [CompletionResultType]::ParameterName, 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)')
            [CompletionResult]::new('--no-nic-fusion', '--no-nic-fusion', [CompletionResultType]::ParameterName, 'The network plugin does not fuse the ports of a NIC into one virtual device')
            [CompletionResult]::new('--collnet', '--collnet', [CompletionResultType]::ParameterName, 'Every NIC is CollNet (SHARP) capable')
            [CompletionResult]::new('--no-nvls', '--no-nvls', [CompletionResultType]::ParameterName, 'NVLink SHARP (NVLS) is not available')
            [CompletionResult]::new('--mnnvl', '--mnnvl', [CompletionResultType]::ParameterName, 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node')
            [CompletionResult]::new('--mnnvl-one-domain', '--mnnvl-one-domain', [CompletionResultType]::ParameterName, 'With --mnnvl-cliques: the cliques are partitions of one NVLink domain (one cluster UUID), where NCCL_MNNVL_CROSS_CLIQUE=1 lets them use P2P over NVLink; without it each clique is its own domain')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'topo;algo;plan' {
            [CompletionResult]::new('--algo', '--algo', [CompletionResultType]::ParameterName, 'Force algorithms with HCCL_ALGO''s syntax, e.g. "level0:mesh;level1:ring" or "allgather=level0:NA;level1:H-D_R/others=level1:NHR" (level0 takes mesh or ring, level1 ring, H-D_R, NHR, NB or pipeline; NA or null: HCCL''s own choice)')
            [CompletionResult]::new('--size', '--size', [CompletionResultType]::ParameterName, 'The call''s size in bytes (all ranks'' for allgather and reducescatter): level 1''s choice depends on it')
            [CompletionResult]::new('--topo', '--topo', [CompletionResultType]::ParameterName, 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)')
            [CompletionResult]::new('--fixture', '--fixture', [CompletionResultType]::ParameterName, 'A machine topo carries built in (see `topo fixtures`)')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine')
            [CompletionResult]::new('--nvml-fake', '--nvml-fake', [CompletionResultType]::ParameterName, 'With live or --root detection: NVML''s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README''s "The fake-NVML file" describes every key)')
            [CompletionResult]::new('--nodes', '--nodes', [CompletionResultType]::ParameterName, 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0')
            [CompletionResult]::new('--mnnvl-cliques', '--mnnvl-cliques', [CompletionResultType]::ParameterName, 'With --mnnvl: the N nodes fall into K equal cliques of consecutive trays (K NVL racks, say), each fused by NCCL into one node; NCCL then goes through the NICs between cliques. NVML''s clique ids are per GPU, so the layout is stated here')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Write JSON (schema topo.algo.plan/1): per rank sub_streams, notifies, links, streams')
            [CompletionResult]::new('--no-p2p-support', '--no-p2p-support', [CompletionResultType]::ParameterName, 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)')
            [CompletionResult]::new('--no-nic-fusion', '--no-nic-fusion', [CompletionResultType]::ParameterName, 'The network plugin does not fuse the ports of a NIC into one virtual device')
            [CompletionResult]::new('--collnet', '--collnet', [CompletionResultType]::ParameterName, 'Every NIC is CollNet (SHARP) capable')
            [CompletionResult]::new('--no-nvls', '--no-nvls', [CompletionResultType]::ParameterName, 'NVLink SHARP (NVLS) is not available')
            [CompletionResult]::new('--mnnvl', '--mnnvl', [CompletionResultType]::ParameterName, 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node')
            [CompletionResult]::new('--mnnvl-one-domain', '--mnnvl-one-domain', [CompletionResultType]::ParameterName, 'With --mnnvl-cliques: the cliques are partitions of one NVLink domain (one cluster UUID), where NCCL_MNNVL_CROSS_CLIQUE=1 lets them use P2P over NVLink; without it each clique is its own domain')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'topo;algo;cost' {
            [CompletionResult]::new('--algo', '--algo', [CompletionResultType]::ParameterName, 'With a collective: the algorithm to make it by (as `topo algo make --algo`)')
            [CompletionResult]::new('--channels', '--channels', [CompletionResultType]::ParameterName, 'Rings (ring: copies of one ring, nccl: the first C of NCCL''s channels) or trees (nccl-tree: the first C of NCCL''s channels), one channel each')
            [CompletionResult]::new('--instances', '--instances', [CompletionResultType]::ParameterName, 'Copies of the whole program on disjoint channels, each on its share of the chunks')
            [CompletionResult]::new('--proto', '--proto', [CompletionResultType]::ParameterName, 'The protocol the program declares')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'The root rank of broadcast and reduce (nccl-tests'' -r)')
            [CompletionResult]::new('--runtime', '--runtime', [CompletionResultType]::ParameterName, 'Whose rules the program is read and run by')
            [CompletionResult]::new('-b', '-b', [CompletionResultType]::ParameterName, 'Smallest size in bytes, as nccl-tests'' -b (K, M, G are powers of 1024)')
            [CompletionResult]::new('--minbytes', '--minbytes', [CompletionResultType]::ParameterName, 'Smallest size in bytes, as nccl-tests'' -b (K, M, G are powers of 1024)')
            [CompletionResult]::new('-e', '-e', [CompletionResultType]::ParameterName, 'Largest size in bytes, as nccl-tests'' -e')
            [CompletionResult]::new('--maxbytes', '--maxbytes', [CompletionResultType]::ParameterName, 'Largest size in bytes, as nccl-tests'' -e')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Multiply the size by this between rows, as nccl-tests'' -f')
            [CompletionResult]::new('--stepfactor', '--stepfactor', [CompletionResultType]::ParameterName, 'Multiply the size by this between rows, as nccl-tests'' -f')
            [CompletionResult]::new('--topo', '--topo', [CompletionResultType]::ParameterName, 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)')
            [CompletionResult]::new('--fixture', '--fixture', [CompletionResultType]::ParameterName, 'A machine topo carries built in (see `topo fixtures`)')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine')
            [CompletionResult]::new('--nvml-fake', '--nvml-fake', [CompletionResultType]::ParameterName, 'With live or --root detection: NVML''s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README''s "The fake-NVML file" describes every key)')
            [CompletionResult]::new('--nodes', '--nodes', [CompletionResultType]::ParameterName, 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0')
            [CompletionResult]::new('--mnnvl-cliques', '--mnnvl-cliques', [CompletionResultType]::ParameterName, 'With --mnnvl: the N nodes fall into K equal cliques of consecutive trays (K NVL racks, say), each fused by NCCL into one node; NCCL then goes through the NICs between cliques. NVML''s clique ids are per GPU, so the layout is stated here')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Write JSON (schema topo.algo.cost/1); rows carry topo tune''s prediction fields')
            [CompletionResult]::new('--no-p2p-support', '--no-p2p-support', [CompletionResultType]::ParameterName, 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)')
            [CompletionResult]::new('--no-nic-fusion', '--no-nic-fusion', [CompletionResultType]::ParameterName, 'The network plugin does not fuse the ports of a NIC into one virtual device')
            [CompletionResult]::new('--collnet', '--collnet', [CompletionResultType]::ParameterName, 'Every NIC is CollNet (SHARP) capable')
            [CompletionResult]::new('--no-nvls', '--no-nvls', [CompletionResultType]::ParameterName, 'NVLink SHARP (NVLS) is not available')
            [CompletionResult]::new('--mnnvl', '--mnnvl', [CompletionResultType]::ParameterName, 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node')
            [CompletionResult]::new('--mnnvl-one-domain', '--mnnvl-one-domain', [CompletionResultType]::ParameterName, 'With --mnnvl-cliques: the cliques are partitions of one NVLink domain (one cluster UUID), where NCCL_MNNVL_CROSS_CLIQUE=1 lets them use P2P over NVLink; without it each clique is its own domain')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'topo;algo;compare' {
            [CompletionResult]::new('--proto', '--proto', [CompletionResultType]::ParameterName, 'The protocol the program declares')
            [CompletionResult]::new('--runtime', '--runtime', [CompletionResultType]::ParameterName, 'runtime')
            [CompletionResult]::new('-b', '-b', [CompletionResultType]::ParameterName, 'Smallest size in bytes, as nccl-tests'' -b (K, M, G are powers of 1024)')
            [CompletionResult]::new('--minbytes', '--minbytes', [CompletionResultType]::ParameterName, 'Smallest size in bytes, as nccl-tests'' -b (K, M, G are powers of 1024)')
            [CompletionResult]::new('-e', '-e', [CompletionResultType]::ParameterName, 'Largest size in bytes, as nccl-tests'' -e')
            [CompletionResult]::new('--maxbytes', '--maxbytes', [CompletionResultType]::ParameterName, 'Largest size in bytes, as nccl-tests'' -e')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Multiply the size by this between rows, as nccl-tests'' -f')
            [CompletionResult]::new('--stepfactor', '--stepfactor', [CompletionResultType]::ParameterName, 'Multiply the size by this between rows, as nccl-tests'' -f')
            [CompletionResult]::new('--topo', '--topo', [CompletionResultType]::ParameterName, 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)')
            [CompletionResult]::new('--fixture', '--fixture', [CompletionResultType]::ParameterName, 'A machine topo carries built in (see `topo fixtures`)')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Detect from DIR/sys and DIR/proc (a fake machine tree) instead of this machine')
            [CompletionResult]::new('--nvml-fake', '--nvml-fake', [CompletionResultType]::ParameterName, 'With live or --root detection: NVML''s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README''s "The fake-NVML file" describes every key)')
            [CompletionResult]::new('--nodes', '--nodes', [CompletionResultType]::ParameterName, 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0')
            [CompletionResult]::new('--mnnvl-cliques', '--mnnvl-cliques', [CompletionResultType]::ParameterName, 'With --mnnvl: the N nodes fall into K equal cliques of consecutive trays (K NVL racks, say), each fused by NCCL into one node; NCCL then goes through the NICs between cliques. NVML''s clique ids are per GPU, so the layout is stated here')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Write JSON (schema topo.algo.compare/1)')
            [CompletionResult]::new('--no-p2p-support', '--no-p2p-support', [CompletionResultType]::ParameterName, 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)')
            [CompletionResult]::new('--no-nic-fusion', '--no-nic-fusion', [CompletionResultType]::ParameterName, 'The network plugin does not fuse the ports of a NIC into one virtual device')
            [CompletionResult]::new('--collnet', '--collnet', [CompletionResultType]::ParameterName, 'Every NIC is CollNet (SHARP) capable')
            [CompletionResult]::new('--no-nvls', '--no-nvls', [CompletionResultType]::ParameterName, 'NVLink SHARP (NVLS) is not available')
            [CompletionResult]::new('--mnnvl', '--mnnvl', [CompletionResultType]::ParameterName, 'The N nodes are the trays of one NVL rack (GB200/GB300): one multi-node NVLink clique, every NVSwitch-attached GPU registered with one fabric. NCCL then fuses the trays into one system and searches them as one node')
            [CompletionResult]::new('--mnnvl-one-domain', '--mnnvl-one-domain', [CompletionResultType]::ParameterName, 'With --mnnvl-cliques: the cliques are partitions of one NVLink domain (one cluster UUID), where NCCL_MNNVL_CROSS_CLIQUE=1 lets them use P2P over NVLink; without it each clique is its own domain')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'topo;algo;help' {
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check MSCCL-IR programs: the runtime''s rules, connection pairing, deadlocks at the real FIFO depth, the result against the collective''s definition, data races (exit 0 ok, 1 findings, 2 unreadable input)')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'A program''s thread blocks, channels, peers and connections, and with a machine the path each connection runs over')
            [CompletionResult]::new('make', 'make', [CompletionResultType]::ParameterValue, 'Make an MSCCL-IR program for a collective by a named algorithm, scheduled as the MSCCLang compiler does, for the machine (or --ngpus) and a runtime')
            [CompletionResult]::new('plan', 'plan', [CompletionResultType]::ParameterValue, 'HCCL''s view of a collective on a machine: algorithm per level, resources per rank (sub-streams, notifies, links, scratch) and each stream''s task list')
            [CompletionResult]::new('cost', 'cost', [CompletionResultType]::ParameterValue, 'A program''s time, algbw and busbw per message size from a timed run over the machine''s links, the bottleneck, and NCCL''s own pick beside it')
            [CompletionResult]::new('compare', 'compare', [CompletionResultType]::ParameterValue, 'Programs of one collective costed side by side per size, with the winner per size range')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'topo;algo;help;check' {
            break
        }
        'topo;algo;help;show' {
            break
        }
        'topo;algo;help;make' {
            break
        }
        'topo;algo;help;plan' {
            break
        }
        'topo;algo;help;cost' {
            break
        }
        'topo;algo;help;compare' {
            break
        }
        'topo;algo;help;help' {
            break
        }
        'topo;detect' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write to FILE instead of standard output (replaced whole, never half-written)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write to FILE instead of standard output (replaced whole, never half-written)')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Read DIR/sys and DIR/proc instead of /sys and /proc (hwloc''s fsroot layout); NVML facts then come from DIR/nvml.json when it exists')
            [CompletionResult]::new('--nvml-fake', '--nvml-fake', [CompletionResultType]::ParameterName, 'Take NVML''s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README''s "The fake-NVML file" describes every key)')
            [CompletionResult]::new('--topo-file', '--topo-file', [CompletionResultType]::ParameterName, 'Seed detection with a topology file, as NCCL_TOPO_FILE does: its attributes win')
            [CompletionResult]::new('--xml', '--xml', [CompletionResultType]::ParameterName, 'Write NCCL topology XML (the default)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Write a JSON report instead: the XML, the detected facts, notices and health findings')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Keep every PCI device and NUMA node, not only GPUs, NICs, NVSwitches and the bridges above them (the file may then exceed NCCL''s 256 elements per rank)')
            [CompletionResult]::new('--no-check', '--no-check', [CompletionResultType]::ParameterName, 'Skip the health checks (`topo check`) that detect prints as warnings')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'topo;check' {
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Read DIR/sys and DIR/proc instead of /sys and /proc (hwloc''s fsroot layout); NVML facts then come from DIR/nvml.json when it exists')
            [CompletionResult]::new('--nvml-fake', '--nvml-fake', [CompletionResultType]::ParameterName, 'Take NVML''s answers from this JSON file instead of libnvidia-ml (a JSON object with the driver version and, per GPU, its index, bus id, compute capability, PCIe link, NVLinks, C2C and GPUDirect attributes; the README''s "The fake-NVML file" describes every key)')
            [CompletionResult]::new('--topo', '--topo', [CompletionResultType]::ParameterName, 'Check this NCCL topology XML file (a dump) instead of this machine: only what a file shows (PCIe links against their siblings, NIC and GPU sockets, GDR, NVLink counts, NIC speeds, C2C)')
            [CompletionResult]::new('--fixture', '--fixture', [CompletionResultType]::ParameterName, 'Check a machine topo carries built in (see `topo fixtures`), as a dump')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour verdicts and severities (errors red, warnings yellow, what is fine green): auto (on a terminal, unless NO_COLOR is set), always or never. Text fits the terminal''s width (or COLUMNS when set); into a pipe without COLUMNS it is printed unwrapped, the same every time')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Write the findings as JSON')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'topo;fixtures' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'topo;help' {
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show the system NCCL builds: CPUs, switches, GPUs, NICs, links and bandwidths')
            [CompletionResult]::new('paths', 'paths', [CompletionResultType]::ParameterValue, 'Path type and bandwidth between every GPU and NIC, then the P2P and GDR verdicts')
            [CompletionResult]::new('analyze', 'analyze', [CompletionResultType]::ParameterValue, 'Everything the model decides: the system, paths and verdicts, graphs, the channels NCCL runs, tuning')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'NCCL''s channel search: ring, tree, NVLS and CollNet graphs, and the channels NCCL runs')
            [CompletionResult]::new('tune', 'tune', [CompletionResultType]::ParameterValue, 'NCCL''s performance model: algorithm, protocol, time and bandwidth per message size')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'What differs between two topology dumps, and what it does to NCCL (exit 0 same, 1 different)')
            [CompletionResult]::new('fleet', 'fleet', [CompletionResultType]::ParameterValue, 'Group many dumps (one per node) and explain every outlier against the largest group')
            [CompletionResult]::new('log', 'log', [CompletionResultType]::ParameterValue, 'Read an NCCL debug log (NCCL_DEBUG=INFO), show what it says, and hold it against the model')
            [CompletionResult]::new('bench', 'bench', [CompletionResultType]::ParameterValue, 'Measure collectives through topo''s own ring kernels along the searched channels')
            [CompletionResult]::new('algo', 'algo', [CompletionResultType]::ParameterValue, 'Collective programs (MSCCL-IR): check and show them, make them for a machine, plan them as HCCL does, cost and compare them')
            [CompletionResult]::new('detect', 'detect', [CompletionResultType]::ParameterValue, 'Detect this machine (or a --root tree) and write it as NCCL topology XML')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Health checks of this machine for NCCL (exit 1 when a finding is an error)')
            [CompletionResult]::new('fixtures', 'fixtures', [CompletionResultType]::ParameterValue, 'List the machines topo carries built in (for --fixture)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'topo;help;show' {
            break
        }
        'topo;help;paths' {
            break
        }
        'topo;help;analyze' {
            break
        }
        'topo;help;search' {
            break
        }
        'topo;help;tune' {
            break
        }
        'topo;help;diff' {
            break
        }
        'topo;help;fleet' {
            break
        }
        'topo;help;log' {
            break
        }
        'topo;help;bench' {
            [CompletionResult]::new('allreduce', 'allreduce', [CompletionResultType]::ParameterValue, 'Allreduce bandwidth probe with nccl-tests'' flags and output, set against the model')
            [CompletionResult]::new('allgather', 'allgather', [CompletionResultType]::ParameterValue, 'Allgather by NCCL''s rings or --algo NAME|PROGRAM.xml, on host threads or a GPU per rank, in all_gather_perf''s columns')
            [CompletionResult]::new('reducescatter', 'reducescatter', [CompletionResultType]::ParameterValue, 'Reduce-scatter by NCCL''s rings or --algo NAME|PROGRAM.xml, on host threads or a GPU per rank, in reduce_scatter_perf''s columns')
            [CompletionResult]::new('alltoall', 'alltoall', [CompletionResultType]::ParameterValue, 'Alltoall by all pairs (mesh) or --algo NAME|PROGRAM.xml, on host threads or a GPU per rank, in alltoall_perf''s columns')
            [CompletionResult]::new('broadcast', 'broadcast', [CompletionResultType]::ParameterValue, 'Broadcast by NCCL''s rings or --algo NAME|PROGRAM.xml, on host threads or a GPU per rank, in broadcast_perf''s columns')
            [CompletionResult]::new('reduce', 'reduce', [CompletionResultType]::ParameterValue, 'Reduce to the root -r by NCCL''s rings or --algo NAME|PROGRAM.xml, on host threads or a GPU per rank, in reduce_perf''s columns')
            break
        }
        'topo;help;bench;allreduce' {
            break
        }
        'topo;help;bench;allgather' {
            break
        }
        'topo;help;bench;reducescatter' {
            break
        }
        'topo;help;bench;alltoall' {
            break
        }
        'topo;help;bench;broadcast' {
            break
        }
        'topo;help;bench;reduce' {
            break
        }
        'topo;help;algo' {
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check MSCCL-IR programs: the runtime''s rules, connection pairing, deadlocks at the real FIFO depth, the result against the collective''s definition, data races (exit 0 ok, 1 findings, 2 unreadable input)')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'A program''s thread blocks, channels, peers and connections, and with a machine the path each connection runs over')
            [CompletionResult]::new('make', 'make', [CompletionResultType]::ParameterValue, 'Make an MSCCL-IR program for a collective by a named algorithm, scheduled as the MSCCLang compiler does, for the machine (or --ngpus) and a runtime')
            [CompletionResult]::new('plan', 'plan', [CompletionResultType]::ParameterValue, 'HCCL''s view of a collective on a machine: algorithm per level, resources per rank (sub-streams, notifies, links, scratch) and each stream''s task list')
            [CompletionResult]::new('cost', 'cost', [CompletionResultType]::ParameterValue, 'A program''s time, algbw and busbw per message size from a timed run over the machine''s links, the bottleneck, and NCCL''s own pick beside it')
            [CompletionResult]::new('compare', 'compare', [CompletionResultType]::ParameterValue, 'Programs of one collective costed side by side per size, with the winner per size range')
            break
        }
        'topo;help;algo;check' {
            break
        }
        'topo;help;algo;show' {
            break
        }
        'topo;help;algo;make' {
            break
        }
        'topo;help;algo;plan' {
            break
        }
        'topo;help;algo;cost' {
            break
        }
        'topo;help;algo;compare' {
            break
        }
        'topo;help;detect' {
            break
        }
        'topo;help;check' {
            break
        }
        'topo;help;fixtures' {
            break
        }
        'topo;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
