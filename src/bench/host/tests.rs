//! Tests of the host backend.

use super::*;

#[test]
fn every_rank_count_type_and_op() {
    // Sizes that do not divide evenly, with tiny slots so that several loops run.
    for n in 2..=8 {
        let mut plan = Plan::simple_ring(n, 2);
        plan.channels[1].order.reverse();
        let mut b = HostBackend::new(&plan, 64).unwrap();
        b.prepare(1000 * 8).unwrap();
        for dtype in DataType::ALL {
            for op in RedOp::ALL {
                for &count in &[0usize, 1, 37, 301] {
                    for in_place in [false, true] {
                        let wrong = check_once(&mut b, dtype, op, count, in_place, 7).unwrap();
                        assert_eq!(wrong, 0, "n={n} {dtype} {op} count={count} in_place={in_place}");
                    }
                }
            }
        }
    }
}

#[test]
fn host_staged_edges_go_through_the_proxy() {
    for n in [2, 3, 5] {
        let mut plan = Plan::simple_ring(n, 2);
        // Stage every other edge of the ring.
        for r in (0..n).step_by(2) {
            plan.set_transport(r, (r + 1) % n, Transport::HostStaged);
        }
        let mut b = HostBackend::new(&plan, 256).unwrap();
        assert!(b.staged_edges() > 0);
        b.prepare(5000 * 8).unwrap();
        for (dtype, op) in [(DataType::Float, RedOp::Sum), (DataType::Half, RedOp::Avg), (DataType::Int64, RedOp::Prod)]
        {
            for in_place in [false, true] {
                assert_eq!(check_once(&mut b, dtype, op, 4999, in_place, 3).unwrap(), 0, "n={n} {dtype} {op}");
            }
        }
        // Repeated collectives keep the counters in step.
        b.run(DataType::Float, RedOp::Sum, 4000, false, 5).unwrap();
        assert_eq!(check_once(&mut b, DataType::Uint8, RedOp::Max, 4321, false, 9).unwrap(), 0);
    }
}

#[test]
fn stream_copy_matches_memcpy() {
    let src: Vec<u8> = (0..1000u32).map(|i| (i * 7 + 3) as u8).collect();
    for off in 0..17 {
        for n in [0, 1, 15, 16, 17, 63, 64, 65, 200, 983 - off] {
            let mut dst = vec![0u8; 1000];
            unsafe { stream_copy(dst.as_mut_ptr().add(off), src.as_ptr().add(3), n) };
            store_fence();
            assert_eq!(&dst[off..off + n], &src[3..3 + n], "offset {off} length {n}");
            assert!(dst[..off].iter().chain(&dst[off + n..]).all(|&b| b == 0));
        }
    }
}

#[test]
fn large_messages_stream_their_output() {
    let mut b = HostBackend::new(&Plan::simple_ring(3, 2), DEFAULT_SLOT_BYTES).unwrap();
    let count = STREAM_MIN_BYTES / 4 + 5;
    b.prepare(count * 4).unwrap();
    for in_place in [false, true] {
        assert_eq!(check_once(&mut b, DataType::Float, RedOp::Sum, count, in_place, 11).unwrap(), 0);
    }
}

#[test]
fn one_rank_is_a_copy() {
    let mut b = HostBackend::new(&Plan::simple_ring(1, 1), 1024).unwrap();
    b.prepare(4096).unwrap();
    for op in RedOp::ALL {
        assert_eq!(check_once(&mut b, DataType::Int32, op, 1000, false, 1).unwrap(), 0);
        assert_eq!(check_once(&mut b, DataType::Float, op, 1000, true, 1).unwrap(), 0);
    }
}

#[test]
fn mismatched_buffers_are_refused() {
    let mut b = HostBackend::new(&Plan::simple_ring(2, 1), 1024).unwrap();
    b.prepare(64).unwrap();
    assert!(b.run(DataType::Float, RedOp::Sum, 1000, false, 1).is_err());
    // The ring still works afterwards.
    assert_eq!(check_once(&mut b, DataType::Float, RedOp::Sum, 16, false, 1).unwrap(), 0);
}
