//! NCCL messages topo recognises and does not need (allocation traces, plugin loading,
//! proxy and RAS chatter, hints...): they count as `skipped_known`, not `unknown`.
//! The openings come from the `INFO(...)` formats of NCCL 2.5 to 2.30, cut before their
//! first conversion and grouped where a shared opening is distinctive enough.

use std::sync::OnceLock;

/// Openings of known, unneeded messages.
const OPENINGS: &[&str] = &[
    "Allocated ",
    "Assigned GIN plugin ",
    "Assigned RMA plugin ",
    "Attribute ",
    "Binding multicast memory",
    "CPUs with mixed ",
    "CTAPolicy ",
    "CUDA Graph helper thread",
    "CUMEM ",
    "Call to ",
    "Capping the number of GIN contexts",
    "Check P2P Type ",
    "Cleanup buffer ",
    "Closing tuner: ",
    "CollNet Channel ",
    "CollNet [recv] : rank ",
    "CollNet [send] : rank ",
    "Collnet Chains ",
    "Comm config ",
    "CommRevokeAsync ",
    "Communicator has ",
    "Compute Capability (",
    "Connected binomial trees",
    "Connected to proxy ",
    "Connection to proxy ",
    "Continuing in spite of a RAS",
    "Could not enable P2P between dev ",
    "Could not find ",
    "Could not get device class for NVLink target ",
    "Could not get speed for interface ",
    "Could not open XML topology file ",
    "Count not open ",
    "Created shared memory mapping ",
    "Cross-clique P2P enabled",
    "Cuda Alloc Size ",
    "Cuda Host Alloc Size ",
    "DEBUG file is ",
    "DMA-BUF is available",
    "Data Direct DMA Interface",
    "Detected a mix of single and multiple-port NICs",
    "Detected mixed local ",
    "Detected ranks ",
    "Did not find child net device",
    "Disabling ",
    "ENV/Plugin: ",
    "ENV: ",
    "External env plugin ",
    "External network plugin ",
    "External profiler plugin ",
    "External tuner plugin ",
    "Failed to ",
    "Found child net device for ",
    "Found network interface ",
    "GDRCOPY enabled library ",
    "GIN Proxy will not",
    "GIN/Plugin: ",
    "HINT: ",
    "Host enqueue: bid ",
    "IPC symmetric alloc buffer ",
    "Ib Alloc Size ",
    "Ignoring element ",
    "Init CE, rank ",
    "Initialized NET plugin ",
    "Initialized a devComm with ",
    "Initialized state ",
    "Inserted window ",
    "Intrusive map: ",
    "Invalid value ",
    "KV Convert to int : ",
    "LSA extended to full NVL domain",
    "Last reference to shared memory ",
    "Legacy IPC not supported",
    "Loaded NVML from ",
    "Loading graphs",
    "Loading topology",
    "Loading unnamed topology",
    "Local CollNet device counts",
    "Local Net device counts",
    "MMAP allocated shareable host buffer ",
    "MMAP imported shareable host buffer ",
    "MNNVL matching peer 0x",
    "MNNVL rack serial ",
    "Marking physical devices as unplaced",
    "Max P2P Peers ",
    "Mem Alloc Size ",
    "Mem Realloc old size ",
    "MemManager: ",
    "Multiple ranks on the same GPU detected",
    "NCCL_CGA_CLUSTER_SIZE value ",
    "NCCL_COMM_ID cannot be used",
    "NCCL_GIN_",
    "NCCL_GRAPH_MIXING_SUPPORT ",
    "NCCL_GRAPH_STREAM_ORDERING ",
    "NCCL_MAX_CTAS ",
    "NCCL_MAX_P2P_PEERS ",
    "NCCL_MIN_CTAS ",
    "NCCL_NCHANNELS_PER_NET_PEER ",
    "NCCL_NET_PLUGIN list contains ",
    "NCCL_NUM_RMA_CTX",
    "NCCL_NVLINK_UTIL_CENTRIC_SCHED_ENABLE ",
    "NCCL_PROXY_CPUSET = ",
    "NCCL_RMA_PLUGIN list contains ",
    "NCCL_RMA_PROXY_QUEUE_SIZE is ",
    "NCCL_SOCKET_MAGIC invalid value ",
    "NET/IB : Failed to open mlx5dv symbols",
    "NET/IB : Invalid NCCL_NET_FORCE_MERGE",
    "NET/IB : Local mergedDev ",
    "NET/IB : Made virtual device ",
    "NET/IB : Skipping makeVDevice",
    "NET/IB : There are mismatched physical devices",
    "NET/IB: ",
    "NET/MLX5: ",
    "NET/OFI ",
    "NET/Plugin",
    "NET_IB: ",
    "NVLS Bind mem ",
    "NVLS Created Multicast group ",
    "NVLS Creating Multicast group ",
    "NVLS Mapped ",
    "NVLS Unbind MC handle ",
    "NVLS Unmap mem UC handle ",
    "NVLS comm ",
    "NVLS group ",
    "NVLS importing shareableHandle ",
    "NVLS multicast support is ",
    "NVLS rank ",
    "NVLS symmetric alloc mc buffer ",
    "NVLS tuning: nChannels ",
    "NVLink target ",
    "Net : Unsupported address family",
    "New proxy ",
    "No NVML device handle",
    "No valid CTA policies found",
    "Number of segments exceeded",
    "Opened tuner: ",
    "P2P not supported between GPU",
    "PARAM: ",
    "PROFILER/Plugin: ",
    "PXN Disabled as plugin is v4",
    "Parsed environment variable ",
    "Paths from ",
    "Plugin name set by env to ",
    "Profiler event mask: 0x",
    "Profiler init failed with error ",
    "Proxy rank ",
    "ProxyCall UDS comm ",
    "Queing opId=",
    "Queuing opId=",
    "RAS ",
    "RMA/Plugin: ",
    "Received and initiated operation=",
    "ReduceScatter_RailA2A_Lsa",
    "Retrieving state for ",
    "SHM legacy: ",
    "Skipping bind multicast",
    "Skipping graph registration for buffer ",
    "Skipping registration for buffer ",
    "Socket handshake magic 0x",
    "Socket progress: abort called",
    "Stack size limit (",
    "Successfully loaded external ",
    "SymCheck: coll ",
    "Symmetric VA size=",
    "Symmetric memory is not supported",
    "Symmetric registration is not supported",
    "TOPO/NET : ",
    "TUNER/Plugin: ",
    "Threads per block : ",
    "Topology detection",
    "Tuner: ",
    "Tuning P2P operations with maxP2pPeers",
    "UDS proxy",
    "UDS: ",
    "Unable to open ",
    "Unable to recognize NCCL_NETDEVS_POLICY=",
    "Unable to use GIN: ",
    "Unexpected error from ncclSocketReady",
    "Unknown CTA policy",
    "Unlinking shared memory ",
    "Unloading plugin ",
    "User asked for a maximum of ",
    "User asked for a minimum of ",
    "Using NCCL_NET_DEVICE_UNPACK net plugin version ",
    "Using non-device net plugin version ",
    "Using tuner plugin: ",
    "WSAStartup succeeded",
    "Warning: ENV ",
    "Widening links",
    "XML Parse : ",
    "[Proxy Progress] ",
    "[Proxy Service UDS] ",
    "[Proxy Service] ",
    "[Service thread] ",
    "bootstrapSplit: ",
    "cuMem host allocations do not appear to be working",
    "devCommCreate: ",
    "dlsym failed on ",
    "dlvsym failed on ",
    "failed to decode NCCL_PROXY_CPUSET=",
    "fallocate: Failed to extend ",
    "ginForceEnable ",
    "latencyinter not found in graph",
    "mkstemp: Failed to create ",
    "ncclCommGrow: ",
    "ncclCommResume: rank ",
    "ncclCommSuspend: rank ",
    "ncclMaxSharedMem ",
    "ncclNvmlDeviceGetPciInfoExt: ",
    "ncclOs",
    "ncclPollProxyResponse ",
    "ncclRmaProxyPutLaunch ",
    "ncclRmaPutProxy ",
    "ncclTopoGetXmlFromSys: ",
    "ncclTopoPopulateNics : ",
    "nvmlDeviceGetNvLink",
    "peer query failed between dev ",
    "proxy listening socket at ",
    "proxyConnSetupConnect ",
    "proxyConnSharedInit",
    "proxyProgressAsync",
    "proxyUDSRecvReq::",
    "recvConnect ",
    "recvOpId=",
    "register comm ",
    "resp.opId=",
    "scheduleRmaTasksToPlan: ",
    "sendConnect ",
    "socketFinalizeAccept",
    "socketProgressOpt: abort called",
    "stream is being captured by a new graph",
    "timings: rank ",
    "unlink shared memory ",
];

