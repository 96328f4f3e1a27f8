//! Optimizer states of the trainable parameters. FSDP divides them over the data-parallel world.

use super::{MemoryComponent, Run, State, Term};
use crate::estimate::NotEstimable;
use crate::schema::Role;
use crate::schema::typed::{Optimizer, OptimizerKind, Precision, StateBits};

pub(crate) struct OptimizerStates;

/// Optimizer state bytes per trainable fp32 parameter (FACTS.md §4, HF
/// `model_memory_anatomy.md` / `perf_train_gpu_one.md`): AdamW 8 B (two fp32
/// moments), 8-bit AdamW 2 B, SGD with momentum 4 B, SGD 0 B, Adafactor "slightly
/// more than 4 bytes" (4 B here), Lion one fp32 momentum (4 B, our inference); torchao's
/// `AdamW8bit` as bitsandbytes' (2 B), its `AdamW4bit` 1 B.
/// 8-bit Lion is counted like 8-bit AdamW (2 B), as before the typed roles.
/// Adam-mini keeps Adam's first moment whole and one second moment per head or output
/// neuron (`adam_mini.py`: `state["m"] = torch.zeros_like(p.grad, …)`, `state["vmean"]` of
/// `neuron_per_gpu` or `head_per_gpu` rows): 4 B (the `vmean` scalars, under 0.1 % of the
/// parameters, are not counted). GaLore/APOLLO are priced per linear (`low_rank`); BAdam
/// keeps fp32 AdamW moments of its active block (8 B) and that block's fp32 master copy (4 B):
/// 12 B, in any precision (`block_optim.py`: `param.clone().float()`).
pub(crate) fn bytes_per_parameter(optimizer: Optimizer) -> f64 {
    match (optimizer.kind, optimizer.state) {
        (OptimizerKind::Adam, StateBits::Full) | (OptimizerKind::LowRankAdam, _) => 8.0,
        (OptimizerKind::Adam | OptimizerKind::Lion, StateBits::Eight) => 2.0,
        // torchao `AdamW4bit`: two 4-bit moments (its per-block scales, a few percent more, not counted).
        (OptimizerKind::Adam | OptimizerKind::Lion, StateBits::Four) => 1.0,
        (OptimizerKind::SgdMomentum, _) => 4.0,
        (OptimizerKind::Sgd, _) => 0.0,
        (OptimizerKind::Adafactor, _) => 4.0,
        (OptimizerKind::Lion, StateBits::Full) => 4.0,
        (OptimizerKind::AdamMini, _) => 4.0,
        (OptimizerKind::BlockAdam, _) => 12.0,
        // RMSprop / Adagrad / schedule-free SGD: one state tensor (bitsandbytes' 8-bit RMSprop: 1 B).
        (OptimizerKind::OneMoment, StateBits::Full) => 4.0,
        (OptimizerKind::OneMoment, _) => 1.0,
        // AdEMAMix / GrokAdamW: three state tensors (bitsandbytes' 8-bit AdEMAMix: 3 B).
        (OptimizerKind::ThreeMoments, StateBits::Full) => 12.0,
        (OptimizerKind::ThreeMoments, _) => 3.0,
        // LOMO keeps no state; AdaLomo's factored second moment is one row and one column per
        // matrix (`adalomo.py` `exp_avg_sq_row` / `exp_avg_sq_col`), under 0.1 % of the parameters.
        (OptimizerKind::Lomo, _) => 0.0,
    }
}

/// GaLore and APOLLO on the catalog's linears (LLaMA-Factory `galore_target: all` /
/// `apollo_target: all`: every `nn.Linear` but `lm_head`, `model_utils/misc.py`
/// `find_all_linear_modules`): for a d_out × d_in weight, Adam's two moments of the gradient
/// projected to rank r, r × max(d_in, d_out) each, and the projection, r × min(d_in, d_out)
/// (`galore_projector.py`: right projection `Vh[:rank]` when d_out ≥ d_in, else left `U[:, :rank]`;
/// `adamw.py`: `state["exp_avg"] = torch.zeros_like(grad)` on the projected gradient; APOLLO's
/// random projection is stored too, `random_projector.py`). The other trainable parameters
/// (embeddings, head, norms) get full Adam. Elements, in the state dtype.
fn low_rank_elements(run: &Run, rank: f64, trainable: f64) -> Option<f64> {
    let entry = run.entry?;
    let linears: Vec<_> = crate::estimate::parts::linears(entry).into_iter().filter(|l| l.module != crate::schema::typed::Module::LmHead).collect();
    let projected: f64 = linears.iter().map(|l| l.parameters()).sum();
    let states: f64 = linears.iter().map(|l| (2.0 * rank * l.d_in.max(l.d_out) + rank * l.d_in.min(l.d_out)) * l.count).sum();
    Some(states + 2.0 * (trainable - projected).max(0.0))
}

