//! Stage 3 of the pipeline: the peak-memory model.
//!
//! A `MemoryModel` is built from a resolved config (roles, memory terms) and
//! the manifest (memory facts, calibration); it gives the peak for any micro
//! batch, component by component, and the largest micro batch that fits a GPU.
//! Every constant cites its source (`../shared/peers/FACTS.md`); where a
//! figure is our own inference, the comment says so.

pub mod expr;
pub mod plan;
pub mod zero;

use crate::load::Node;
use crate::resolve::ResolvedConfig;
use crate::schema::training_config::Memory;
use crate::schema::{GpuTarget, Role};
use crate::settings::Settings;
use serde::Serialize;

const MIB: f64 = 1024.0 * 1024.0;
const GIB: f64 = 1024.0 * MIB;

/// CUDA context and kernels when nothing says otherwise: furiousteabag/vram-calculator's
/// constant `cudaKernels = 1000 MiB`; HF measured 1343 MB on a V100 and vram.asmirnov
/// reports 300 MiB–2 GiB (FACTS.md §4). Override with `memory.cuda_context_mib`.
pub const DEFAULT_CUDA_CONTEXT_MIB: f64 = 1000.0;

/// Fraction of usable memory above which the estimate leaves too little headroom
/// (MEM002): the model aims at ±10 % accuracy, so within 10 % of usable memory an
/// underestimate overflows.
pub const HEADROOM_WARNING: f64 = 0.90;

/// Training precision as the memory model sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Precision {
    Fp64,
    Fp32,
    /// AMP: fp32 weights and master copy, 16-bit compute copies.
    Mixed16,
    /// Pure 16-bit weights (Lightning `16-true`/`bf16-true`).
    True16,
    /// Transformer Engine fp8 with fp32 master weights.
    Fp8Mixed,
}

impl Precision {
    /// Lightning, native and plain spellings (FACTS.md §6 lists Lightning's).
    pub fn parse(value: &serde_json::Value) -> Option<Precision> {
        let text = match value {
            serde_json::Value::Number(n) => n.to_string(),
            serde_json::Value::String(s) => s.to_ascii_lowercase(),
            _ => return None,
        };
        Some(match text.as_str() {
            "64" | "64-true" | "fp64" => Precision::Fp64,
            "32" | "32-true" | "fp32" | "no" => Precision::Fp32,
            "16" | "16-mixed" | "bf16" | "bf16-mixed" | "fp16" | "mixed" => Precision::Mixed16,
            "16-true" | "bf16-true" => Precision::True16,
            "fp8" | "fp8-mixed" | "transformer-engine" | "transformer-engine-float16" => Precision::Fp8Mixed,
            _ => return None,
        })
    }

    pub fn describe(self) -> &'static str {
        match self {
            Precision::Fp64 => "fp64",
            Precision::Fp32 => "fp32",
            Precision::Mixed16 => "mixed 16-bit: fp32 weights + 16-bit copies",
            Precision::True16 => "pure 16-bit",
            Precision::Fp8Mixed => "fp8 with fp32 master weights",
        }
    }

    /// Bytes per parameter for weights. fp32 4 B; mixed precision 6 B (fp32 weights
    /// + 16-bit copies, HF `model_memory_anatomy.md`); pure 16-bit 2 B; fp8 with fp32
    /// master weights 5 B (4 + 1 B fp8 copy: our inference from Transformer Engine's design).
    pub fn weight_bytes(self) -> f64 {
        match self {
            Precision::Fp64 => 8.0,
            Precision::Fp32 => 4.0,
            Precision::Mixed16 => 6.0,
            Precision::True16 => 2.0,
            Precision::Fp8Mixed => 5.0,
        }
    }

    /// Bytes per trainable parameter for gradients: 4 B ("always fp32", HF
    /// `model_memory_anatomy.md`) except pure 16-bit (2 B) and fp64 (8 B).
    pub fn gradient_bytes(self) -> f64 {
        match self {
            Precision::Fp64 => 8.0,
            Precision::True16 => 2.0,
            _ => 4.0,
        }
    }

    /// Activation bytes relative to the 16-bit activations Korthikanti's formula counts.
    pub fn activation_factor(self) -> f64 {
        match self {
            Precision::Fp64 => 4.0,
            Precision::Fp32 => 2.0,
            _ => 1.0,
        }
    }
}