/// The openings by first byte.
fn by_first_byte() -> &'static [Vec<&'static str>; 128] {
    static INDEX: OnceLock<[Vec<&'static str>; 128]> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut index: [Vec<&'static str>; 128] = std::array::from_fn(|_| Vec::new());
        for o in OPENINGS {
            index[usize::from(o.as_bytes()[0] & 0x7f)].push(o);
        }
        index
    })
}

/// Whether `msg` is a known NCCL message topo does not read.
pub(crate) fn is_known(msg: &str) -> bool {
    let Some(&b) = msg.as_bytes().first() else { return false };
    if b < 128 && by_first_byte()[usize::from(b)].iter().any(|o| msg.starts_with(o)) {
        return true;
    }
    file_line(msg) || op_trace(msg) || algo_trace(msg) || ib_qp(msg)
}

/// `init.cc:1714 Cuda Host Alloc Size ...`, `enqueue.cc:12 -> 3`: messages that start
/// with their source position.
fn file_line(msg: &str) -> bool {
    let (w, rest) = super::scan::word(msg);
    let Some((file, line)) = w.rsplit_once(':') else { return false };
    let source = [".cc", ".cu", ".h", ".c", ".cpp"].iter().any(|x| file.ends_with(x));
    source && !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit()) && rest.starts_with(' ')
}

