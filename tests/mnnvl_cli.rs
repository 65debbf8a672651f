//! `--nodes N --mnnvl` end to end on the built-in GB200 tray: the trays fused into one
//! system and searched as one node, as NCCL's multi-node NVLink does; what turns it off;
//! the note on a rack's trays modelled as separate nodes; the rack picture.

use assert_cmd::Command;

/// The binary, with no NCCL_* variable leaking in from the environment running the tests.
fn topo() -> Command {
    let mut cmd = assert_cmd::cargo::cargo_bin_cmd!("topo");
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("NCCL_") {
            cmd.env_remove(k);
        }
    }
    cmd
}

fn analyze(args: &[&str], env: &[(&str, &str)]) -> (serde_json::Value, String) {
    let mut cmd = topo();
    cmd.args(["analyze", "--json", "--fixture", "gb200-nvl72-tray"]).args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.assert().success().get_output().clone();
    let doc = serde_json::from_slice(&out.stdout).expect("analyze --json writes JSON");
    (doc, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn two_trays_are_one_node_over_nvlink() {
    let (d, _) = analyze(&["--nodes", "2", "--mnnvl"], &[]);
    assert_eq!(
        d["mnnvl"],
        serde_json::json!({"enabled": true, "clique_size": 8, "clique_rank": 0, "nvl_domain_size": 8, "hosts": 2,
            "cliques": 1, "cross_clique": false})
    );
    let hosts: Vec<i64> = d["gpus"].as_array().unwrap().iter().map(|g| g["host"].as_i64().unwrap()).collect();
    assert_eq!(hosts, [0, 0, 0, 0, 1, 1, 1, 1]);
    assert_eq!(d["system"]["inter"], false);
    // Across trays: NVLink through the one NVSwitch, P2P.
    let path = d["paths"]["gpu_gpu"].as_array().unwrap().iter().find(|p| p["from"] == 0 && p["to"] == 4).cloned();
    assert_eq!(path.map(|p| p["type"].clone()), Some(serde_json::json!("NVL")));
    let p2p = d["p2p"].as_array().unwrap().iter().find(|p| p["from"] == 0 && p["to"] == 7).cloned().unwrap();
    assert_eq!(p2p["transport"], "P2P");
    // Another tray's NIC: the network only.
    let far = d["paths"]["gpu_net"].as_array().unwrap().iter().find(|p| p["rank"] == 0 && p["net_host"] == 1).cloned();
    assert_eq!(far.map(|p| p["type"].clone()), Some(serde_json::json!("DIS")));
    let ring = &d["graphs"]["ring"];
    assert_eq!(ring["type_intra"], "NVL");
    assert_eq!(ring["channels"][0]["ranks"].as_array().unwrap().len(), 8);
}

#[test]
fn mnnvl_enable_0_is_plain_nodes() {
    let (off, _) = analyze(&["--nodes", "2", "--mnnvl"], &[("NCCL_MNNVL_ENABLE", "0")]);
    let (plain, _) = analyze(&["--nodes", "2"], &[]);
    assert_eq!(off["mnnvl"]["enabled"], false);
    assert_eq!(off["mnnvl"]["hosts"], 1);
    assert!(plain.get("mnnvl").is_none(), "no mnnvl object without --mnnvl");
    assert_eq!(off["graphs"], plain["graphs"]);
    assert_eq!(off["gpus"], plain["gpus"]);
    assert_eq!(off["system"]["inter"], true);
}

#[test]
fn p2p_disabled_keeps_mnnvl_off() {
    for (k, v) in [("NCCL_P2P_DISABLE", "1"), ("NCCL_P2P_LEVEL", "LOC"), ("NCCL_MNNVL_UUID", "0")] {
        let (d, _) = analyze(&["--nodes", "2", "--mnnvl"], &[(k, v)]);
        assert_eq!(d["mnnvl"]["enabled"], false, "{k}={v}");
    }
}

#[test]
fn a_rack_tray_as_separate_nodes_gets_a_note() {
    let (_, err) = analyze(&["--nodes", "2"], &[]);
    assert!(err.contains("add --mnnvl"), "{err}");
    let (_, err) = analyze(&["--nodes", "2", "--mnnvl"], &[]);
    assert!(!err.contains("add --mnnvl"), "{err}");
    // An NVSwitch machine that is not a Grace tray: its NVSwitches are its own.
    let out = topo().args(["show", "--fixture", "dgx-h100", "--nodes", "2"]).assert().success().get_output().clone();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("--mnnvl"));
    // --mnnvl on GPUs without an NVSwitch: said, and off.
    let out = topo()
        .args(["analyze", "--json", "--fixture", "workstation-4gpu", "--nodes", "2", "--mnnvl"])
        .assert()
        .success()
        .get_output()
        .clone();
    assert!(String::from_utf8_lossy(&out.stderr).contains("no NVLink to an NVSwitch"));
    let d: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(d["mnnvl"]["enabled"], false);
}

#[test]
fn the_rack_picture_has_every_tray() {
    let out = topo()
        .args(["paths", "--dot", "--fixture", "gb200-nvl72-tray", "--nodes", "18", "--mnnvl"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let dot = String::from_utf8(out).unwrap();
    for t in 0..18 {
        assert!(dot.contains(&format!("\"tray{t}\"")), "tray {t} missing");
    }
    assert!(dot.contains("NVLink fabric"));
    assert!(dot.contains("1 node (18 trays fused by MNNVL)"));
}

#[test]
fn scatter_and_rail_variables_change_nothing_one_clique_models_and_say_so() {
    let vars = [("NCCL_MNNVL_SCATTER_NETS_ENABLE", "0"), ("NCCL_MNNVL_RAIL_PER_HOST", "1"), ("NCCL_CROSS_NIC", "0")];
    let (set, err) = analyze(&["--nodes", "4", "--mnnvl"], &vars);
    let (plain, _) = analyze(&["--nodes", "4", "--mnnvl"], &[("NCCL_CROSS_NIC", "0")]);
    assert_eq!(set["graphs"], plain["graphs"]);
    assert_eq!(set["paths"], plain["paths"]);
    for name in ["NCCL_MNNVL_SCATTER_NETS_ENABLE", "NCCL_MNNVL_RAIL_PER_HOST"] {
        assert!(err.contains(&format!("{name} is set but changes nothing here")), "{err}");
    }
    assert!(err.contains("the clique holds the whole job"), "{err}");
    // Unset, nothing is said.
    let (_, err) = analyze(&["--nodes", "4", "--mnnvl"], &[]);
    assert!(!err.contains("changes nothing"), "{err}");
}

// ---- several cliques (--mnnvl-cliques): rules derived from NCCL 2.30.7's source, no
// NCCL answers exist for them.

/// mnnvl.cc/topo.cc: each rank fuses only its clique's trays; trim.cc sets `inter` when
/// the clique holds fewer ranks than the job; init.cc counts nodes by ring heads, one a
/// clique; the graphs leave each clique through its NICs, a NIC of another tray of the
/// clique named by its host. search.cc: between cliques the scatter and rail variables
/// act, so topo says nothing about them; with NCCL_MNNVL_RAIL_PER_HOST=1 (crossNic 0) a
/// ring channel leaves by its own NIC or the same NIC (same PCI id) of another tray.
/// One 4-tray run (the search of a fused system through its NICs takes seconds in debug).
#[test]
fn two_cliques_fuse_each_and_count_a_node_each() {
    let vars = [("NCCL_MNNVL_RAIL_PER_HOST", "1"), ("NCCL_MNNVL_SCATTER_NETS_ENABLE", "1")];
    let (d, err) = analyze(&["--nodes", "4", "--mnnvl", "--mnnvl-cliques", "2"], &vars);
    assert_eq!(
        d["mnnvl"],
        serde_json::json!({"enabled": true, "clique_size": 8, "clique_rank": 0, "nvl_domain_size": 8, "hosts": 2,
            "cliques": 2, "cross_clique": false})
    );
    assert!(!err.contains("changes nothing"), "{err}");
    let hosts: Vec<i64> = d["gpus"].as_array().unwrap().iter().map(|g| g["host"].as_i64().unwrap()).collect();
    assert_eq!(hosts, [0, 0, 0, 0, 1, 1, 1, 1]);
    assert_eq!(d["system"]["inter"], true);
    let ring = d["graphs"]["ring"]["channels"].as_array().unwrap();
    assert_eq!(ring[0]["ranks"].as_array().unwrap().len(), 8);
    for c in ring {
        assert_eq!(c["net_in"], c["net_out"], "{c}");
    }
    let tree = d["graphs"]["tree"]["channels"].as_array().unwrap();
    assert!(tree.iter().any(|c| c["net_in_host"] == 1), "the other tray's NICs serve channels too");
    // ncclNvlsInit (2.27.3): Blackwell's NVLS channels count the job as multi-node when the
    // clique is smaller than the job (32); one clique holding it gets 24.
    assert_eq!(d["tuning"]["channels"]["nvls"], 32);
    let (one, _) = analyze(&["--nodes", "2", "--mnnvl"], &[]);
    assert_eq!(one["tuning"]["channels"]["nvls"], 24);
}

#[test]
fn cliques_must_divide_the_nodes_and_need_mnnvl() {
    let out = topo()
        .args(["analyze", "--fixture", "gb200-nvl72-tray", "--nodes", "4", "--mnnvl", "--mnnvl-cliques", "3"])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("--mnnvl-cliques 3 must divide --nodes 4"), "{err}");
    topo().args(["analyze", "--fixture", "gb200-nvl72-tray", "--nodes", "4", "--mnnvl-cliques", "2"]).assert().code(2);
}

/// init.cc/paths.cc (2.30.3): NCCL_MNNVL_CROSS_CLIQUE lets ranks of different cliques of
/// one NVLink domain use P2P (the other cases: the unit tests of model::mnnvl). A tray a
/// clique keeps it quick.
#[test]
fn cross_clique_in_one_domain_is_said() {
    let args = ["--nodes", "2", "--mnnvl", "--mnnvl-cliques", "2", "--mnnvl-one-domain"];
    let (d, err) = analyze(&args, &[("NCCL_MNNVL_CROSS_CLIQUE", "1")]);
    assert_eq!((d["mnnvl"]["cross_clique"].as_bool(), d["mnnvl"]["nvl_domain_size"].as_i64()), (Some(true), Some(8)));
    assert!(err.contains("connect by P2P over NVLink"), "{err}");
    // init.cc: one clique id for every rank of one domain is one clique, whatever was stated.
    let (d, err) = analyze(&args, &[("NCCL_MNNVL_CLIQUE_ID", "5")]);
    assert_eq!((d["mnnvl"]["cliques"].as_i64(), d["mnnvl"]["clique_size"].as_i64()), (Some(1), Some(8)));
    assert!(err.contains("fuses the 2 cliques stated (--mnnvl-cliques) into one"), "{err}");
}
