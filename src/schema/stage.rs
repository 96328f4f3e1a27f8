//! A curriculum stage: an overlay on a base config.
//!
//! Maps merge key by key; scalars and lists replace. A stage states only what
//! it changes, so every field is optional and nothing is required.

use super::training_config::{Batch, Memory, Model, Optimizer, Parallel, Precision, Sharding};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A curriculum stage in trainlint's native format (an overlay on the base config).
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "trainlint curriculum stage")]
pub(crate) struct CurriculumStage {
    /// Stage name, as used by `--stage` (defaults to the file stem).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<Batch>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallel: Option<Parallel>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-trainlint" = {"role": "precision", "resolution": "higher-is-finer"}))]
    pub precision: Option<Precision>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-trainlint" = {"role": "optimizer"}))]
    pub optimizer: Option<Optimizer>,
    /// Peak learning rate (BAT005 suggests the linearly scaled one when the effective batch changes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0), extend("x-trainlint" = {"role": "learning_rate"}))]
    pub learning_rate: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<Model>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sharding: Option<Sharding>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<Memory>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<serde_json::Map<String, serde_json::Value>>,
}
