
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
            cand analyze 'Everything the model decides, in one document'
            cand fixtures 'List the machines topo carries built in (for --fixture)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'topo;show'= {
            cand --topo 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)'
            cand --fixture 'A machine topo carries built in (see `topo fixtures`)'
            cand --nodes 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0'
            cand --no-p2p-support 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)'
            cand --no-nic-fusion 'The network plugin does not fuse the ports of a NIC into one virtual device'
            cand --collnet 'Every NIC is CollNet (SHARP) capable'
            cand --no-nvls 'NVLink SHARP (NVLS) is not available'
            cand --xml 'Print the topology as normalised NCCL XML instead'
            cand --json 'Print the system as JSON'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'topo;paths'= {
            cand --topo 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)'
            cand --fixture 'A machine topo carries built in (see `topo fixtures`)'
            cand --nodes 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0'
            cand --no-p2p-support 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)'
            cand --no-nic-fusion 'The network plugin does not fuse the ports of a NIC into one virtual device'
            cand --collnet 'Every NIC is CollNet (SHARP) capable'
            cand --no-nvls 'NVLink SHARP (NVLS) is not available'
            cand --json 'Print JSON (paths, P2P and GDR verdicts with their reasons)'
            cand --explain 'Give the reason for every P2P, transport and GDR decision, and each path''s route'
            cand --dot 'Print Graphviz of the system with the chosen paths (`| dot -Tsvg > topo.svg`)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'topo;analyze'= {
            cand --topo 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)'
            cand --fixture 'A machine topo carries built in (see `topo fixtures`)'
            cand --nodes 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0'
            cand --no-p2p-support 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)'
            cand --no-nic-fusion 'The network plugin does not fuse the ports of a NIC into one virtual device'
            cand --collnet 'Every NIC is CollNet (SHARP) capable'
            cand --no-nvls 'NVLink SHARP (NVLS) is not available'
            cand --json 'Print the JSON document (schema 1) instead of the human summary'
            cand -h 'Print help'
            cand --help 'Print help'
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
            cand analyze 'Everything the model decides, in one document'
            cand fixtures 'List the machines topo carries built in (for --fixture)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'topo;help;show'= {
        }
        &'topo;help;paths'= {
        }
        &'topo;help;analyze'= {
        }
        &'topo;help;fixtures'= {
        }
        &'topo;help;help'= {
        }
    ]
    $completions[$command]
}
