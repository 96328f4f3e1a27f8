//! A GPU target: one entry of the catalog, or a custom target from the manifest.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A GPU a config is checked against.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
#[schemars(title = "trainlint GPU target")]
pub struct GpuTarget {
    /// Lowercase kebab-case id, e.g. `rtx-4090`, `a100-80gb`.
    #[schemars(regex(pattern = r"^[a-z0-9]+(-[a-z0-9]+)*$"))]
    #[schemars(example = &"lab-a6000-ecc")]
    pub id: String,
    /// The name nvidia-smi / rocm-smi reports.
    #[schemars(example = &"NVIDIA RTX A6000")]
    pub name: String,
    /// Total memory in MiB as nvidia-smi reports it (rocm-smi bytes ÷ 2^20 for AMD).
    #[serde(deserialize_with = "memory_mib")]
    #[schemars(range(min = 1, max = 17_592_186_044_415_u64))]
    #[schemars(example = 48676)]
    pub memory_mib: u64,
    /// CUDA compute capability (`8.0`), absent for AMD.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = null))]
    #[schemars(example = &"8.6")]
    pub compute_capability: Option<String>,
    /// Native bf16 (compute capability ≥ 8.0, or ROCm).
    #[schemars(example = true)]
    pub bf16: bool,
    /// fp8 support (compute capability ≥ 8.9 per Transformer Engine; MI300X FNUZ).
    #[schemars(example = false)]
    pub fp8: bool,
    /// Where the facts come from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("default" = []))]
    #[schemars(example = ["nvidia-smi on the lab machine"])]
    pub sources: Vec<String>,
}

/// The most MiB whose byte count fits in 64 bits (2^44 − 1): past it, `memory_bytes`
/// would not fit (2^44 MiB wrapped to "usable 0 MiB").
pub(crate) const MAX_MEMORY_MIB: u64 = u64::MAX >> 20;

/// A `[[gpu]]` memory: at least 1 MiB, and its bytes fit in 64 bits (an invalid manifest, exit 2, otherwise).
fn memory_mib<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
    let value = u64::deserialize(deserializer)?;
    if value == 0 || value > MAX_MEMORY_MIB {
        return Err(serde::de::Error::custom(format!("must be between 1 and {MAX_MEMORY_MIB} MiB (its bytes fit in 64 bits), not {value}")));
    }
    Ok(value)
}
