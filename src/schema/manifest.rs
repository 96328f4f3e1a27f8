//! The manifest: `trainlint.toml`, or `[tool.trainlint]` in `pyproject.toml`.

use super::gpu_target::GpuTarget;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// trainlint's project configuration.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
#[schemars(title = "trainlint manifest")]
pub struct Manifest {
    /// Rule codes or prefixes to enable (default: all). `"ALL"` selects every rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub select: Option<Vec<String>>,
    /// Rule codes or prefixes to enable on top of `select`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extend_select: Vec<String>,
    /// Rule codes or prefixes to disable.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ignore: Vec<String>,
    /// Glob patterns (relative to the manifest) of files and folders never checked;
    /// replaces the default list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude: Option<Vec<String>>,
    /// Glob patterns excluded on top of `exclude`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extend_exclude: Vec<String>,
    /// Rule codes ignored per glob pattern (relative to the manifest); the only way to silence a JSON file.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub per_file_ignores: BTreeMap<String, Vec<String>>,
    /// Data-parallel world size when a config does not state it (`--world-size` overrides).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub world_size: Option<u32>,
    /// The effective batch every config and stage must keep.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub effective_batch: Option<u32>,
    /// Fraction of a GPU's capacity the estimate may use (default 0.85).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.1, max = 1.0))]
    pub safety_margin: Option<f64>,
    /// GPU targets (catalog or custom ids) to check against (`--gpu` overrides).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpus: Vec<String>,
    /// Custom GPU targets, as `[[gpu]]` tables.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpu: Vec<GpuTarget>,
}
