//! NCCL_* environment variables, read the way NCCL reads them.
//!
//! Values are captured once into an [`Env`] so that the model is a pure function of its
//! inputs (tests build an `Env` from pairs instead of touching the process environment).
//! Where NCCL would silently fall back to a default for a malformed value, we do the
//! same and record a warning.

use std::collections::BTreeMap;

use crate::model::PathType;

/// A snapshot of the NCCL_* variables.
#[derive(Debug, Clone, Default)]
pub struct Env {
    vars: BTreeMap<String, String>,
    warnings: std::cell::RefCell<Vec<String>>,
}

impl Env {
    /// Every `NCCL_*` variable of this process.
    pub fn from_process() -> Env {
        Env::from_pairs(std::env::vars().filter(|(k, _)| k.starts_with("NCCL_")))
    }

    pub fn from_pairs<K: Into<String>, V: Into<String>>(pairs: impl IntoIterator<Item = (K, V)>) -> Env {
        Env { vars: pairs.into_iter().map(|(k, v)| (k.into(), v.into())).collect(), warnings: Default::default() }
    }

    /// The raw value of a variable (full name, e.g. `NCCL_P2P_LEVEL`).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(|s| s.as_str())
    }

    /// The variables that are set, for reports.
    pub fn vars(&self) -> &BTreeMap<String, String> {
        &self.vars
    }

    /// Warnings about values NCCL would ignore or misread.
    pub fn warnings(&self) -> Vec<String> {
        self.warnings.borrow().clone()
    }

    fn warn(&self, msg: String) {
        let mut w = self.warnings.borrow_mut();
        if !w.contains(&msg) {
            w.push(msg);
        }
    }

    /// An integer parameter as `NCCL_PARAM` reads it: `strtoll(value, &end, 0)`, the
    /// default when unset or when the whole value is not a number.
    pub fn param(&self, short: &str, default: i64) -> i64 {
        let name = format!("NCCL_{short}");
        match self.get(&name) {
            None => default,
            Some(v) => match crate::xml::parse_c_int(v) {
                Some(x) => x,
                None => {
                    self.warn(format!("{name}={v:?} is not an integer: NCCL ignores it and uses {default}"));
                    default
                }
            },
        }
    }

    /// A path-type level as NCCL's `ncclGetLevel` reads it: a path name (LOC..SYS), or a
    /// legacy integer 0..5 (mapped LOC, PIX, PXB, PHB, SYS, SYS), optionally preceded by
    /// a `disable` variable whose value 1 means LOC. `None` when unset or unreadable.
    pub fn level(&self, disable: Option<&str>, name: &str) -> Option<PathType> {
        if let Some(d) = disable
            && let Some(v) = self.get(d)
            && crate::xml::strtol(v) == 1
        {
            return Some(PathType::Loc);
        }
        let v = self.get(name)?;
        for t in PathType::ALL.iter().take(PathType::Sys as usize + 1) {
            if v == t.name() {
                return Some(*t);
            }
        }
        if v.as_bytes().first().is_some_and(|c| c.is_ascii_digit()) {
            const OLD: [PathType; 6] =
                [PathType::Loc, PathType::Pix, PathType::Pxb, PathType::Phb, PathType::Sys, PathType::Sys];
            let old = crate::xml::strtol(v).clamp(0, 5) as usize;
            return Some(OLD[old]);
        }
        self.warn(format!(
            "{name}={v:?} is neither a path type (LOC NVL NVB C2C PIX PXB P2C PXN PHB SYS) nor a legacy integer: NCCL ignores it"
        ));
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_parse_like_nccl() {
        let e = Env::from_pairs([("NCCL_P2P_LEVEL", "PHB")]);
        assert_eq!(e.level(Some("NCCL_P2P_DISABLE"), "NCCL_P2P_LEVEL"), Some(PathType::Phb));
        let e = Env::from_pairs([("NCCL_P2P_LEVEL", "2")]);
        assert_eq!(e.level(None, "NCCL_P2P_LEVEL"), Some(PathType::Pxb));
        let e = Env::from_pairs([("NCCL_P2P_LEVEL", "9")]);
        assert_eq!(e.level(None, "NCCL_P2P_LEVEL"), Some(PathType::Sys));
        let e = Env::from_pairs([("NCCL_P2P_DISABLE", "1"), ("NCCL_P2P_LEVEL", "SYS")]);
        assert_eq!(e.level(Some("NCCL_P2P_DISABLE"), "NCCL_P2P_LEVEL"), Some(PathType::Loc));
        let e = Env::from_pairs([("NCCL_P2P_LEVEL", "nvlink")]);
        assert_eq!(e.level(None, "NCCL_P2P_LEVEL"), None);
        assert_eq!(e.warnings().len(), 1);
    }

    #[test]
    fn params_fall_back_with_a_warning() {
        let e = Env::from_pairs([("NCCL_PXN_DISABLE", "yes"), ("NCCL_NVB_DISABLE", "0x1")]);
        assert_eq!(e.param("PXN_DISABLE", 0), 0);
        assert_eq!(e.param("NVB_DISABLE", 0), 1);
        assert_eq!(e.param("CROSS_NIC", 2), 2);
        assert!(e.warnings()[0].contains("NCCL_PXN_DISABLE"));
    }
}
