//! Batch arithmetic: effective batch = micro batch × accumulation × data-parallel world,
//! with world = devices × nodes ÷ (tensor × pipeline × context parallel degrees)
//! (FACTS.md §1 and §8: DeepSpeed, Megatron and Axolotl divide by the model-parallel degrees).

use super::{Dialect, RoleValue};
use crate::schema::Role;
use serde::Serialize;
use std::collections::BTreeMap;

/// Where the data-parallel world size came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum WorldSource {
    Config,
    CommandLineOrManifest,
    Unknown,
}

#[derive(Clone, Debug, Serialize)]
pub struct BatchView {
    pub micro_batch: Option<u64>,
    pub accumulation: Option<u64>,
    pub world_size: Option<u64>,
    pub world_source: WorldSource,
    pub effective_batch: Option<u64>,
}

impl BatchView {
    pub fn from_roles(roles: &BTreeMap<Role, RoleValue>, dialect: Dialect, world_override: Option<u32>) -> Self {
        let int = |role: Role| roles.get(&role).and_then(|r| r.value.as_u64()).filter(|v| *v > 0);
        let micro_batch = int(Role::MicroBatch);
        // Native format: an absent accumulation means none (1), as in every framework's default.
        let accumulation = int(Role::Accumulation).or(match dialect {
            Dialect::Native => Some(1),
            Dialect::Unknown => None,
        });
        let model_parallel = [Role::TensorParallel, Role::PipelineParallel, Role::ContextParallel].iter().map(|r| int(*r).unwrap_or(1)).product::<u64>();
        let (world_size, world_source) = match int(Role::Devices) {
            Some(devices) => {
                let gpus = devices * int(Role::Nodes).unwrap_or(1);
                // A world that the model-parallel degrees do not divide has no data-parallel size.
                if gpus % model_parallel == 0 { (Some(gpus / model_parallel), WorldSource::Config) } else { (None, WorldSource::Unknown) }
            }
            None => match world_override {
                Some(w) => (Some(u64::from(w)), WorldSource::CommandLineOrManifest),
                None => (None, WorldSource::Unknown),
            },
        };
        let effective_batch = match (micro_batch, accumulation, world_size) {
            (Some(m), Some(a), Some(w)) => Some(m * a * w),
            _ => None,
        };
        BatchView { micro_batch, accumulation, world_size, world_source, effective_batch }
    }
}
