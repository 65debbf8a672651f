//! What NCCL checks of one call besides its collective and its size: the element type
//! (its size turns nccl-tests' byte sizes into NCCL's counts) and whether NVLS can
//! reduce that type with that operator (`ncclNvlsSupported`, the same in every release
//! modelled; from 2.22 NVLS AllGather takes any type, as it reduces nothing).

/// The element type and reduction of the collectives modelled: nccl-tests' `-d` and
/// `-o`, float and sum by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Call {
    /// nccl-tests' name of the type (`float`, `bfloat16`, `int8`...).
    #[serde(rename = "type")]
    pub type_name: &'static str,
    /// nccl-tests' name of the reduction (`sum`, `prod`, `min`, `max`, `avg`).
    pub op: &'static str,
    /// Bytes per element.
    pub elem_bytes: u64,
}

impl Default for Call {
    fn default() -> Call {
        Call::FLOAT_SUM
    }
}

impl Call {
    /// nccl-tests' defaults.
    pub const FLOAT_SUM: Call = Call { type_name: "float", op: "sum", elem_bytes: 4 };

    /// NCCL's `ncclNvlsSupported(devRedOp, type)`: sum, min and max on the integer types
    /// of 32 and 64 bits, half and bfloat16; only sum on float and double; nothing on
    /// 8-bit types. `avg` is a pre-multiplied sum on floats and a post-divided sum on
    /// integers in the kernels, neither of which NVLS has; nor has it `prod`.
    pub fn nvls_reduces(&self) -> bool {
        let min_max_sum = matches!(self.op, "sum" | "min" | "max");
        match self.type_name {
            "int32" | "uint32" | "int64" | "uint64" | "half" | "bfloat16" => min_max_sum,
            "float" | "double" => self.op == "sum",
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nvls_reduces_as_nccl_nvls_supported() {
        let c = |t, op| Call { type_name: t, op, elem_bytes: 4 };
        assert!(c("float", "sum").nvls_reduces());
        assert!(!c("float", "max").nvls_reduces());
        assert!(c("bfloat16", "max").nvls_reduces());
        assert!(!c("half", "prod").nvls_reduces() && !c("half", "avg").nvls_reduces());
        assert!(!c("int8", "sum").nvls_reduces());
    }
}
