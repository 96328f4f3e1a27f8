//! CUR rules: curriculum stage files and how they overlay their base.

pub(crate) mod stage_key_not_in_base;