/// `AllReduce: opCount 0 sendbuff ...` (INFO COLL) and the group/size messages shaped
/// `Func: ...` (`Broadcast: 1024 Bytes -> Algo ...`, `Send: group size used is 2`).
fn op_trace(msg: &str) -> bool {
    let Some((f, rest)) = super::scan::ident(msg) else { return false };
    if !f.as_bytes()[0].is_ascii_uppercase() {
        return false;
    }
    if let Some(r) = rest.strip_prefix(": ") {
        return r.starts_with("opCount ")
            || r.starts_with("group size used is ")
            || r.starts_with("tuner chunk size ")
            || r.starts_with("connect ")
            || r.starts_with("skipping ")
            || algo_trace(r);
    }
    rest.starts_with(" [Symmetric]: ")
        || rest.starts_with(" [Copy Engine]: ")
        || rest.starts_with(" [Hierarchical CE]: ")
}

/// `1024 Bytes -> Algo 1 proto 2 time 12.5`.
fn algo_trace(msg: &str) -> bool {
    match super::scan::nat(msg) {
        Some((_, r)) => r.starts_with(" Bytes -> Algo "),
        None => false,
    }
}

/// GIN/IB queue-pair traces: `[3] Created a QP ...`, `[3] Connected main QP ...`.
fn ib_qp(msg: &str) -> bool {
    let Some(r) = msg.strip_prefix('[') else { return false };
    let Some((_, r)) = super::scan::nat(r) else { return false };
    ["] Connected ", "] Created a ", "] Registered MR", "] Unregistering MR", "] Segment "]
        .iter()
        .any(|p| r.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::is_known;

    #[test]
    fn shapes() {
        assert!(is_known("init.cc:1714 Cuda Host Alloc Size 4 pointer 0x7f00"));
        assert!(is_known("enqueue.cc:12 -> 3"));
        assert!(is_known(
            "AllReduce: opCount 0 sendbuff 0x1 recvbuff 0x2 count 8 datatype 7 op 0 root 0 comm 0x3 [nranks=2] stream 0x4"
        ));
        assert!(is_known("Broadcast: 1048576 Bytes -> Algo Ring proto Simple channel{Lo..Hi}={0..3}"));
        assert!(is_known("1048576 Bytes -> Algo 1 proto 2 time 12.500000"));
        assert!(is_known("[2] Created a QP: qp_idx=1, qpn=0x12, reliable_db=no"));
        assert!(is_known("RAS thread started"));
        assert!(is_known("Attribute coll of node net not found"));
        assert!(!is_known("Node Type: GPU, ID: 0000:3b:00.0"));
        assert!(!is_known("main.cc: hello"));
        assert!(!is_known("é:12 x"));
    }
}
