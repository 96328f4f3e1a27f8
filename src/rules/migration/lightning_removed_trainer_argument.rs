use super::rename_key;
use crate::declare_rule;
use crate::diagnostic::{Applicability, Diagnostic, Fix};
use crate::load::{Document, Node};
use crate::rules::Checker;

declare_rule! {
    /// ## What it does
    /// Reports `Trainer` arguments that Lightning removed (by 2.0), with what
    /// replaces each. `replace_sampler_ddp`, renamed `use_distributed_sampler`,
    /// is migrated; the others need code changes and are only reported.
    ///
    /// ## Why is this bad?
    /// Removed arguments make `Trainer(...)` fail with "unexpected keyword
    /// argument". Sources: Lightning 1.7 and 2.0.0 changelogs ("Removed"
    /// sections) and the 2.0 upgrade guide.
    ///
    /// ## Example
    /// ```yaml
    /// trainer:
    ///   replace_sampler_ddp: false
    ///   resume_from_checkpoint: last.ckpt
    /// ```
    ///
    /// Use instead:
    /// ```yaml
    /// trainer:
    ///   use_distributed_sampler: false
    /// # and trainer.fit(model, ckpt_path="last.ckpt") in code
    /// ```
    ///
    /// ## Fix safety
    /// The `replace_sampler_ddp` rename is safe; the rest have no fix.
    ///
    /// Each removal applies from the release that made it (1.7 or 2.0): a
    /// project that states an older Lightning gets no finding, one that states
    /// no version gets it as an info that says it assumes the latest release.
    pub struct LightningRemovedTrainerArgument {
        name: "lightning-removed-trainer-argument",
        severity: Warning,
        fix: Sometimes,
        since: "0.1.0",
        check: Migrations,
    }
}

/// Removed Trainer arguments and their replacements.
const REMOVED: [(&str, &str); 17] = [
    ("resume_from_checkpoint", "pass `ckpt_path` to `trainer.fit()` (removed in 2.0)"),
    ("auto_lr_find", "use `lightning.pytorch.tuner.Tuner(trainer).lr_find(model)` (removed in 2.0)"),
    ("auto_scale_batch_size", "use `Tuner(trainer).scale_batch_size(model)` (removed in 2.0)"),
    ("tpu_cores", "use `accelerator: tpu` with `devices` (removed in 2.0)"),
    ("ipus", "use `accelerator: ipu` with `devices` (removed in 2.0)"),
    ("num_processes", "use `devices` (removed in 2.0)"),
    ("track_grad_norm", "log `lightning.pytorch.utilities.grad_norm` in `on_before_optimizer_step` (removed in 2.0)"),
    ("amp_backend", "native AMP is the only backend; remove it (removed in 2.0)"),
    ("amp_level", "Apex AMP is gone; remove it (removed in 2.0)"),
    ("move_metrics_to_cpu", "remove it (removed in 2.0)"),
    ("multiple_trainloader_mode", "wrap the loaders in `CombinedLoader(..., mode=...)` (removed in 2.0)"),
    ("auto_select_gpus", "use `devices: auto` or `find_usable_cuda_devices` (removed in 2.0)"),
    ("weights_summary", "use `enable_model_summary` or the `ModelSummary` callback (removed in 1.7)"),
    ("progress_bar_refresh_rate", "use the `TQDMProgressBar(refresh_rate=...)` callback (removed in 1.7)"),
    ("flush_logs_every_n_steps", "set it on the logger (removed in 1.7)"),
    ("terminate_on_nan", "use `detect_anomaly` (removed in 1.7)"),
    ("stochastic_weight_avg", "use the `StochasticWeightAveraging` callback (removed in 1.7)"),
];

/// The release a removal names in its hint (`(removed in 2.0)`, `(removed in 1.7)`).
fn removed_in(hint: &str) -> Vec<u64> {
    let version = hint.rsplit("removed in ").next().unwrap_or("2.0").trim_end_matches(')');
    version.split('.').filter_map(|n| n.parse().ok()).collect()
}

pub fn check(checker: &mut Checker, document: &Document, trainer: &Node, settings: &crate::settings::Settings) {
    let Some(entries) = trainer.entries() else { return };
    for entry in entries {
        if entry.key == "replace_sampler_ddp" {
            let Some(stated) = super::lightning_applies(settings, document, &[2, 0]) else { continue };
            let assumed = if stated { "" } else { super::ASSUMED_LIGHTNING };
            let mut diagnostic = Diagnostic::new(
                LightningRemovedTrainerArgument,
                &document.source,
                entry.key_span.clone(),
                format!("Lightning 2.0 renamed `replace_sampler_ddp` to `use_distributed_sampler`{assumed}"),
            )
            .with_label("renamed in Lightning 2.0")
            .with_note("the old name raises a TypeError in Lightning 2.x")
            .with_help("rename it to `use_distributed_sampler`");
            if trainer.entry("use_distributed_sampler").is_none() {
                diagnostic = diagnostic.with_fix(Fix {
                    applicability: Applicability::Safe,
                    message: "Rename to `use_distributed_sampler`".into(),
                    edits: vec![rename_key(document, entry, "use_distributed_sampler")],
                });
            }
            if !stated {
                diagnostic = diagnostic.at_most(crate::diagnostic::Severity::Info);
            }
            checker.report(diagnostic);
        } else if let Some((_, replacement)) = REMOVED.iter().find(|(name, _)| *name == entry.key) {
            // A project on a release before the removal keeps the argument.
            let Some(stated) = super::lightning_applies(settings, document, &removed_in(replacement)) else { continue };
            let assumed = if stated { "" } else { super::ASSUMED_LIGHTNING };
            let mut diagnostic = Diagnostic::new(
                LightningRemovedTrainerArgument,
                &document.source,
                entry.key_span.clone(),
                format!("Lightning removed the Trainer argument `{}`{assumed}", entry.key),
            )
            .with_label("removed")
            .with_note("Trainer(...) raises a TypeError for a removed argument")
            .with_help(replacement.to_string());
            if !stated {
                diagnostic = diagnostic.at_most(crate::diagnostic::Severity::Info);
            }
            checker.report(diagnostic);
        }
    }
}