/// Optimizer state bytes per trainable parameter (FACTS.md §4, HF
/// `model_memory_anatomy.md` / `perf_train_gpu_one.md`): AdamW 8 B (two fp32
/// moments), 8-bit AdamW 2 B, SGD with momentum 4 B, SGD 0 B, Adafactor "slightly
/// more than 4 bytes" (4 B here), Lion one fp32 momentum (4 B, our inference).
pub fn optimizer_bytes(name: &str) -> Option<f64> {
    let name = name.to_ascii_lowercase();
    Some(match name.as_str() {
        "adamw" | "adam" | "adamw_torch" | "adamw_torch_fused" | "adamw_hf" | "torch.optim.adamw" | "torch.optim.adam" => 8.0,
        "adamw-8bit" | "adamw_8bit" | "adamw_bnb_8bit" | "paged_adamw_8bit" | "lion_8bit" => 2.0,
        "sgd-momentum" => 4.0,
        "sgd" => 0.0,
        "adafactor" => 4.0,
        "lion" => 4.0,
        _ => return None,
    })
}

/// One row of the breakdown.
#[derive(Clone, Debug, Serialize)]
pub struct Component {
    pub name: String,
    pub bytes: f64,
    /// What it depends on, for the table.
    pub depends_on: String,
    /// Whether it grows with the micro batch.
    pub per_sample: bool,
}

/// The memory model of one resolved config.
#[derive(Clone, Debug)]
pub struct MemoryModel {
    fixed: Vec<Component>,
    /// Components that depend on the micro batch: (name, depends_on, bytes at micro batch m).
    scaling: Vec<ScalingTerm>,
    pub activations_modelled: bool,
    /// Whether the per-sample part covers the whole model (a declared per-sample
    /// size or the transformer formula), not only some extra tensors.
    pub activations_complete: bool,
    /// What the model leaves out, said in the output.
    pub notes: Vec<String>,
    calibration: Option<Calibration>,
}

#[derive(Clone, Debug)]
enum ScalingTerm {
    Linear { name: String, depends_on: String, per_sample: f64 },
    Expression { name: String, depends_on: String, expr: expr::Expr, lookup: Vec<(String, f64)> },
}

/// A fit of measured peaks: peak(m) = fixed + per_sample × m.
#[derive(Clone, Debug, Serialize)]
pub struct Calibration {
    pub points: usize,
    pub fixed_bytes: f64,
    pub per_sample_bytes: f64,
    /// Largest |measured − formula| over the points, before calibration.
    pub formula_error_bytes: f64,
    /// Largest |measured − fit| over the points (0 for one or two points).
    pub residual_bytes: f64,
}

/// Why there is no estimate.
#[derive(Clone, Debug, PartialEq)]
pub struct NotEstimable(pub String);

