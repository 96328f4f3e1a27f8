//! The optimizer step's workspace: what `optimizer.step()` allocates on top of the
//! states, alive with every gradient and none of the activations (`Live::Step`).

use super::{Live, MemoryComponent, Run, State, Term};
use crate::estimate::NotEstimable;
use crate::schema::Role;
use crate::schema::typed::{Optimizer, OptimizerKind, Precision, StateBits};

pub(crate) struct OptimizerStep;

/// Whether the optimizer is PyTorch's multi-tensor (`foreach`) Adam/AdamW, the
/// default `torch.optim.AdamW` on CUDA: HF `optim` `adamw_torch` (and no `optim`
/// stated: the estimate assumes the unfused default, the larger), the torch class
/// paths, trainlint's native `adamw`/`adam`. Not: `*_fused` (one kernel, no
/// workspace), bitsandbytes' 8-bit and paged optimizers (their kernels update in
/// place), transformers' `adamw_hf` (one parameter at a time), DeepSpeed's FusedAdam,
/// nor the other AdamW implementations HF's `optim` names (`adamw_anyprecision`,
/// `schedule_free_*`, `stable_adamw`, XLA's), whose workspace is not modelled.
fn foreach_adam(name: &str) -> bool {
    let Ok(optimizer) = name.parse::<Optimizer>() else { return false };
    optimizer.kind == OptimizerKind::Adam
        && optimizer.state == StateBits::Full
        && !optimizer.fused
        && !optimizer.bnb
        && ["adamw", "adam", "adamw_torch", "torch.optim.adamw", "torch.optim.adam"].iter().any(|n| name.eq_ignore_ascii_case(n))
}

/// The workspace's bytes per parameter: the state dtype (the parameter's in pure 16-bit).
fn per_param_of(run: &Run) -> f64 {
    if matches!(run.precision, Precision::True(_)) { 2.0 } else { 4.0 }
}

impl MemoryComponent for OptimizerStep {
    // A workspace, not a state: whether the step allocates it, and how much at once, is the
    // implementation's (foreach over every tensor, fused, chunked per group), so the band
    // widens it with the computed rows. torchtune's Llama-3.2-3B full row with AdamW (README
    // "Optimization flags", fixtures/published) peaked at 24.9 GiB where weights, gradients,
    // states and a whole √v copy are 29.9 GiB.
    fn certainty(&self) -> super::Certainty {
        super::Certainty::Computed
    }

    fn id(&self) -> &'static str {
        "optimizer-step"
    }

    fn source(&self) -> &'static str {
        "PyTorch torch/optim/adam.py _multi_tensor_adam (`exp_avg_sq_sqrt = torch._foreach_sqrt(device_exp_avg_sqs)`); measured: data/measured_h200.json (full-m7b-bf16-pure-s512-m1-ckpt, full-tl-…-fused)"
    }

    fn terms(&self, run: &Run, _notes: &mut Vec<String>) -> Result<Vec<Term>, NotEstimable> {
        // DeepSpeed steps its own (fused) optimizer on the partitions.
        let Some(trainable) = run.trainable().filter(|_| run.zero_stage == 0) else { return Ok(vec![]) };
        let name = run.resolved.role(Role::Optimizer).and_then(|v| v.value.as_str().map(str::to_owned)).unwrap_or_else(|| "adamw".into());
        // BAdam steps its active block's fp32 copy: the gradient upcast to fp32
        // (`block_optim.py`: `hp_param.grad = lp_param.grad.float()`) and the base AdamW's foreach √v.
        if run.typed::<Optimizer>().is_some_and(|o| o.kind == OptimizerKind::BlockAdam) {
            return Ok(vec![
                Term::fixed(
                    "optimizer step workspace",
                    trainable * 8.0 / run.zero_divisor(State::Optimizer),
                    "active block's parameters × 8 B (fp32 gradient copy and foreach AdamW's √v, during the step only)",
                )
                .live(Live::Step),
            ]);
        }
        if !foreach_adam(&name) || run.resolved.role(Role::OptimizerInBackward).and_then(|v| v.value.as_bool()) == Some(true) {
            return Ok(vec![]);
        }
        // `_foreach_sqrt` of the second moments: one new tensor per parameter, in the
        // state's dtype (the parameter's: fp32, or 16-bit in pure 16-bit training),
        // for all parameters of a device and dtype at once; freed when the step ends.
        let per = per_param_of(run);
        // Embeddings and head kept in fp32 (`fp32_embeddings`): their √v is fp32.
        let fp32 = run.fp32_part();
        let and_fp32 = if fp32 > 0.0 { format!(", the embeddings and head × {} B", 2.0 * per_param_of(run)) } else { String::new() };
        let trainable = trainable + fp32;
        let divisor = run.zero_divisor(State::Optimizer);
        Ok(vec![
            Term::fixed(
                "optimizer step workspace",
                trainable * per / divisor,
                format!("trainable parameters × {per} B{and_fp32} (foreach AdamW's √v, during the step only)"),
            )
            .live(Live::Step),
        ])
    }
}
