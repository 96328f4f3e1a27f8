//! CUR rules: curriculum stage files and how they overlay their base.

pub mod unknown_stage_key;