impl MemoryModel {
    pub fn build(resolved: &ResolvedConfig, settings: &Settings, gpu: Option<&GpuTarget>) -> Result<MemoryModel, NotEstimable> {
        let role_f64 = |role: Role| resolved.role(role).and_then(|v| v.value.as_f64());
        let role_str = |role: Role| resolved.role(role).and_then(|v| v.value.as_str().map(str::to_owned));
        let memory = memory_facts(resolved, settings);
        let mut notes = Vec::new();
        let precision = resolved.role(Role::Precision).and_then(|v| Precision::parse(&v.value)).unwrap_or_else(|| {
            notes.push("precision not stated: fp32 assumed".into());
            Precision::Fp32
        });
        let world = resolved.batch.world_size.unwrap_or(1) as f64;
        let mut fixed = Vec::new();

        if let Some(parameters) = role_f64(Role::Parameters) {
            let trainable_fraction = role_f64(Role::TrainableFraction).unwrap_or(1.0).clamp(0.0, 1.0);
            let trainable = parameters * trainable_fraction;
            let zero_stage = role_f64(Role::ZeroStage).unwrap_or(0.0) as u64;
            let fsdp = resolved.role(Role::Fsdp).and_then(|v| v.value.as_bool()).unwrap_or(false);
            let offload_optimizer = resolved.role(Role::OffloadOptimizer).is_some_and(|v| v.value.as_bool() == Some(true) || v.value.as_str() == Some("cpu"));
            if zero_stage >= 1 {
                // DeepSpeed's own estimator, exactly (FACTS.md §2): it assumes mixed
                // precision with Adam, 2 B of 16-bit params + 18 B of states sharded over N.
                let devices = resolved.batch.world_size.unwrap_or(1);
                let states = if zero_stage >= 3 {
                    let largest = role_f64(Role::LargestLayerParameters).unwrap_or_else(|| {
                        notes.push("largest layer unknown: ZeRO-3's gathered layer (4 B × largest layer) left out".into());
                        0.0
                    });
                    let offload_params = resolved.role(Role::OffloadParams).and_then(|v| v.value.as_bool()).unwrap_or(false);
                    zero::zero3(parameters, largest, devices, 1, offload_optimizer, offload_params, true, 1.5)
                } else {
                    zero::zero2(parameters, devices, 1, offload_optimizer, 1.5)
                };
                fixed.push(Component {
                    name: format!("model states (ZeRO-{zero_stage}, DeepSpeed estimator)"),
                    bytes: states.gpu as f64,
                    depends_on: format!("parameters, {} data-parallel GPUs, offload", devices),
                    per_sample: false,
                });
            } else {
                // FSDP shards parameters, gradients and optimizer states like ZeRO-3.
                let shard = if fsdp { world } else { 1.0 };
                let quantized = match role_str(Role::BaseWeights).as_deref() {
                    Some("int8") => Some(1.0),
                    Some("int4") => Some(0.5),
                    _ => None,
                };
                let weights = match quantized {
                    // QLoRA: the frozen base in 8/4-bit; the adapters in the training precision.
                    Some(bytes) => parameters * (1.0 - trainable_fraction) * bytes + trainable * precision.weight_bytes(),
                    None => parameters * precision.weight_bytes(),
                };
                fixed.push(Component {
                    name: "weights".into(),
                    bytes: weights / shard,
                    depends_on: format!("parameters × {} B ({})", precision.weight_bytes(), precision.describe()),
                    per_sample: false,
                });
                fixed.push(Component {
                    name: "gradients".into(),
                    bytes: trainable * precision.gradient_bytes() / shard,
                    depends_on: format!("trainable parameters × {} B", precision.gradient_bytes()),
                    per_sample: false,
                });
                let optimizer = role_str(Role::Optimizer).unwrap_or_else(|| "adamw".into());
                let per_param = optimizer_bytes(&optimizer).unwrap_or_else(|| {
                    notes.push(format!("optimizer `{optimizer}` unknown: AdamW's 8 B per parameter assumed"));
                    8.0
                });
                fixed.push(Component {
                    name: "optimizer states".into(),
                    bytes: trainable * per_param / shard,
                    depends_on: format!("trainable parameters × {per_param} B ({optimizer})"),
                    per_sample: false,
                });
            }
            if resolved.role(Role::Ema).and_then(|v| v.value.as_bool()) == Some(true) {
                // One fp32 copy of the parameters (FACTS.md §4, marked there as inference).
                fixed.push(Component { name: "EMA copy".into(), bytes: parameters * 4.0, depends_on: "parameters × 4 B".into(), per_sample: false });
            }
        } else {
            notes.push("parameter count unknown: weights, gradients and optimizer states left out".into());
        }

        let context_mib = memory.cuda_context_mib.unwrap_or(DEFAULT_CUDA_CONTEXT_MIB);
        fixed.push(Component {
            name: "CUDA context".into(),
            bytes: context_mib * MIB,
            depends_on: format!("{context_mib} MiB (memory.cuda_context_mib)"),
            per_sample: false,
        });

        let mut scaling = Vec::new();
        let mut activations_modelled = false;
        let mut activations_complete = false;
        if let Some(text) = &memory.activation_bytes_per_sample {
            let per_sample = expr::quantity(text).map_err(|e| NotEstimable(format!("memory.activation_bytes_per_sample `{text}`: {e}")))?;
            scaling.push(ScalingTerm::Linear { name: "activations".into(), depends_on: format!("micro batch × {text}"), per_sample });
            activations_modelled = true;
            activations_complete = true;
        } else if let Some(per_sample) = transformer_activations(resolved, precision) {
            scaling.push(ScalingTerm::Linear { name: "activations (transformer)".into(), depends_on: per_sample.1, per_sample: per_sample.0 });
            activations_modelled = true;
            activations_complete = true;
            if let Some((logits, text)) = logits_per_sample(resolved) {
                scaling.push(ScalingTerm::Linear { name: "logits".into(), depends_on: text, per_sample: logits });
            }
        }
        for term in &memory.terms {
            let parsed = expr::parse(&term.bytes).map_err(|e| NotEstimable(format!("memory term `{}`: {e}", term.name)))?;
            let names = parsed.names();
            let mut lookup = Vec::new();
            for name in &names {
                if name == "micro_batch" {
                    continue;
                }
                let value =
                    lookup_name(resolved, name).ok_or_else(|| NotEstimable(format!("memory term `{}`: `{name}` is not a number in the config", term.name)))?;
                lookup.push((name.clone(), value));
            }
            if names.iter().any(|n| n == "micro_batch") {
                activations_modelled = true;
            }
            scaling.push(ScalingTerm::Expression { name: term.name.clone(), depends_on: names.join(", "), expr: parsed, lookup });
        }
        if activations_modelled && !activations_complete {
            notes.push("only the declared memory terms grow with the micro batch: the estimate is a lower bound".into());
        }
        if !activations_modelled {
            notes.push("activations not modelled: declare memory.activation_bytes_per_sample, memory terms, or the transformer shape (sequence_length, hidden_size, layers, heads)".into());
        }
        let mut model = MemoryModel { fixed, scaling, activations_modelled, activations_complete, notes, calibration: None };
        if role_f64(Role::Parameters).is_none() && !model.activations_modelled && memory.terms.is_empty() {
            let points = calibration_points(settings, resolved, gpu);
            if points.is_empty() {
                return Err(NotEstimable("the config states no parameter count, activation size, memory term or calibration point".into()));
            }
        }
        model.calibration = model.calibrate(&calibration_points(settings, resolved, gpu));
        Ok(model)
    }

