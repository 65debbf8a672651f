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
complete -c topo -n "__fish_topo_needs_command" -f -a "analyze" -d 'Everything the model decides, in one document'
complete -c topo -n "__fish_topo_needs_command" -f -a "fixtures" -d 'List the machines topo carries built in (for --fixture)'
complete -c topo -n "__fish_topo_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c topo -n "__fish_topo_using_subcommand show" -l topo -d 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)' -r -F
complete -c topo -n "__fish_topo_using_subcommand show" -l fixture -d 'A machine topo carries built in (see `topo fixtures`)' -r
complete -c topo -n "__fish_topo_using_subcommand show" -l nodes -d 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0' -r
complete -c topo -n "__fish_topo_using_subcommand show" -l no-p2p-support -d 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)'
complete -c topo -n "__fish_topo_using_subcommand show" -l no-nic-fusion -d 'The network plugin does not fuse the ports of a NIC into one virtual device'
complete -c topo -n "__fish_topo_using_subcommand show" -l collnet -d 'Every NIC is CollNet (SHARP) capable'
complete -c topo -n "__fish_topo_using_subcommand show" -l no-nvls -d 'NVLink SHARP (NVLS) is not available'
complete -c topo -n "__fish_topo_using_subcommand show" -l xml -d 'Print the topology as normalised NCCL XML instead'
complete -c topo -n "__fish_topo_using_subcommand show" -l json -d 'Print the system as JSON'
complete -c topo -n "__fish_topo_using_subcommand show" -s h -l help -d 'Print help'
complete -c topo -n "__fish_topo_using_subcommand show" -s V -l version -d 'Print version'
complete -c topo -n "__fish_topo_using_subcommand paths" -l topo -d 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)' -r -F
complete -c topo -n "__fish_topo_using_subcommand paths" -l fixture -d 'A machine topo carries built in (see `topo fixtures`)' -r
complete -c topo -n "__fish_topo_using_subcommand paths" -l nodes -d 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0' -r
complete -c topo -n "__fish_topo_using_subcommand paths" -l no-p2p-support -d 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)'
complete -c topo -n "__fish_topo_using_subcommand paths" -l no-nic-fusion -d 'The network plugin does not fuse the ports of a NIC into one virtual device'
complete -c topo -n "__fish_topo_using_subcommand paths" -l collnet -d 'Every NIC is CollNet (SHARP) capable'
complete -c topo -n "__fish_topo_using_subcommand paths" -l no-nvls -d 'NVLink SHARP (NVLS) is not available'
complete -c topo -n "__fish_topo_using_subcommand paths" -l json -d 'Print JSON (paths, P2P and GDR verdicts with their reasons)'
complete -c topo -n "__fish_topo_using_subcommand paths" -l explain -d 'Give the reason for every P2P, transport and GDR decision, and each path\'s route'
complete -c topo -n "__fish_topo_using_subcommand paths" -l dot -d 'Print Graphviz of the system with the chosen paths (`| dot -Tsvg > topo.svg`)'
complete -c topo -n "__fish_topo_using_subcommand paths" -s h -l help -d 'Print help'
complete -c topo -n "__fish_topo_using_subcommand paths" -s V -l version -d 'Print version'
complete -c topo -n "__fish_topo_using_subcommand analyze" -l topo -d 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)' -r -F
complete -c topo -n "__fish_topo_using_subcommand analyze" -l fixture -d 'A machine topo carries built in (see `topo fixtures`)' -r
complete -c topo -n "__fish_topo_using_subcommand analyze" -l nodes -d 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0' -r
complete -c topo -n "__fish_topo_using_subcommand analyze" -l no-p2p-support -d 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)'
complete -c topo -n "__fish_topo_using_subcommand analyze" -l no-nic-fusion -d 'The network plugin does not fuse the ports of a NIC into one virtual device'
complete -c topo -n "__fish_topo_using_subcommand analyze" -l collnet -d 'Every NIC is CollNet (SHARP) capable'
complete -c topo -n "__fish_topo_using_subcommand analyze" -l no-nvls -d 'NVLink SHARP (NVLS) is not available'
complete -c topo -n "__fish_topo_using_subcommand analyze" -l json -d 'Print the JSON document (schema 1) instead of the human summary'
complete -c topo -n "__fish_topo_using_subcommand analyze" -s h -l help -d 'Print help'
complete -c topo -n "__fish_topo_using_subcommand analyze" -s V -l version -d 'Print version'
complete -c topo -n "__fish_topo_using_subcommand fixtures" -s h -l help -d 'Print help'
complete -c topo -n "__fish_topo_using_subcommand fixtures" -s V -l version -d 'Print version'
complete -c topo -n "__fish_topo_using_subcommand help; and not __fish_seen_subcommand_from show paths analyze fixtures help" -f -a "show" -d 'Show the system NCCL builds: CPUs, switches, GPUs, NICs, links and bandwidths'
complete -c topo -n "__fish_topo_using_subcommand help; and not __fish_seen_subcommand_from show paths analyze fixtures help" -f -a "paths" -d 'Path type and bandwidth between every GPU and NIC, then the P2P and GDR verdicts'
complete -c topo -n "__fish_topo_using_subcommand help; and not __fish_seen_subcommand_from show paths analyze fixtures help" -f -a "analyze" -d 'Everything the model decides, in one document'
complete -c topo -n "__fish_topo_using_subcommand help; and not __fish_seen_subcommand_from show paths analyze fixtures help" -f -a "fixtures" -d 'List the machines topo carries built in (for --fixture)'
complete -c topo -n "__fish_topo_using_subcommand help; and not __fish_seen_subcommand_from show paths analyze fixtures help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
