//! RES rules: against a baseline revision, quality-bearing values must not get coarser.

pub(crate) mod precision_lowered;
pub(crate) mod resolution_reduced;
