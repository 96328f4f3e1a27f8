//! Optimizer states of the trainable parameters. FSDP divides them over the data-parallel world.

use super::{MemoryComponent, Run, State, Term};
use crate::estimate::NotEstimable;
use crate::schema::Role;
use crate::schema::typed::{Optimizer, OptimizerKind, Precision, StateBits};

pub struct OptimizerStates;

/// Optimizer state bytes per trainable fp32 parameter (FACTS.md §4, HF
/// `model_memory_anatomy.md` / `perf_train_gpu_one.md`): AdamW 8 B (two fp32
/// moments), 8-bit AdamW 2 B, SGD with momentum 4 B, SGD 0 B, Adafactor "slightly
/// more than 4 bytes" (4 B here), Lion one fp32 momentum (4 B, our inference).
/// 8-bit Lion is counted like 8-bit AdamW (2 B), as before the typed roles.
pub fn bytes_per_parameter(optimizer: Optimizer) -> f64 {
    match (optimizer.kind, optimizer.state) {
        (OptimizerKind::Adam, StateBits::Full) => 8.0,
        (OptimizerKind::Adam | OptimizerKind::Lion, StateBits::Eight) => 2.0,
        (OptimizerKind::SgdMomentum, _) => 4.0,
        (OptimizerKind::Sgd, _) => 0.0,
        (OptimizerKind::Adafactor, _) => 4.0,
        (OptimizerKind::Lion, StateBits::Full) => 4.0,
    }
}

impl MemoryComponent for OptimizerStates {
    fn id(&self) -> &'static str {
        "optimizer-states"
    }

    fn source(&self) -> &'static str {
        "HF transformers docs model_memory_anatomy.md, perf_train_gpu_one.md (FACTS.md §4)"
    }

    fn terms(&self, run: &Run, notes: &mut Vec<String>) -> Result<Vec<Term>, NotEstimable> {
        let Some(trainable) = run.trainable().filter(|_| !run.zero()) else { return Ok(vec![]) };
        // Named as the config spells it; AdamW when none is named (HF TrainingArguments' default).
        let name = run.resolved.role(Role::Optimizer).and_then(|v| v.value.as_str().map(str::to_owned)).unwrap_or_else(|| "adamw".into());
        let per_param = match name.parse::<Optimizer>() {
            Ok(optimizer) => bytes_per_parameter(optimizer),
            Err(_) => {
                notes.push(format!("optimizer `{name}` unknown: AdamW's 8 B per parameter assumed"));
                bytes_per_parameter(Optimizer::ADAMW)
            }
        };
        // PyTorch keeps full-precision states in the parameter's dtype (`torch.optim.AdamW`
        // `_init_group`: `exp_avg = torch.zeros_like(p)`): half the bytes when the trained
        // parameters are 16-bit (pure bf16/fp16). 8-bit states are 8-bit whatever the dtype.
        let halved = matches!(run.precision, Precision::True(_)) && per_param >= 4.0;
        let per_param = if halved { per_param / 2.0 } else { per_param };
        // Embeddings and head kept in fp32 (`fp32_embeddings`): their states are fp32.
        let fp32 = if halved { run.fp32_part() } else { 0.0 };
        let text = if fp32 > 0.0 {
            format!("trainable parameters × {per_param} B ({name}), the embeddings and head × {} B", 2.0 * per_param)
        } else {
            format!("trainable parameters × {per_param} B ({name})")
        };
        Ok(vec![Term::fixed("optimizer states", (trainable + fp32) * per_param / run.zero_divisor(State::Optimizer), text)])
    }
}