    fn formula_components(&self, micro: u64) -> Vec<Component> {
        let mut out = self.fixed.clone();
        for term in &self.scaling {
            match term {
                ScalingTerm::Linear { name, depends_on, per_sample } => {
                    out.push(Component { name: name.clone(), bytes: per_sample * micro as f64, depends_on: depends_on.clone(), per_sample: true })
                }
                ScalingTerm::Expression { name, depends_on, expr, lookup } => {
                    let value = expr
                        .eval(&|n: &str| if n == "micro_batch" { Some(micro as f64) } else { lookup.iter().find(|(k, _)| k == n).map(|(_, v)| *v) })
                        .unwrap_or(0.0);
                    out.push(Component {
                        name: name.clone(),
                        bytes: value,
                        depends_on: depends_on.clone(),
                        per_sample: depends_on.split(", ").any(|d| d == "micro_batch"),
                    })
                }
            }
        }
        out
    }

    fn formula_total(&self, micro: u64) -> f64 {
        self.formula_components(micro).iter().map(|c| c.bytes).sum()
    }

    /// The breakdown at a micro batch; with calibration, a last row brings the
    /// total to the measured fit.
    pub fn components(&self, micro: u64) -> Vec<Component> {
        let mut out = self.formula_components(micro);
        if let Some(calibration) = &self.calibration {
            let fitted = calibration.fixed_bytes + calibration.per_sample_bytes * micro as f64;
            let formula: f64 = out.iter().map(|c| c.bytes).sum();
            out.push(Component {
                name: "calibration (measured − formula)".into(),
                bytes: fitted - formula,
                depends_on: format!("{} measured peak(s)", calibration.points),
                per_sample: false,
            });
        }
        out
    }

    pub fn total(&self, micro: u64) -> f64 {
        match &self.calibration {
            Some(c) => c.fixed_bytes + c.per_sample_bytes * micro as f64,
            None => self.formula_total(micro),
        }
    }

    /// The config names the memory terms read (besides `micro_batch`).
    pub fn dependencies(&self) -> Vec<String> {
        let mut out = Vec::new();
        for term in &self.scaling {
            if let ScalingTerm::Expression { lookup, .. } = term {
                out.extend(lookup.iter().map(|(name, _)| name.clone()));
            }
        }
        out
    }

