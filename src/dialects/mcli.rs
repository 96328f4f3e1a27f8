//! A MosaicML platform run file (`mcli run -f mcli/mcli-1b-max-seq-len-8k.yaml`) that trains with
//! llm-foundry: `compute: {gpus: 8, cluster: …}`, `image:`, `integrations:`, `command: composer
//! train/train.py /mnt/config/parameters.yaml`, and the llm-foundry training config under
//! `parameters:`.
//!
//! Sources:
//!
//! - mosaicml/llm-foundry `mcli/README.md` and `mcli/mcli-1b-max-seq-len-8k.yaml` (commit
//!   8c8dd48f72168c5d51e2f7b151595892a8fba43d): "The below is injected as a YAML file:
//!   /mnt/config/parameters.yaml", which the `command` passes to `train/train.py`: `parameters` is
//!   the llm-foundry config, read with OmegaConf (`${variables.…}` relative to it), with
//!   llm-foundry's batch semantics (`llm_foundry.rs`).
//! - The mcli docs, "Managing Compute" (docs.mosaicml.com/projects/mcli, `compute` fields): `gpus`
//!   (int) is the run's number of GPUs ("launch a multi-node cluster … with 16 A100 GPUs: `gpus:
//!   16`"); `nodes` is an "alternative to gpus — typically there are 8 GPUs per node", so a run
//!   given only `nodes` states no GPU count. Older run files spell it `gpu_num` at the top level.
//!   The platform starts one process per GPU: the world is `gpus`.

use super::llm_foundry::{self, LlmFoundry};
use super::{BatchSemantics, Derived, Dialect, Doc, Evidence, Framework, KnownKeys, Unmodelled, WorldSize};
use crate::load::{Node, Value};
use crate::schema::{Manifest, Role};

pub(crate) const MCLI: Dialect = Dialect(&Mcli);

pub(crate) struct Mcli;

/// The training config the run injects.
fn parameters(root: &Node) -> Option<&Node> {
    root.get("parameters").filter(|p| matches!(p.value, Value::Map(_)))
}

/// The GPU count the run states, and where.
fn gpus(root: &Node) -> Option<(&Node, &'static str)> {
    root.get_dotted("compute.gpus").map(|n| (n, "compute.gpus")).or_else(|| root.get("gpu_num").map(|n| (n, "gpu_num")))
}

impl Framework for Mcli {
    fn name(&self) -> &'static str {
        "mcli"
    }

    fn title(&self) -> &'static str {
        "MosaicML platform run (llm-foundry)"
    }

    fn doc(&self) -> Doc {
        Doc {
            evidence: "a run file (`compute.gpus` or `gpu_num`, with `image`/`command`/`integrations`) whose `parameters:` show llm-foundry's keys",
            roles: "llm-foundry's roles under `parameters.` (`parameters.global_train_batch_size`, `parameters.device_train_microbatch_size`, …); devices from `compute.gpus` (or `gpu_num`)",
            semantics: "llm-foundry's (global ÷ world, ⌈device ÷ micro⌉); the world is `compute.gpus`, the run's GPU count (`nodes` alone states none); `${…}` is interpolated within `parameters` (the file the run injects)",
        }
    }

    fn evidence(&self, cx: &Evidence) -> Option<String> {
        let (_, at) = gpus(cx.root)?;
        if !["image", "command", "integrations"].iter().any(|k| cx.has(k)) {
            return None;
        }
        let inner = Evidence { root: parameters(cx.root)?, path: None, bound_paths: &[], hydra_primary: cx.hydra_primary };
        let why = LlmFoundry.evidence(&inner)?;
        Some(format!("a MosaicML run file (`{at}`) whose `parameters` are llm-foundry's: {why}"))
    }

    fn bindings(&self, _manifest: &Manifest) -> Vec<(Role, String)> {
        llm_foundry::BINDINGS.iter().map(|(r, p)| (*r, format!("parameters.{p}"))).collect()
    }

    /// The GPUs, and llm-foundry's derived roles of `parameters`.
    fn derived(&self, root: &Node) -> Vec<Derived> {
        let mut out = Vec::new();
        if let Some((node, at)) = gpus(root).filter(|(n, _)| n.as_i64().is_some_and(|g| g > 0)) {
            out.push(Derived { role: Role::Devices, value: node.to_json(), path: at.to_owned(), anchor: None });
        }
        if let Some(parameters) = parameters(root) {
            out.extend(LlmFoundry.derived(parameters).into_iter().map(|d| Derived {
                path: format!("parameters.{}", d.path),
                anchor: d.anchor.map(|a| format!("parameters.{a}")),
                ..d
            }));
        }
        out
    }

    fn batch(&self) -> BatchSemantics {
        LlmFoundry.batch()
    }

    fn world_size(&self) -> WorldSize {
        WorldSize::Devices
    }

    fn known_keys(&self, root: &Node) -> Option<KnownKeys> {
        let keys = LlmFoundry.known_keys(root)?;
        Some(KnownKeys { path: "parameters".to_owned(), ..keys })
    }

    fn interpolates(&self) -> bool {
        true
    }

    fn interpolation_root(&self, _root: &Node) -> Option<&'static str> {
        Some("parameters")
    }

    fn sequence_length_keys(&self) -> &'static [&'static str] {
        LlmFoundry.sequence_length_keys()
    }

    fn memory_unmodelled(&self, root: &Node) -> Option<Unmodelled> {
        LlmFoundry.memory_unmodelled(parameters(root)?).map(|u| Unmodelled { path: format!("parameters.{}", u.path), ..u })
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{detected, parse};
    use super::*;

    #[test]
    fn a_run_file_with_llm_foundry_parameters() {
        let run = "compute:\n  gpus: 8\nimage: x\nparameters:\n  global_train_batch_size: 256\n  device_train_microbatch_size: 8\n";
        assert_eq!(detected(run), "mcli");
        // `parameters: {}` (the config comes from the repository) or another framework's: not this.
        assert_eq!(detected("compute:\n  gpus: 8\nimage: x\nparameters: {}\n"), "unknown");
        assert_eq!(detected("compute:\n  gpus: 8\nparameters:\n  global_train_batch_size: 8\n"), "unknown");
        let devices = Mcli.derived(&parse(run)).into_iter().find(|d| d.role == Role::Devices).map(|d| (d.value, d.path));
        assert_eq!(devices, Some((8.into(), "compute.gpus".to_owned())));
        let old = "gpu_num: 16\ncommand: x\nparameters:\n  global_train_batch_size: 256\n";
        assert_eq!(Mcli.derived(&parse(old)).into_iter().find(|d| d.role == Role::Devices).map(|d| d.value), Some(16.into()));
    }
}
