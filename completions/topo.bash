_topo() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="topo"
                ;;
            topo,algo)
                cmd="topo__subcmd__algo"
                ;;
            topo,analyze)
                cmd="topo__subcmd__analyze"
                ;;
            topo,bench)
                cmd="topo__subcmd__bench"
                ;;
            topo,check)
                cmd="topo__subcmd__check"
                ;;
            topo,detect)
                cmd="topo__subcmd__detect"
                ;;
            topo,diff)
                cmd="topo__subcmd__diff"
                ;;
            topo,fixtures)
                cmd="topo__subcmd__fixtures"
                ;;
            topo,fleet)
                cmd="topo__subcmd__fleet"
                ;;
            topo,help)
                cmd="topo__subcmd__help"
                ;;
            topo,log)
                cmd="topo__subcmd__log"
                ;;
            topo,paths)
                cmd="topo__subcmd__paths"
                ;;
            topo,search)
                cmd="topo__subcmd__search"
                ;;
            topo,show)
                cmd="topo__subcmd__show"
                ;;
            topo,tune)
                cmd="topo__subcmd__tune"
                ;;
            topo__subcmd__algo,check)
                cmd="topo__subcmd__algo__subcmd__check"
                ;;
            topo__subcmd__algo,compare)
                cmd="topo__subcmd__algo__subcmd__compare"
                ;;
            topo__subcmd__algo,cost)
                cmd="topo__subcmd__algo__subcmd__cost"
                ;;
            topo__subcmd__algo,help)
                cmd="topo__subcmd__algo__subcmd__help"
                ;;
            topo__subcmd__algo,make)
                cmd="topo__subcmd__algo__subcmd__make"
                ;;
            topo__subcmd__algo,plan)
                cmd="topo__subcmd__algo__subcmd__plan"
                ;;
            topo__subcmd__algo,show)
                cmd="topo__subcmd__algo__subcmd__show"
                ;;
            topo__subcmd__algo__subcmd__help,check)
                cmd="topo__subcmd__algo__subcmd__help__subcmd__check"
                ;;
            topo__subcmd__algo__subcmd__help,compare)
                cmd="topo__subcmd__algo__subcmd__help__subcmd__compare"
                ;;
            topo__subcmd__algo__subcmd__help,cost)
                cmd="topo__subcmd__algo__subcmd__help__subcmd__cost"
                ;;
            topo__subcmd__algo__subcmd__help,help)
                cmd="topo__subcmd__algo__subcmd__help__subcmd__help"
                ;;
            topo__subcmd__algo__subcmd__help,make)
                cmd="topo__subcmd__algo__subcmd__help__subcmd__make"
                ;;
            topo__subcmd__algo__subcmd__help,plan)
                cmd="topo__subcmd__algo__subcmd__help__subcmd__plan"
                ;;
            topo__subcmd__algo__subcmd__help,show)
                cmd="topo__subcmd__algo__subcmd__help__subcmd__show"
                ;;
            topo__subcmd__bench,allgather)
                cmd="topo__subcmd__bench__subcmd__allgather"
                ;;
            topo__subcmd__bench,allreduce)
                cmd="topo__subcmd__bench__subcmd__allreduce"
                ;;
            topo__subcmd__bench,alltoall)
                cmd="topo__subcmd__bench__subcmd__alltoall"
                ;;
            topo__subcmd__bench,broadcast)
                cmd="topo__subcmd__bench__subcmd__broadcast"
                ;;
            topo__subcmd__bench,help)
                cmd="topo__subcmd__bench__subcmd__help"
                ;;
            topo__subcmd__bench,reduce)
                cmd="topo__subcmd__bench__subcmd__reduce"
                ;;
            topo__subcmd__bench,reducescatter)
                cmd="topo__subcmd__bench__subcmd__reducescatter"
                ;;
            topo__subcmd__bench__subcmd__help,allgather)
                cmd="topo__subcmd__bench__subcmd__help__subcmd__allgather"
                ;;
            topo__subcmd__bench__subcmd__help,allreduce)
                cmd="topo__subcmd__bench__subcmd__help__subcmd__allreduce"
                ;;
            topo__subcmd__bench__subcmd__help,alltoall)
                cmd="topo__subcmd__bench__subcmd__help__subcmd__alltoall"
                ;;
            topo__subcmd__bench__subcmd__help,broadcast)
                cmd="topo__subcmd__bench__subcmd__help__subcmd__broadcast"
                ;;
            topo__subcmd__bench__subcmd__help,help)
                cmd="topo__subcmd__bench__subcmd__help__subcmd__help"
                ;;
            topo__subcmd__bench__subcmd__help,reduce)
                cmd="topo__subcmd__bench__subcmd__help__subcmd__reduce"
                ;;
            topo__subcmd__bench__subcmd__help,reducescatter)
                cmd="topo__subcmd__bench__subcmd__help__subcmd__reducescatter"
                ;;
            topo__subcmd__help,algo)
                cmd="topo__subcmd__help__subcmd__algo"
                ;;
            topo__subcmd__help,analyze)
                cmd="topo__subcmd__help__subcmd__analyze"
                ;;
            topo__subcmd__help,bench)
                cmd="topo__subcmd__help__subcmd__bench"
                ;;
            topo__subcmd__help,check)
                cmd="topo__subcmd__help__subcmd__check"
                ;;
            topo__subcmd__help,detect)
                cmd="topo__subcmd__help__subcmd__detect"
                ;;
            topo__subcmd__help,diff)
                cmd="topo__subcmd__help__subcmd__diff"
                ;;
            topo__subcmd__help,fixtures)
                cmd="topo__subcmd__help__subcmd__fixtures"
                ;;
            topo__subcmd__help,fleet)
                cmd="topo__subcmd__help__subcmd__fleet"
                ;;
            topo__subcmd__help,help)
                cmd="topo__subcmd__help__subcmd__help"
                ;;
            topo__subcmd__help,log)
                cmd="topo__subcmd__help__subcmd__log"
                ;;
            topo__subcmd__help,paths)
                cmd="topo__subcmd__help__subcmd__paths"
                ;;
            topo__subcmd__help,search)
                cmd="topo__subcmd__help__subcmd__search"
                ;;
            topo__subcmd__help,show)
                cmd="topo__subcmd__help__subcmd__show"
                ;;
            topo__subcmd__help,tune)
                cmd="topo__subcmd__help__subcmd__tune"
                ;;
            topo__subcmd__help__subcmd__algo,check)
                cmd="topo__subcmd__help__subcmd__algo__subcmd__check"
                ;;
            topo__subcmd__help__subcmd__algo,compare)
                cmd="topo__subcmd__help__subcmd__algo__subcmd__compare"
                ;;
            topo__subcmd__help__subcmd__algo,cost)
                cmd="topo__subcmd__help__subcmd__algo__subcmd__cost"
                ;;
            topo__subcmd__help__subcmd__algo,make)
                cmd="topo__subcmd__help__subcmd__algo__subcmd__make"
                ;;
            topo__subcmd__help__subcmd__algo,plan)
                cmd="topo__subcmd__help__subcmd__algo__subcmd__plan"
                ;;
            topo__subcmd__help__subcmd__algo,show)
                cmd="topo__subcmd__help__subcmd__algo__subcmd__show"
                ;;
            topo__subcmd__help__subcmd__bench,allgather)
                cmd="topo__subcmd__help__subcmd__bench__subcmd__allgather"
                ;;
            topo__subcmd__help__subcmd__bench,allreduce)
                cmd="topo__subcmd__help__subcmd__bench__subcmd__allreduce"
                ;;
            topo__subcmd__help__subcmd__bench,alltoall)
                cmd="topo__subcmd__help__subcmd__bench__subcmd__alltoall"
                ;;
            topo__subcmd__help__subcmd__bench,broadcast)
                cmd="topo__subcmd__help__subcmd__bench__subcmd__broadcast"
                ;;
            topo__subcmd__help__subcmd__bench,reduce)
                cmd="topo__subcmd__help__subcmd__bench__subcmd__reduce"
                ;;
            topo__subcmd__help__subcmd__bench,reducescatter)
                cmd="topo__subcmd__help__subcmd__bench__subcmd__reducescatter"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        topo)
            opts="-h -V --help --version show paths analyze search tune diff fleet log bench algo detect check fixtures help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__algo)
            opts="-h -V --help --version check show make plan cost compare help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__algo__subcmd__check)
            opts="-h -V --runtime --depth --json --color --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime)
                    COMPREPLY=($(compgen -W "executor rccl legacy" -- "${cur}"))
                    return 0
                    ;;
                --depth)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__algo__subcmd__compare)
            opts="-b -e -f -h -V --proto --runtime --minbytes --maxbytes --stepfactor --json --topo --fixture --root --nvml-fake --nodes --no-p2p-support --no-nic-fusion --collnet --no-nvls --mnnvl --mnnvl-cliques --mnnvl-one-domain --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --proto)
                    COMPREPLY=($(compgen -W "Simple LL LL128" -- "${cur}"))
                    return 0
                    ;;
                --runtime)
                    COMPREPLY=($(compgen -W "executor rccl legacy" -- "${cur}"))
                    return 0
                    ;;
                --minbytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -b)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --maxbytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -e)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --stepfactor)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --topo)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --fixture)
                    COMPREPLY=($(compgen -W "dgx-h100 dgx1-v100 gb200-nvl72-tray gh200 workstation-4gpu" -- "${cur}"))
                    return 0
                    ;;
                --root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nvml-fake)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nodes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mnnvl-cliques)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__algo__subcmd__cost)
            opts="-r -b -e -f -h -V --algo --channels --instances --proto --runtime --minbytes --maxbytes --stepfactor --json --topo --fixture --root --nvml-fake --nodes --no-p2p-support --no-nic-fusion --collnet --no-nvls --mnnvl --mnnvl-cliques --mnnvl-one-domain --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --algo)
                    COMPREPLY=($(compgen -W "ring mesh rhd nhr nb hierarchical nccl nccl-tree" -- "${cur}"))
                    return 0
                    ;;
                --channels)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --instances)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --proto)
                    COMPREPLY=($(compgen -W "Simple LL LL128" -- "${cur}"))
                    return 0
                    ;;
                -r)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --runtime)
                    COMPREPLY=($(compgen -W "executor rccl legacy" -- "${cur}"))
                    return 0
                    ;;
                --minbytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -b)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --maxbytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -e)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --stepfactor)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --topo)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --fixture)
                    COMPREPLY=($(compgen -W "dgx-h100 dgx1-v100 gb200-nvl72-tray gh200 workstation-4gpu" -- "${cur}"))
                    return 0
                    ;;
                --root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nvml-fake)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nodes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mnnvl-cliques)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__algo__subcmd__help)
            opts="check show make plan cost compare help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__algo__subcmd__help__subcmd__check)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__algo__subcmd__help__subcmd__compare)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__algo__subcmd__help__subcmd__cost)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__algo__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__algo__subcmd__help__subcmd__make)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__algo__subcmd__help__subcmd__plan)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__algo__subcmd__help__subcmd__show)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__algo__subcmd__make)
            opts="-r -o -h -V --algo --ngpus --channels --instances --proto --runtime --min-bytes --max-bytes --output --topo --fixture --root --nvml-fake --nodes --no-p2p-support --no-nic-fusion --collnet --no-nvls --mnnvl --mnnvl-cliques --mnnvl-one-domain --help --version allreduce allgather reducescatter alltoall broadcast reduce"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --algo)
                    COMPREPLY=($(compgen -W "ring mesh rhd nhr nb hierarchical nccl nccl-tree" -- "${cur}"))
                    return 0
                    ;;
                --ngpus)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --channels)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --instances)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --proto)
                    COMPREPLY=($(compgen -W "Simple LL LL128" -- "${cur}"))
                    return 0
                    ;;
                -r)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --runtime)
                    COMPREPLY=($(compgen -W "executor rccl legacy" -- "${cur}"))
                    return 0
                    ;;
                --min-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --topo)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --fixture)
                    COMPREPLY=($(compgen -W "dgx-h100 dgx1-v100 gb200-nvl72-tray gh200 workstation-4gpu" -- "${cur}"))
                    return 0
                    ;;
                --root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nvml-fake)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nodes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mnnvl-cliques)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__algo__subcmd__plan)
            opts="-h -V --algo --size --json --topo --fixture --root --nvml-fake --nodes --no-p2p-support --no-nic-fusion --collnet --no-nvls --mnnvl --mnnvl-cliques --mnnvl-one-domain --help --version allgather reducescatter allreduce"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --algo)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --topo)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --fixture)
                    COMPREPLY=($(compgen -W "dgx-h100 dgx1-v100 gb200-nvl72-tray gh200 workstation-4gpu" -- "${cur}"))
                    return 0
                    ;;
                --root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nvml-fake)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nodes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mnnvl-cliques)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__algo__subcmd__show)
            opts="-h -V --runtime --json --dot --topo --fixture --root --nvml-fake --nodes --no-p2p-support --no-nic-fusion --collnet --no-nvls --mnnvl --mnnvl-cliques --mnnvl-one-domain --color --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --runtime)
                    COMPREPLY=($(compgen -W "executor rccl legacy" -- "${cur}"))
                    return 0
                    ;;
                --topo)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --fixture)
                    COMPREPLY=($(compgen -W "dgx-h100 dgx1-v100 gb200-nvl72-tray gh200 workstation-4gpu" -- "${cur}"))
                    return 0
                    ;;
                --root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nvml-fake)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nodes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mnnvl-cliques)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__analyze)
            opts="-h -V --topo --fixture --root --nvml-fake --nodes --no-p2p-support --no-nic-fusion --collnet --no-nvls --mnnvl --mnnvl-cliques --mnnvl-one-domain --json --color --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --topo)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --fixture)
                    COMPREPLY=($(compgen -W "dgx-h100 dgx1-v100 gb200-nvl72-tray gh200 workstation-4gpu" -- "${cur}"))
                    return 0
                    ;;
                --root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nvml-fake)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nodes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mnnvl-cliques)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__bench)
            opts="-h -V --help --version allreduce allgather reducescatter alltoall broadcast reduce help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__bench__subcmd__allgather)
            opts="-b -e -i -f -n -w -c -d -o -g -J -r -h -V --minbytes --maxbytes --stepbytes --stepfactor --iters --warmup_iters --check --datatype --op --ngpus --output_file --backend --channels --graph-file --transport --slot-bytes --in-place --out-of-place --compile-only --arch --topo --fixture --root --nvml-fake --nodes --no-p2p-support --no-nic-fusion --collnet --no-nvls --mnnvl --mnnvl-cliques --mnnvl-one-domain --algo --streams --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --minbytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -b)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --maxbytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -e)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --stepbytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -i)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --stepfactor)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --iters)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --warmup_iters)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --check)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -c)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --datatype)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -d)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --op)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ngpus)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -g)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output_file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -J)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --backend)
                    COMPREPLY=($(compgen -W "cuda host" -- "${cur}"))
                    return 0
                    ;;
                --channels)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --graph-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --transport)
                    COMPREPLY=($(compgen -W "p2p host-staged" -- "${cur}"))
                    return 0
                    ;;
                --slot-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --arch)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --topo)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --fixture)
                    COMPREPLY=($(compgen -W "dgx-h100 dgx1-v100 gb200-nvl72-tray gh200 workstation-4gpu" -- "${cur}"))
                    return 0
                    ;;
                --root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nvml-fake)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nodes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mnnvl-cliques)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -r)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --algo)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --streams)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__bench__subcmd__allreduce)
            opts="-b -e -i -f -n -w -c -d -o -g -J -h -V --minbytes --maxbytes --stepbytes --stepfactor --iters --warmup_iters --check --datatype --op --ngpus --output_file --backend --channels --graph-file --transport --slot-bytes --in-place --out-of-place --compile-only --arch --topo --fixture --root --nvml-fake --nodes --no-p2p-support --no-nic-fusion --collnet --no-nvls --mnnvl --mnnvl-cliques --mnnvl-one-domain --algo --streams --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --minbytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -b)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --maxbytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -e)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --stepbytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -i)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --stepfactor)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --iters)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --warmup_iters)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --check)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -c)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --datatype)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -d)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --op)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ngpus)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -g)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output_file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -J)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --backend)
                    COMPREPLY=($(compgen -W "cuda host" -- "${cur}"))
                    return 0
                    ;;
                --channels)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --graph-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --transport)
                    COMPREPLY=($(compgen -W "p2p host-staged" -- "${cur}"))
                    return 0
                    ;;
                --slot-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --arch)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --topo)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --fixture)
                    COMPREPLY=($(compgen -W "dgx-h100 dgx1-v100 gb200-nvl72-tray gh200 workstation-4gpu" -- "${cur}"))
                    return 0
                    ;;
                --root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nvml-fake)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nodes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mnnvl-cliques)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --algo)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --streams)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__bench__subcmd__alltoall)
            opts="-b -e -i -f -n -w -c -d -o -g -J -r -h -V --minbytes --maxbytes --stepbytes --stepfactor --iters --warmup_iters --check --datatype --op --ngpus --output_file --backend --channels --graph-file --transport --slot-bytes --in-place --out-of-place --compile-only --arch --topo --fixture --root --nvml-fake --nodes --no-p2p-support --no-nic-fusion --collnet --no-nvls --mnnvl --mnnvl-cliques --mnnvl-one-domain --algo --streams --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --minbytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -b)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --maxbytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -e)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --stepbytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -i)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --stepfactor)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --iters)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --warmup_iters)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --check)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -c)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --datatype)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -d)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --op)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ngpus)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -g)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output_file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -J)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --backend)
                    COMPREPLY=($(compgen -W "cuda host" -- "${cur}"))
                    return 0
                    ;;
                --channels)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --graph-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --transport)
                    COMPREPLY=($(compgen -W "p2p host-staged" -- "${cur}"))
                    return 0
                    ;;
                --slot-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --arch)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --topo)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --fixture)
                    COMPREPLY=($(compgen -W "dgx-h100 dgx1-v100 gb200-nvl72-tray gh200 workstation-4gpu" -- "${cur}"))
                    return 0
                    ;;
                --root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nvml-fake)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nodes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mnnvl-cliques)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -r)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --algo)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --streams)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__bench__subcmd__broadcast)
            opts="-b -e -i -f -n -w -c -d -o -g -J -r -h -V --minbytes --maxbytes --stepbytes --stepfactor --iters --warmup_iters --check --datatype --op --ngpus --output_file --backend --channels --graph-file --transport --slot-bytes --in-place --out-of-place --compile-only --arch --topo --fixture --root --nvml-fake --nodes --no-p2p-support --no-nic-fusion --collnet --no-nvls --mnnvl --mnnvl-cliques --mnnvl-one-domain --algo --streams --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --minbytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -b)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --maxbytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -e)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --stepbytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -i)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --stepfactor)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --iters)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --warmup_iters)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --check)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -c)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --datatype)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -d)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --op)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ngpus)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -g)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output_file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -J)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --backend)
                    COMPREPLY=($(compgen -W "cuda host" -- "${cur}"))
                    return 0
                    ;;
                --channels)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --graph-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --transport)
                    COMPREPLY=($(compgen -W "p2p host-staged" -- "${cur}"))
                    return 0
                    ;;
                --slot-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --arch)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --topo)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --fixture)
                    COMPREPLY=($(compgen -W "dgx-h100 dgx1-v100 gb200-nvl72-tray gh200 workstation-4gpu" -- "${cur}"))
                    return 0
                    ;;
                --root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nvml-fake)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nodes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mnnvl-cliques)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -r)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --algo)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --streams)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__bench__subcmd__help)
            opts="allreduce allgather reducescatter alltoall broadcast reduce help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__bench__subcmd__help__subcmd__allgather)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__bench__subcmd__help__subcmd__allreduce)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__bench__subcmd__help__subcmd__alltoall)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__bench__subcmd__help__subcmd__broadcast)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__bench__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__bench__subcmd__help__subcmd__reduce)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__bench__subcmd__help__subcmd__reducescatter)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__bench__subcmd__reduce)
            opts="-b -e -i -f -n -w -c -d -o -g -J -r -h -V --minbytes --maxbytes --stepbytes --stepfactor --iters --warmup_iters --check --datatype --op --ngpus --output_file --backend --channels --graph-file --transport --slot-bytes --in-place --out-of-place --compile-only --arch --topo --fixture --root --nvml-fake --nodes --no-p2p-support --no-nic-fusion --collnet --no-nvls --mnnvl --mnnvl-cliques --mnnvl-one-domain --algo --streams --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --minbytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -b)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --maxbytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -e)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --stepbytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -i)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --stepfactor)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --iters)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --warmup_iters)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --check)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -c)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --datatype)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -d)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --op)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ngpus)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -g)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output_file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -J)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --backend)
                    COMPREPLY=($(compgen -W "cuda host" -- "${cur}"))
                    return 0
                    ;;
                --channels)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --graph-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --transport)
                    COMPREPLY=($(compgen -W "p2p host-staged" -- "${cur}"))
                    return 0
                    ;;
                --slot-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --arch)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --topo)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --fixture)
                    COMPREPLY=($(compgen -W "dgx-h100 dgx1-v100 gb200-nvl72-tray gh200 workstation-4gpu" -- "${cur}"))
                    return 0
                    ;;
                --root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nvml-fake)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nodes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mnnvl-cliques)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -r)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --algo)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --streams)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__bench__subcmd__reducescatter)
            opts="-b -e -i -f -n -w -c -d -o -g -J -r -h -V --minbytes --maxbytes --stepbytes --stepfactor --iters --warmup_iters --check --datatype --op --ngpus --output_file --backend --channels --graph-file --transport --slot-bytes --in-place --out-of-place --compile-only --arch --topo --fixture --root --nvml-fake --nodes --no-p2p-support --no-nic-fusion --collnet --no-nvls --mnnvl --mnnvl-cliques --mnnvl-one-domain --algo --streams --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --minbytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -b)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --maxbytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -e)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --stepbytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -i)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --stepfactor)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --iters)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --warmup_iters)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --check)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -c)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --datatype)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -d)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --op)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ngpus)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -g)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output_file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -J)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --backend)
                    COMPREPLY=($(compgen -W "cuda host" -- "${cur}"))
                    return 0
                    ;;
                --channels)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --graph-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --transport)
                    COMPREPLY=($(compgen -W "p2p host-staged" -- "${cur}"))
                    return 0
                    ;;
                --slot-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --arch)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --topo)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --fixture)
                    COMPREPLY=($(compgen -W "dgx-h100 dgx1-v100 gb200-nvl72-tray gh200 workstation-4gpu" -- "${cur}"))
                    return 0
                    ;;
                --root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nvml-fake)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nodes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mnnvl-cliques)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -r)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --algo)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --streams)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__check)
            opts="-h -V --root --nvml-fake --topo --fixture --json --color --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nvml-fake)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --topo)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --fixture)
                    COMPREPLY=($(compgen -W "dgx-h100 dgx1-v100 gb200-nvl72-tray gh200 workstation-4gpu" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__detect)
            opts="-o -h -V --xml --json --output --root --nvml-fake --topo-file --all --no-check --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --output)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nvml-fake)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --topo-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__diff)
            opts="-h -V --against-version --json --ignore --nodes --no-nic-fusion --color --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --against-version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ignore)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nodes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__fixtures)
            opts="-h -V --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__fleet)
            opts="-h -V --json --ignore --reference --skip-bad --nodes --no-nic-fusion --color --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --ignore)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --reference)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nodes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__help)
            opts="show paths analyze search tune diff fleet log bench algo detect check fixtures help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__help__subcmd__algo)
            opts="check show make plan cost compare"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__help__subcmd__algo__subcmd__check)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__help__subcmd__algo__subcmd__compare)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__help__subcmd__algo__subcmd__cost)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__help__subcmd__algo__subcmd__make)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__help__subcmd__algo__subcmd__plan)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__help__subcmd__algo__subcmd__show)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__help__subcmd__analyze)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__help__subcmd__bench)
            opts="allreduce allgather reducescatter alltoall broadcast reduce"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__help__subcmd__bench__subcmd__allgather)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__help__subcmd__bench__subcmd__allreduce)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__help__subcmd__bench__subcmd__alltoall)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__help__subcmd__bench__subcmd__broadcast)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__help__subcmd__bench__subcmd__reduce)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__help__subcmd__bench__subcmd__reducescatter)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__help__subcmd__check)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__help__subcmd__detect)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__help__subcmd__diff)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__help__subcmd__fixtures)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__help__subcmd__fleet)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__help__subcmd__log)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__help__subcmd__paths)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__help__subcmd__search)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__help__subcmd__show)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__help__subcmd__tune)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__log)
            opts="-v -o -h -V --json --xml --dot --rank --no-model --topo --verbose --output --color --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --rank)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --topo)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__paths)
            opts="-h -V --topo --fixture --root --nvml-fake --nodes --no-p2p-support --no-nic-fusion --collnet --no-nvls --mnnvl --mnnvl-cliques --mnnvl-one-domain --json --explain --color --dot --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --topo)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --fixture)
                    COMPREPLY=($(compgen -W "dgx-h100 dgx1-v100 gb200-nvl72-tray gh200 workstation-4gpu" -- "${cur}"))
                    return 0
                    ;;
                --root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nvml-fake)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nodes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mnnvl-cliques)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__search)
            opts="-h -V --topo --fixture --root --nvml-fake --nodes --no-p2p-support --no-nic-fusion --collnet --no-nvls --mnnvl --mnnvl-cliques --mnnvl-one-domain --xml --json --dot --channel --graph --rank --graph-file --color --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --topo)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --fixture)
                    COMPREPLY=($(compgen -W "dgx-h100 dgx1-v100 gb200-nvl72-tray gh200 workstation-4gpu" -- "${cur}"))
                    return 0
                    ;;
                --root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nvml-fake)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nodes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mnnvl-cliques)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --channel)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --graph)
                    COMPREPLY=($(compgen -W "ring tree nvls collnet-chain collnet-direct all" -- "${cur}"))
                    return 0
                    ;;
                --rank)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --graph-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__show)
            opts="-h -V --topo --fixture --root --nvml-fake --nodes --no-p2p-support --no-nic-fusion --collnet --no-nvls --mnnvl --mnnvl-cliques --mnnvl-one-domain --xml --json --color --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --topo)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --fixture)
                    COMPREPLY=($(compgen -W "dgx-h100 dgx1-v100 gb200-nvl72-tray gh200 workstation-4gpu" -- "${cur}"))
                    return 0
                    ;;
                --root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nvml-fake)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nodes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mnnvl-cliques)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        topo__subcmd__tune)
            opts="-d -o -b -e -f -i -h -V --datatype --op --topo --fixture --root --nvml-fake --nodes --no-p2p-support --no-nic-fusion --collnet --no-nvls --mnnvl --mnnvl-cliques --mnnvl-one-domain --minbytes --maxbytes --stepfactor --stepbytes --table --json --color --help --version broadcast reduce allgather reducescatter allreduce alltoall sendrecv"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --datatype)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -d)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --op)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --topo)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --fixture)
                    COMPREPLY=($(compgen -W "dgx-h100 dgx1-v100 gb200-nvl72-tray gh200 workstation-4gpu" -- "${cur}"))
                    return 0
                    ;;
                --root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nvml-fake)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nodes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mnnvl-cliques)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --minbytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -b)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --maxbytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -e)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --stepfactor)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --stepbytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -i)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _topo -o nosort -o bashdefault -o default topo
else
    complete -F _topo -o bashdefault -o default topo
fi
