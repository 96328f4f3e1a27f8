//! The code table: every rule trainlint ships, in code order.
//!
//! `tests/codes.rs` snapshots this list, so that renaming or dropping a code
//! shows up in review. Codes are never reused.

use super::RuleMeta;
use super::{batch, curriculum, env, hardware, memory, migration, resolution, schema, suppression};

pub static ALL: &[&RuleMeta] = &[
    &batch::target_mismatch::TARGET_MISMATCH,
    &batch::stage_mismatch::STAGE_MISMATCH,
    &batch::unreachable::UNREACHABLE,
    &batch::global_mismatch::GLOBAL_MISMATCH,
    &batch::baseline_changed::BASELINE_CHANGED,
    &batch::world_unknown::WORLD_UNKNOWN,
    &batch::underspecified::UNDERSPECIFIED,
    &curriculum::unknown_stage_key::UNKNOWN_STAGE_KEY,
    &env::invalid_alloc_conf::INVALID_ALLOC_CONF,
    &env::ineffective_option::INEFFECTIVE_OPTION,
    &hardware::bf16_unsupported::BF16_UNSUPPORTED,
    &hardware::fp8_unsupported::FP8_UNSUPPORTED,
    &memory::exceeds::EXCEEDS,
    &memory::tight::TIGHT,
    &memory::underused::UNDERUSED,
    &memory::not_estimated::NOT_ESTIMATED,
    &migration::lightning_precision::LIGHTNING_PRECISION,
    &migration::lightning_gpus::LIGHTNING_GPUS,
    &migration::lightning_removed_args::LIGHTNING_REMOVED_ARGS,
    &migration::hf_renamed_args::HF_RENAMED_ARGS,
    &migration::deepspeed_bfloat16::DEEPSPEED_BFLOAT16,
    &migration::alloc_conf_name::ALLOC_CONF_NAME,
    &resolution::coarser::COARSER,
    &resolution::precision_lowered::PRECISION_LOWERED,
    &schema::invalid_syntax::INVALID_SYNTAX,
    &schema::schema_violation::SCHEMA_VIOLATION,
    &schema::unknown_key::UNKNOWN_KEY,
    &schema::duplicate_key::DUPLICATE_KEY,
    &schema::interpolation::INTERPOLATION_ERROR,
    &schema::interpolation::UNRESOLVED_VALUE,
    &schema::missing_config::MISSING_CONFIG,
    &schema::pyyaml_float::PYYAML_FLOAT,
    &suppression::unused::UNUSED_SUPPRESSION,
    &suppression::without_reason::SUPPRESSION_WITHOUT_REASON,
];

/// Looks a rule up by code (case-insensitive) or by name.
pub fn find(code_or_name: &str) -> Option<&'static RuleMeta> {
    ALL.iter().copied().find(|r| r.code.eq_ignore_ascii_case(code_or_name) || r.name == code_or_name)
}
