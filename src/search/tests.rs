//! Tests of the whole search: progress reports and the two bookkeepings of link bandwidth.

use super::compute::{Bookkeeping, compute_all_by};
use super::recursion::PROGRESS_EVERY;
use super::{SearchOptions, run, run_with, xml};
use crate::model::NodeType;
use crate::release::Release;

mod progress_tests {
    use super::*;

    #[test]
    fn progress_reports_without_changing_results() {
        let (x, _) = crate::fixtures::get("dgx1-v100").unwrap().load().unwrap();
        let opts = crate::model::Options { nodes: 2, ..Default::default() };
        let an = crate::model::analyze(&x, "dgx1-v100", &opts).unwrap();
        let so = SearchOptions::from_analysis(&an);
        let (plain, sys_a) = run(&an, &so).unwrap();
        let mut calls: Vec<(&str, u64)> = Vec::new();
        let (watched, sys_b) = run_with(&an, &so, &mut |g, s| calls.push((g, s))).unwrap();
        assert_eq!(
            xml::dump(&sys_a, &plain, Release::NEWEST).unwrap(),
            xml::dump(&sys_b, &watched, Release::NEWEST).unwrap()
        );
        assert_eq!(calls.first(), Some(&("ring", 0)));
        assert!(calls.contains(&("tree", 0)));
        // Steps are reported every PROGRESS_EVERY, growing within a graph.
        assert!(calls.iter().any(|&(_, s)| s > 0 && s % PROGRESS_EVERY == 0), "{calls:?}");
    }
}

#[cfg(test)]
mod bookkeeping_tests {
    use super::*;

    /// Both bookkeepings on one analysed machine: the same graphs (as NCCL would dump
    /// them) and the same bits in every link afterwards.
    fn same_both_ways(name: &str, an: &crate::model::Analysis) {
        same_both_ways_by(name, an, Bookkeeping::Fastest)
    }

    fn same_both_ways_by(name: &str, an: &crate::model::Analysis, how: Bookkeeping) {
        let so = SearchOptions::from_analysis(an);
        let run_by = |how| {
            let mut sys = an.system.clone();
            let gs = compute_all_by(&mut sys, &an.params, &so, &mut |_, _| {}, how).unwrap();
            let links: Vec<u32> = NodeType::ALL
                .iter()
                .flat_map(|&t| sys.list(t).iter().flat_map(|n| n.links.iter().map(|l| l.bw.to_bits())))
                .collect();
            (xml::dump(&sys, &gs, Release::NEWEST).unwrap(), links)
        };
        let (fast, floats) = (run_by(how), run_by(Bookkeeping::Floats));
        assert_eq!(fast.0, floats.0, "{name}: graphs differ");
        assert!(fast.1 == floats.1, "{name}: link bandwidths differ after the search");
    }

    /// A search thrown away leaves nothing behind: searching again with floats gives
    /// what floats alone give.
    #[test]
    fn a_discarded_search_leaves_nothing() {
        for f in crate::fixtures::all() {
            let (x, _) = f.load().unwrap();
            let opts = crate::model::Options { nodes: 2, ..Default::default() };
            let an = crate::model::analyze(&x, f.name, &opts).unwrap();
            same_both_ways_by(f.name, &an, Bookkeeping::Rerun);
        }
    }

    #[test]
    fn thousandths_search_as_floats_do() {
        for f in crate::fixtures::all() {
            let (x, _) = f.load().unwrap();
            for nodes in [1, 2] {
                let opts = crate::model::Options { nodes, ..Default::default() };
                let an = crate::model::analyze(&x, f.name, &opts).unwrap();
                same_both_ways(&format!("{} x{nodes}", f.name), &an);
            }
        }
    }

    /// The shared machines too, where present (the NCCL checker compares the fast
    /// bookkeeping with NCCL itself; this says the float one agrees).
    #[test]
    fn thousandths_search_as_floats_do_on_shared_machines() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/nccl");
        let Ok(rd) = std::fs::read_dir(&dir) else {
            crate::test_skip::skip(
                "search::tests::thousandths_search_as_floats_do_on_shared_machines",
                &format!("{} is absent", dir.display()),
            );
            return;
        };
        let mut files: Vec<_> =
            rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|e| e == "xml")).collect();
        files.sort();
        let mut compared = 0;
        for f in files {
            let Ok((x, _)) = crate::xml::read_file(&f) else { continue };
            let name = f.file_stem().unwrap().to_string_lossy().into_owned();
            // Two nodes: the NICs join the search, and with them the GPU sort by PCI
            // bandwidth.
            let opts = crate::model::Options { nodes: 2, ..Default::default() };
            let Ok(an) = crate::model::analyze(&x, &name, &opts) else { continue };
            same_both_ways(&name, &an);
            compared += 1;
        }
        assert!(compared >= 30, "only {compared} shared machines compared");
    }
}