impl MemoryComponent for OptimizerStates {
    fn certainty(&self) -> super::Certainty {
        super::Certainty::States
    }

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
        let optimizer = name.parse::<Optimizer>().unwrap_or_else(|_| {
            notes.push(format!("optimizer `{name}` not recognised: AdamW's 8 B per parameter assumed (an assumption, not the run's optimizer)"));
            Optimizer::ADAMW
        });
        let per_param = bytes_per_parameter(optimizer);
        // BAdam's fp32 block copy and moments are fp32 whatever the model's dtype.
        if optimizer.kind == OptimizerKind::BlockAdam {
            return Ok(vec![Term::fixed(
                "optimizer states",
                trainable * per_param / run.zero_divisor(State::Optimizer),
                format!("active block's parameters × {per_param} B ({name}: fp32 master copy, AdamW's m and v)"),
            )]);
        }
        if optimizer.kind == OptimizerKind::LowRankAdam {
            // The moments and the projection are in the parameter's dtype.
            let state_bytes = if matches!(run.precision, Precision::True(_)) { 2.0 } else { 4.0 };
            let rank = run.number(Role::OptimizerRank).filter(|r| *r >= 1.0);
            match rank.and_then(|r| low_rank_elements(run, r, trainable)) {
                Some(elements) => {
                    let rank = rank.unwrap_or_default();
                    return Ok(vec![Term::fixed(
                        "optimizer states",
                        elements * state_bytes / run.zero_divisor(State::Optimizer),
                        format!("{name}: rank-{rank} moments and projection per linear, full Adam for the rest, × {state_bytes} B"),
                    )]);
                }
                None => notes.push(format!("`{name}`: rank or model shape unknown, full Adam states assumed (an upper bound)")),
            }
        }
        // PyTorch keeps full-precision states in the parameter's dtype (`torch.optim.AdamW`
        // `_init_group`: `exp_avg = torch.zeros_like(p)`): half the bytes when the trained
        // parameters are 16-bit (pure bf16/fp16). 8-bit states are 8-bit whatever the dtype, and
        // bitsandbytes' 32-bit optimizers (`paged_adamw_32bit`) keep fp32 states whatever the
        // parameter's dtype (`optim/optimizer.py` `Optimizer2State.init_state`: `optim_bits == 32`
        // → `get_state_buffer(p, dtype=torch.float32)`).
        let bnb_32bit = optimizer.bnb && optimizer.state == StateBits::Full;
        let halved = matches!(run.precision, Precision::True(_)) && per_param >= 4.0 && !bnb_32bit;
        let per_param = if halved { per_param / 2.0 } else { per_param };
        // Embeddings and head kept in fp32 (`fp32_embeddings`): their states are fp32.
        let fp32 = if halved { run.fp32_part() } else { 0.0 };
        let bytes = (trainable + fp32) * per_param / run.zero_divisor(State::Optimizer);
        // bitsandbytes' paged optimizers keep every state of a tensor of 1e5 elements or more in
        // CUDA managed memory (`optim/optimizer.py` `get_state_buffer`: `F.get_paged(...)` when
        // `is_paged` and `p.numel() >= 1e5`; `functional.py` `get_paged` → `lib.cget_managed_ptr`,
        // `csrc/pythonInterface.cpp`: `cudaMallocManaged(&ptr, bytes, cudaMemAttachHost)`; bitsandbytes
        // @ 95f9af30), wrapped with `torch.frombuffer`: PyTorch's caching allocator never sees them
        // (`max_memory_allocated` does not count them), and the driver pages them to host memory when
        // the device is full instead of failing ("automatic page-to-page transfers between the CPU and
        // GPU for error-free GPU processing in the scenario where the GPU occasionally runs
        // out-of-memory", Dettmers et al. 2023, arXiv:2305.14314 §2, Paged Optimizers). Measured on an
        // H100 (data/measured_h100.json, Qwen2.5-0.5B full fine-tune): PagedAdamW8bit's and
        // PagedAdamW32bit's allocator peaks are the unpaged peak without the states; the device holds
        // them on top while it has room (+1.000 / +3.750 GiB outside the allocator). So they are not
        // part of the peak that decides an out-of-memory error: said in a note, not summed.
        if optimizer.paged {
            notes.push(format!(
                "optimizer states {} ({name}: trainable parameters × {per_param} B) are bitsandbytes paged memory (CUDA managed, outside PyTorch's allocator): \
                 not in the peak, since they move to host memory when the GPU is full (slower steps, no out-of-memory error); nvidia-smi shows them on top of the peak while the GPU has room",
                crate::estimate::human_bytes(bytes)
            ));
            return Ok(vec![]);
        }
        let text = if fp32 > 0.0 {
            format!("trainable parameters × {per_param} B ({name}), the embeddings and head × {} B", 2.0 * per_param)
        } else {
            format!("trainable parameters × {per_param} B ({name})")
        };
        Ok(vec![Term::fixed("optimizer states", bytes, text)])
    }
}
