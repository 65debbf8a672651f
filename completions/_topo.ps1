
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
            [CompletionResult]::new('analyze', 'analyze', [CompletionResultType]::ParameterValue, 'Everything the model decides, in one document')
            [CompletionResult]::new('fixtures', 'fixtures', [CompletionResultType]::ParameterValue, 'List the machines topo carries built in (for --fixture)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'topo;show' {
            [CompletionResult]::new('--topo', '--topo', [CompletionResultType]::ParameterName, 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)')
            [CompletionResult]::new('--fixture', '--fixture', [CompletionResultType]::ParameterName, 'A machine topo carries built in (see `topo fixtures`)')
            [CompletionResult]::new('--nodes', '--nodes', [CompletionResultType]::ParameterName, 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0')
            [CompletionResult]::new('--no-p2p-support', '--no-p2p-support', [CompletionResultType]::ParameterName, 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)')
            [CompletionResult]::new('--no-nic-fusion', '--no-nic-fusion', [CompletionResultType]::ParameterName, 'The network plugin does not fuse the ports of a NIC into one virtual device')
            [CompletionResult]::new('--collnet', '--collnet', [CompletionResultType]::ParameterName, 'Every NIC is CollNet (SHARP) capable')
            [CompletionResult]::new('--no-nvls', '--no-nvls', [CompletionResultType]::ParameterName, 'NVLink SHARP (NVLS) is not available')
            [CompletionResult]::new('--xml', '--xml', [CompletionResultType]::ParameterName, 'Print the topology as normalised NCCL XML instead')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the system as JSON')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'topo;paths' {
            [CompletionResult]::new('--topo', '--topo', [CompletionResultType]::ParameterName, 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)')
            [CompletionResult]::new('--fixture', '--fixture', [CompletionResultType]::ParameterName, 'A machine topo carries built in (see `topo fixtures`)')
            [CompletionResult]::new('--nodes', '--nodes', [CompletionResultType]::ParameterName, 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0')
            [CompletionResult]::new('--no-p2p-support', '--no-p2p-support', [CompletionResultType]::ParameterName, 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)')
            [CompletionResult]::new('--no-nic-fusion', '--no-nic-fusion', [CompletionResultType]::ParameterName, 'The network plugin does not fuse the ports of a NIC into one virtual device')
            [CompletionResult]::new('--collnet', '--collnet', [CompletionResultType]::ParameterName, 'Every NIC is CollNet (SHARP) capable')
            [CompletionResult]::new('--no-nvls', '--no-nvls', [CompletionResultType]::ParameterName, 'NVLink SHARP (NVLS) is not available')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON (paths, P2P and GDR verdicts with their reasons)')
            [CompletionResult]::new('--explain', '--explain', [CompletionResultType]::ParameterName, 'Give the reason for every P2P, transport and GDR decision, and each path''s route')
            [CompletionResult]::new('--dot', '--dot', [CompletionResultType]::ParameterName, 'Print Graphviz of the system with the chosen paths (`| dot -Tsvg > topo.svg`)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'topo;analyze' {
            [CompletionResult]::new('--topo', '--topo', [CompletionResultType]::ParameterName, 'An NCCL topology XML file (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format)')
            [CompletionResult]::new('--fixture', '--fixture', [CompletionResultType]::ParameterName, 'A machine topo carries built in (see `topo fixtures`)')
            [CompletionResult]::new('--nodes', '--nodes', [CompletionResultType]::ParameterName, 'Model N identical nodes (NCCL then routes rings through the NICs); shows node 0')
            [CompletionResult]::new('--no-p2p-support', '--no-p2p-support', [CompletionResultType]::ParameterName, 'The driver reports no peer-to-peer support between GPUs (as on GeForce cards)')
            [CompletionResult]::new('--no-nic-fusion', '--no-nic-fusion', [CompletionResultType]::ParameterName, 'The network plugin does not fuse the ports of a NIC into one virtual device')
            [CompletionResult]::new('--collnet', '--collnet', [CompletionResultType]::ParameterName, 'Every NIC is CollNet (SHARP) capable')
            [CompletionResult]::new('--no-nvls', '--no-nvls', [CompletionResultType]::ParameterName, 'NVLink SHARP (NVLS) is not available')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the JSON document (schema 1) instead of the human summary')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
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
            [CompletionResult]::new('analyze', 'analyze', [CompletionResultType]::ParameterValue, 'Everything the model decides, in one document')
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
