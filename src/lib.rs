//! trainlint: a linter and fixer for machine-learning training configs.
//!
//! The pipeline, one module per stage, data flowing one way:
//! `load` (bytes → spanned tree) → `resolve` (dialect, roles, stages) →
//! `estimate` (memory model) → `rules` (diagnostics and fixes) →
//! `render` (full, concise, json) / `apply` (edits).

pub mod load;
pub mod source;
pub mod schema;
pub mod gpus;
pub mod diagnostic;
pub mod docs;
pub mod rules;
pub mod apply;
pub mod error;
pub mod estimate;
pub mod settings;
pub mod resolve;
pub mod linter;
pub mod render;
pub mod cli;
pub mod commands;
