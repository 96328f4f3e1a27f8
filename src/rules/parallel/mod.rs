//! PAR rules: the model-parallel degrees (tensor × pipeline × context) fit the
//! run's GPUs and the model's shape.

pub(crate) mod parallel_degrees_mismatch;
