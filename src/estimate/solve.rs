//! Solving for the one input a config leaves open. When everything but the
//! sequence length is known (torchtune's `max_seq_len: null`: the longest sample
//! decides), the estimate says the longest sequence that fits; when a sharded run's
//! data-parallel world is left to the launcher, the fewest GPUs it fits on. Each is
//! found by rebuilding the memory model with that one input set, by bisection
//! (the peak grows with the sequence length and shrinks with the world), and shown
//! as such: never as the config's own value.

use super::{MemoryModel, NotEstimable};
use crate::resolve::model::{ModelFacts, ModelLookup};
use crate::resolve::{ResolvedConfig, RoleValue};
use crate::schema::{GpuTarget, Role};
use crate::settings::Settings;
use std::sync::Arc;

/// Largest data-parallel world searched (GPUs).
pub(crate) const MAX_WORLD: u64 = 4096;
/// Sequence lengths are reported in steps of this many tokens (a length a config would state).
pub(crate) const SEQUENCE_STEP: u64 = 64;
/// Longest sequence searched when the model states no maximum position.
const MAX_SEQUENCE: u64 = 1 << 20;

/// The input solved for, and the model that prices the run at it.
pub(crate) struct Solved {
    pub value: u64,
    pub model: MemoryModel,
    pub resolved: ResolvedConfig,
    /// A world solved for a run whose sequence length is unbounded too: the length it
    /// was solved at (the shortest searched), so the world is a lower bound.
    pub at_sequence: Option<u64>,
}

/// Sets the view's sequence length to `tokens`, read as written in no file (at the stated
/// key when there is one, else at the model's).
pub(crate) fn set_sequence_length(view: &mut ResolvedConfig, tokens: u64) {
    let template = view.role(Role::SequenceLength).or_else(|| view.role(Role::Model)).cloned();
    let path = format!("(solved: {tokens} tokens)");
    let value = match template {
        Some(template) => RoleValue { value: tokens.into(), path, from_model: None, ..template },
        None => RoleValue { value: tokens.into(), path, file: Arc::clone(view.source()), span: 0..0, key_span: 0..0, from_override: false, from_model: None },
    };
    view.roles.insert(Role::SequenceLength, value);
}

fn facts(resolved: &ResolvedConfig) -> Option<&ModelFacts> {
    match &resolved.model {
        Some(ModelLookup::Found(facts)) => Some(facts),
        _ => None,
    }
}

/// The longest sequence (a multiple of 64 tokens, at most the model's maximum position)
/// with which the run fits `gpu` at `micro`, when the config bounds no sequence length
/// and the model's shape is known: `Some(Ok)`. `Some(Err)` carries the model at 64 tokens,
/// the shortest searched, when not even that fits (a complete estimate whose verdict holds
/// for every length). `None` when the question does not arise (the length is stated, or
/// the shape unknown).
pub(crate) fn longest_sequence(
    resolved: &ResolvedConfig,
    settings: &Settings,
    gpu: &GpuTarget,
    margin: f64,
    micro: u64,
) -> Option<Result<Solved, Box<Solved>>> {
    if resolved.role(Role::SequenceLength).is_some_and(|v| !v.value.is_null()) {
        return None;
    }
    let cap = facts(resolved).map(|f| f.entry.max_positions).filter(|m| *m > 0).unwrap_or(MAX_SEQUENCE).min(MAX_SEQUENCE);
    let usable = gpu.memory_bytes() as f64 * margin;
    // One copy of the view, its sequence length set for each length tried (the tree is
    // large; a copy per bisection step was most of `check`'s time on the corpus).
    let mut view = resolved.clone();
    let build = |view: &mut ResolvedConfig, tokens: u64| -> Option<MemoryModel> {
        set_sequence_length(view, tokens);
        MemoryModel::build(view, settings, Some(gpu)).ok().filter(|model| model.activations_complete)
    };
    let steps = cap / SEQUENCE_STEP;
    if steps == 0 {
        return None;
    }
    let shortest = build(&mut view, SEQUENCE_STEP)?;
    // Solved for what surely fits: the band's high end (`MemoryModel::high`).
    if shortest.high(micro) > usable {
        return Some(Err(Box::new(Solved { value: SEQUENCE_STEP, model: shortest, resolved: view, at_sequence: None })));
    }
    // Largest k in [1, steps] with k × 64 tokens fitting.
    let (mut low, mut high) = (1, steps);
    while low < high {
        let mid = low + (high - low).div_ceil(2);
        if build(&mut view, mid * SEQUENCE_STEP).is_some_and(|model| model.high(micro) <= usable) { low = mid } else { high = mid - 1 }
    }
    let value = low * SEQUENCE_STEP;
    build(&mut view, value).map(|model| Ok(Solved { value, model, resolved: view, at_sequence: None }))
}

/// The fewest data-parallel GPUs (up to `MAX_WORLD`) over which a sharded run whose world
/// nobody states fits `gpu` at `micro`. `Err` carries the model at `MAX_WORLD` when it fits
/// on no world (what stays unsharded is too large), or why the run cannot be estimated.
///
/// When the sequence length is unbounded too (torchtune's `max_seq_len: null` in a
/// distributed recipe), the world is solved at the shortest length searched (64 tokens)
/// and is a lower bound: longer samples need more GPUs (`Solved::at_sequence`).
pub(crate) fn smallest_world(resolved: &ResolvedConfig, settings: &Settings, gpu: &GpuTarget, margin: f64, micro: u64) -> Result<Solved, Unsolved> {
    let usable = gpu.memory_bytes() as f64 * margin;
    let unbounded = facts(resolved).is_some() && resolved.role(Role::SequenceLength).is_none_or(|v| v.value.is_null());
    let at_sequence = unbounded.then_some(SEQUENCE_STEP);
    // One copy of the view, its world set for each world tried.
    let mut view = resolved.clone();
    if let Some(tokens) = at_sequence {
        set_sequence_length(&mut view, tokens);
    }
    let mut model_on = |world: u64| -> Result<MemoryModel, NotEstimable> {
        view.batch.world_size = Some(world);
        MemoryModel::build(&view, settings, Some(gpu))
    };
    let widest = model_on(MAX_WORLD).map_err(|_| Unsolved::NotEstimable)?;
    // Without activations the answer would be a lower bound on the peak: not solved.
    if !widest.activations_complete {
        return Err(Unsolved::NotEstimable);
    }
    // Solved for what surely fits: the band's high end (`MemoryModel::high`); the caller
    // reports MEM001 only where even the low end does not fit.
    if widest.high(micro) > usable {
        view.batch.world_size = Some(MAX_WORLD);
        return Err(Unsolved::FitsNowhere(Box::new(Solved { value: MAX_WORLD, model: widest, resolved: view, at_sequence })));
    }
    // Smallest W in [1, MAX_WORLD] that fits.
    let (mut low, mut high) = (1, MAX_WORLD);
    while low < high {
        let mid = low + (high - low) / 2;
        if model_on(mid).is_ok_and(|model| model.high(micro) <= usable) { high = mid } else { low = mid + 1 }
    }
    let model = model_on(low).map_err(|_| Unsolved::NotEstimable)?;
    view.batch.world_size = Some(low);
    Ok(Solved { value: low, model, resolved: view, at_sequence })
}

/// Why `smallest_world` found none.
pub(crate) enum Unsolved {
    /// Not even `MAX_WORLD` GPUs hold it: the model at that world.
    FitsNowhere(Box<Solved>),
    /// Not estimable at any world (the caller has the reason from its own estimate).
    NotEstimable,
}
