use super::settings::net_devices;
use super::*;

#[test]
fn net_device_lists() {
    let (d, oob, t) = net_devices(" [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB ib0:10.0.0.1<0>", false);
    assert!(!t);
    assert_eq!(oob.as_deref(), Some("ib0:10.0.0.1<0>"));
    assert_eq!((d[1].name.as_str(), d[1].port, d[1].link.as_deref()), ("mlx5_1", Some(1), Some("RoCE")));
    let (d, _, _) = net_devices(" [0]={[0] mlx5_0:1/IB, [1] mlx5_1:1/IB} [1]mlx5_2:1/IB ; OOB eth0:1.2.3.4<0>", false);
    assert_eq!(d[0].name, "mlx5_0+mlx5_1");
    assert_eq!(d[1].name, "mlx5_2");
    let (d, oob, _) = net_devices(" [0]eno1:104.171.202.216<0> [1]veth:fe80::1%veth<0>", false);
    assert_eq!((d[1].name.as_str(), d[1].link.as_deref(), oob), ("veth", Some("fe80::1%veth<0>"), None));
    let (d, _, t) = net_devices(" [0]eno1:10.0.0.1<0> [1]br-x:172.2", true);
    assert!(t);
    assert_eq!(d.len(), 1);
    let (d, _, _) = net_devices(" [0]mlx5_0:1:2:0/IB ; OOB x", false);
    assert_eq!((d[0].port, d[0].link.as_deref()), (Some(1), Some("IB")));
}

#[test]
fn unknown_words() {
    assert_eq!(unknown_word("Node Type: GPU"), "Node");
    assert_eq!(unknown_word("  -> Dest"), "->");
    assert_eq!(unknown_word("é".repeat(40).as_str()).chars().count(), 32);
}
