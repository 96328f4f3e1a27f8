//! The registry: every rule trainlint ships, with its code, in code order.
//!
//! This table is the one place a rule is listed. The code list, selection,
//! the linter's gates (`Checker::runs`), `trainlint rule`, SARIF and the book
//! come from it; a rule that is not here has no [`RuleId`], so it cannot build
//! a `Diagnostic` and does not compile. `tests/codes.rs` snapshots the list, so
//! that renaming or dropping a code shows up in review. Codes are never reused.

use super::{Registered, Rule, RuleMeta};
use super::{batch, curriculum, env, hardware, memory, migration, parallel, resolution, schema, suppression};

pub use crate::diagnostic::rule::RuleId;

impl<R: Registered> From<R> for RuleId {
    fn from(_: R) -> Self {
        R::ID
    }
}

/// Registers rules: `"CODE" => path::Type,` gives each its [`RuleId`] and lists them in [`ALL`].
macro_rules! register_rules {
    ($($code:literal => $rule:path,)*) => {
        $(
            impl Registered for $rule {
                const ID: RuleId = RuleId(&RuleMeta {
                    code: $code,
                    name: <$rule as Rule>::NAME,
                    severity: <$rule as Rule>::SEVERITY,
                    fix: <$rule as Rule>::FIX,
                    since: <$rule as Rule>::SINCE,
                    check: <$rule as Rule>::CHECK,
                    needs: <$rule as Rule>::NEEDS,
                    options: <$rule as Rule>::OPTIONS,
                    raw_docs: <$rule as Rule>::DOCS,
                    module: <$rule as Rule>::MODULE,
                    type_name: <$rule as Rule>::TYPE_NAME,
                });
            }
        )*

        /// Every registered rule, in code order.
        pub static ALL: &[&RuleMeta] = &[$(<$rule as Registered>::ID.0),*];
    };
}

register_rules! {
    "BAT001" => batch::effective_batch_mismatch::EffectiveBatchMismatch,
    "BAT002" => batch::stage_effective_batch_changed::StageEffectiveBatchChanged,
    "BAT003" => batch::unreachable_batch::UnreachableBatch,
    "BAT004" => batch::global_batch_mismatch::GlobalBatchMismatch,
    "BAT005" => batch::effective_batch_changed_since_baseline::EffectiveBatchChangedSinceBaseline,
    "BAT006" => batch::world_size_unknown::WorldSizeUnknown,
    "BAT007" => batch::batch_underspecified::BatchUnderspecified,
    "BAT008" => batch::global_batch_floored::GlobalBatchFloored,
    "BAT009" => batch::devices_launch_mismatch::DevicesLaunchMismatch,
    "BAT010" => batch::generations_indivisible::GenerationsIndivisible,
    "CUR001" => curriculum::stage_key_not_in_base::StageKeyNotInBase,
    "ENV001" => env::invalid_allocator_config::InvalidAllocatorConfig,
    "ENV002" => env::ineffective_allocator_option::IneffectiveAllocatorOption,
    "HW001" => hardware::bf16_unsupported::Bf16Unsupported,
    "HW002" => hardware::fp8_unsupported::Fp8Unsupported,
    "MEM001" => memory::out_of_memory::OutOfMemory,
    "MEM002" => memory::low_memory_headroom::LowMemoryHeadroom,
    "MEM003" => memory::memory_underused::MemoryUnderused,
    "MEM004" => memory::memory_not_estimated::MemoryNotEstimated,
    "MIG001" => migration::lightning_precision_name::LightningPrecisionName,
    "MIG002" => migration::lightning_gpus_argument::LightningGpusArgument,
    "MIG003" => migration::lightning_removed_trainer_argument::LightningRemovedTrainerArgument,
    "MIG004" => migration::hf_renamed_training_argument::HfRenamedTrainingArgument,
    "MIG005" => migration::deepspeed_bfloat16_section::DeepspeedBfloat16Section,
    "MIG006" => migration::pytorch_alloc_conf_name::PytorchAllocConfName,
    "PAR001" => parallel::parallel_degrees_mismatch::ParallelDegreesMismatch,
    "RES001" => resolution::resolution_reduced::ResolutionReduced,
    "RES002" => resolution::precision_lowered::PrecisionLowered,
    "SCH001" => schema::invalid_syntax::InvalidSyntax,
    "SCH002" => schema::schema_violation::SchemaViolation,
    "SCH003" => schema::unknown_key::UnknownKey,
    "SCH004" => schema::duplicate_key::DuplicateKey,
    "SCH005" => schema::interpolation_error::InterpolationError,
    "SCH006" => schema::unresolved_value::UnresolvedValue,
    "SCH007" => schema::missing_config::MissingConfig,
    "SCH008" => schema::pyyaml_float_as_string::PyyamlFloatAsString,
    "SUP001" => suppression::unused_suppression::UnusedSuppression,
    "SUP002" => suppression::suppression_without_reason::SuppressionWithoutReason,
}

/// Looks a rule up by code (case-insensitive) or by name.
pub fn find(code_or_name: &str) -> Option<&'static RuleMeta> {
    ALL.iter().copied().find(|r| r.code.eq_ignore_ascii_case(code_or_name) || r.name == code_or_name)
}