    pub fn calibration(&self) -> Option<&Calibration> {
        self.calibration.as_ref()
    }

    /// The largest micro batch whose peak fits `usable` bytes (up to 65,536).
    pub fn max_micro_batch(&self, usable: f64) -> Option<u64> {
        if self.total(1) > usable {
            return None;
        }
        if !self.activations_modelled && self.calibration.as_ref().is_none_or(|c| c.per_sample_bytes <= 0.0) {
            return None;
        }
        let (mut low, mut high) = (1u64, 2u64);
        while high <= 65_536 && self.total(high) <= usable {
            low = high;
            high *= 2;
        }
        let mut high = high.min(65_537);
        while high - low > 1 {
            let mid = (low + high) / 2;
            if self.total(mid) <= usable { low = mid } else { high = mid }
        }
        Some(low)
    }

    /// Two points fix both parts exactly; one fixes the fixed part and keeps the
    /// formula's per-sample part; more are fitted by least squares.
    fn calibrate(&self, points: &[(u64, f64)]) -> Option<Calibration> {
        if points.is_empty() {
            return None;
        }
        let formula_error = points.iter().map(|(m, peak)| (peak - self.formula_total(*m)).abs()).fold(0.0, f64::max);
        let formula_slope = self.formula_total(1) - self.formula_total(0);
        let distinct: Vec<u64> = {
            let mut m: Vec<u64> = points.iter().map(|p| p.0).collect();
            m.sort_unstable();
            m.dedup();
            m
        };
        let (fixed, per_sample) = if distinct.len() < 2 {
            let mean_fixed = points.iter().map(|(m, peak)| peak - formula_slope * *m as f64).sum::<f64>() / points.len() as f64;
            (mean_fixed, formula_slope)
        } else {
            let n = points.len() as f64;
            let mean_x = points.iter().map(|p| p.0 as f64).sum::<f64>() / n;
            let mean_y = points.iter().map(|p| p.1).sum::<f64>() / n;
            let sxy: f64 = points.iter().map(|p| (p.0 as f64 - mean_x) * (p.1 - mean_y)).sum();
            let sxx: f64 = points.iter().map(|p| (p.0 as f64 - mean_x).powi(2)).sum();
            let slope = sxy / sxx;
            (mean_y - slope * mean_x, slope)
        };
        let residual = points.iter().map(|(m, peak)| (peak - (fixed + per_sample * *m as f64)).abs()).fold(0.0, f64::max);
        Some(Calibration {
            points: points.len(),
            fixed_bytes: fixed,
            per_sample_bytes: per_sample,
            formula_error_bytes: formula_error,
            residual_bytes: residual,
        })
    }
}

/// The native config's memory facts, over the manifest's.
fn memory_facts(resolved: &ResolvedConfig, settings: &Settings) -> Memory {
    let mut memory = settings.manifest.memory.clone().unwrap_or_default();
    if let Some(node) = resolved.tree.get("memory")
        && let Ok(native) = serde_json::from_value::<Memory>(node.to_json())
    {
        if native.activation_bytes_per_sample.is_some() {
            memory.activation_bytes_per_sample = native.activation_bytes_per_sample;
        }
        if native.cuda_context_mib.is_some() {
            memory.cuda_context_mib = native.cuda_context_mib;
        }
        memory.terms.extend(native.terms);
    }
    memory
}

/// Measured (micro batch, peak bytes) for this stage: those taken on this GPU,
/// else those of any GPU (what a batch needs depends on the model, not the card).
fn calibration_points(settings: &Settings, resolved: &ResolvedConfig, gpu: Option<&GpuTarget>) -> Vec<(u64, f64)> {
    let for_stage: Vec<_> = settings.manifest.calibration.iter().filter(|p| p.stage.is_none() || p.stage == resolved.stage).collect();
    let same_gpu: Vec<_> = for_stage.iter().filter(|p| gpu.is_none_or(|g| g.id == p.gpu)).collect();
    let chosen: Vec<_> = if same_gpu.is_empty() { for_stage.iter().collect() } else { same_gpu };
    chosen.iter().map(|p| (p.micro_batch, p.peak_mib * MIB)).collect()
}

