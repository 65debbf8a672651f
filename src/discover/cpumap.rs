//! The Linux `cpumap` format: a CPU set as comma-separated 32-bit hex words, most
//! significant first, the top word only as wide as the CPU count needs
//! (`/sys/devices/system/node/node0/cpumap`, and NCCL's `<cpu affinity="...">`), and the
//! `cpulist` form (`0-23,48-71`) the kernel writes beside it.
//!
//! Detection copies cpumaps into the XML as they are; these helpers are for reading them
//! (CPU ranges in reports) and for writing machines (built-in fixtures, fake trees).

use std::collections::BTreeSet;

/// A cpumap for `cpus` on a machine with `ncpus` CPUs, as the kernel prints it. CPUs at
/// or above `ncpus` are left out.
pub fn format(ncpus: u32, cpus: impl IntoIterator<Item = u32>) -> String {
    let nwords = ncpus.div_ceil(32).max(1) as usize;
    let mut words = vec![0u32; nwords];
    for c in cpus.into_iter().filter(|&c| c < ncpus) {
        words[(c / 32) as usize] |= 1 << (c % 32);
    }
    let top_digits = match ncpus % 32 {
        0 => 8,
        r => r.div_ceil(4) as usize,
    };
    words
        .iter()
        .enumerate()
        .rev()
        .map(|(i, w)| if i == nwords - 1 { format!("{w:0top_digits$x}") } else { format!("{w:08x}") })
        .collect::<Vec<_>>()
        .join(",")
}

/// The CPUs of a cpumap (`00000000,00ffffff`). Lenient, as the kernel's readers are: a
/// word that is not hex counts as no CPUs, surrounding blanks are ignored.
pub fn parse(map: &str) -> BTreeSet<u32> {
    let mut out = BTreeSet::new();
    for (w, word) in map.trim().split(',').rev().enumerate() {
        let Ok(w) = u32::try_from(w) else { break };
        let Some(base) = w.checked_mul(32) else { break };
        let v = u32::from_str_radix(word.trim(), 16).unwrap_or(0);
        out.extend((0..32).filter(|b| v & (1 << b) != 0).map(|b| base + b));
    }
    out
}

/// A CPU set in the kernel's `cpulist` form: ranges, comma-separated (`0-2,5,7-8`);
/// empty for no CPUs.
pub fn ranges(cpus: &BTreeSet<u32>) -> String {
    let v: Vec<u32> = cpus.iter().copied().collect();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        parts.push(if i == j { v[i].to_string() } else { format!("{}-{}", v[i], v[j]) });
        i = j + 1;
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_matches_the_kernel() {
        assert_eq!(format(64, 0..64), "ffffffff,ffffffff");
        assert_eq!(format(72, 0..72), "ff,ffffffff,ffffffff");
        assert_eq!(format(80, (0..20).chain(40..60)), "0000,0fffff00,000fffff");
        assert_eq!(format(8, [0, 2]), "05");
        assert_eq!(format(32, [31]), "80000000");
        assert_eq!(format(24, 0..24), "ffffff");
        assert_eq!(format(64, 32..40), "000000ff,00000000");
        assert_eq!(format(8, [3, 8, 40]), "08", "CPUs past the count are left out");
    }

    #[test]
    fn parse_reads_what_format_writes() {
        let s: BTreeSet<u32> = (32..40).collect();
        assert_eq!(parse("000000ff,00000000"), s);
        assert_eq!(parse(" 0000ffff\n"), (0..16).collect());
        assert_eq!(parse("00000001,00000003"), BTreeSet::from([0, 1, 32]));
        assert_eq!(parse("zz,00000001"), BTreeSet::from([0]));
        assert!(parse("").is_empty());
        for ncpus in [1, 8, 24, 32, 33, 64, 224] {
            let cpus: BTreeSet<u32> = (0..ncpus).filter(|c| c % 3 != 1).collect();
            assert_eq!(parse(&format(ncpus, cpus.iter().copied())), cpus, "{ncpus} CPUs");
        }
    }

    #[test]
    fn ranges_join_runs() {
        assert_eq!(ranges(&BTreeSet::from([0, 1, 2, 5, 7, 8])), "0-2,5,7-8");
        assert_eq!(ranges(&BTreeSet::new()), "");
        assert_eq!(ranges(&(16..48).collect()), "16-47");
    }
}
