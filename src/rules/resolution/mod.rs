//! RES rules: against a baseline revision, quality-bearing values must not get coarser.

pub mod coarser;
pub mod precision_lowered;