/// A name in a memory term: a role (`micro_batch`, `heads`) or a dotted path of the config.
fn lookup_name(resolved: &ResolvedConfig, name: &str) -> Option<f64> {
    if let Some(role) = Role::from_name(name) {
        if let Some(value) = resolved.role(role).and_then(|v| v.value.as_f64()) {
            return Some(value);
        }
        if role == Role::Accumulation {
            return resolved.batch.accumulation_steps().map(|a| a as f64);
        }
    }
    resolved.tree.get_dotted(name).and_then(Node::as_f64)
}

/// Korthikanti et al. 2022, Table 2 (FACTS.md §4), per micro-batch sample, bytes:
/// per layer s·h·(34 + 5·a·s/h) for 16-bit activations without parallelism; SDPA and
/// flash attention do not keep the s×s scores (drop 5·a·s/h); selective recompute
/// keeps 34·s·h; full checkpointing keeps the layer input 2·s·h per layer plus one
/// layer's full activations while it is recomputed.
fn transformer_activations(resolved: &ResolvedConfig, precision: Precision) -> Option<(f64, String)> {
    let get = |role: Role| resolved.role(role).and_then(|v| v.value.as_f64());
    let (s, h, layers) = (get(Role::SequenceLength)?, get(Role::HiddenSize)?, get(Role::Layers)?);
    let heads = get(Role::Heads).unwrap_or(1.0);
    let attention = resolved.role(Role::Attention).and_then(|v| v.value.as_str().map(str::to_owned)).unwrap_or_else(|| "eager".into());
    let checkpointing = resolved.role(Role::ActivationCheckpointing).and_then(|v| v.value.as_str().map(str::to_owned)).unwrap_or_else(|| "none".into());
    let scores = if attention == "eager" { 5.0 * heads * s / h } else { 0.0 };
    let full_layer = s * h * (34.0 + scores);
    let per_sample = match checkpointing.as_str() {
        "full" => layers * 2.0 * s * h + full_layer,
        "selective" => layers * 34.0 * s * h,
        _ => layers * full_layer,
    } * precision.activation_factor();
    let text = format!("micro batch × {layers} layers × s·h·(34 + 5·a·s/h) (s={s}, h={h}, a={heads}, {attention}, checkpointing {checkpointing})");
    Some((per_sample, text))
}

/// fp32 logits and their gradient, s·V·4 B × 2 per sample (vram-calculator's `2·4·batch·seq·vocab`).
fn logits_per_sample(resolved: &ResolvedConfig) -> Option<(f64, String)> {
    let get = |role: Role| resolved.role(role).and_then(|v| v.value.as_f64());
    let (s, v) = (get(Role::SequenceLength)?, get(Role::VocabSize)?);
    Some((s * v * 8.0, format!("micro batch × {s} × vocabulary {v} × 8 B")))
}

/// An estimate for one config (or stage) on one GPU at one micro batch.
#[derive(Clone, Debug, Serialize)]
pub struct Estimate {
    pub gpu: String,
    pub stage: Option<String>,
    pub micro_batch: u64,
    pub components: Vec<Component>,
    pub total_bytes: f64,
    pub capacity_bytes: f64,
    pub usable_bytes: f64,
    pub safety_margin: f64,
    pub fits: bool,
    pub max_micro_batch: Option<u64>,
    pub calibration: Option<Calibration>,
    pub notes: Vec<String>,
}

pub fn estimate(model: &MemoryModel, resolved: &ResolvedConfig, gpu: &GpuTarget, margin: f64, micro: u64) -> Estimate {
    let capacity = gpu.memory_bytes() as f64;
    let usable = capacity * margin;
    let total = model.total(micro);
    Estimate {
        gpu: gpu.id.clone(),
        stage: resolved.stage.clone(),
        micro_batch: micro,
        components: model.components(micro),
        total_bytes: total,
        capacity_bytes: capacity,
        usable_bytes: usable,
        safety_margin: margin,
        fits: total <= usable,
        max_micro_batch: model.max_micro_batch(usable),
        calibration: model.calibration().cloned(),
        notes: model.notes.clone(),
    }
}

/// `12.34 GiB`, `512 MiB`.
pub fn human_bytes(bytes: f64) -> String {
    if bytes.abs() >= GIB { format!("{:.2} GiB", bytes / GIB) } else { format!("{:.0} MiB", bytes / MIB) }
}
