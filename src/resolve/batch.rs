//! Batch arithmetic: effective batch = micro batch × accumulation × data-parallel world,
//! with world = devices × nodes ÷ (tensor × pipeline × context parallel degrees).
//!
//! Given two of (global batch, micro batch, accumulation) the third is derived
//! as DeepSpeed derives it (FACTS.md §1, `_set_batch_related_parameters`), with
//! one difference: DeepSpeed floor-divides and then fails its consistency
//! assertion; trainlint refuses the derivation up front when it would floor,
//! and says which value cannot be reached (BAT003).

use super::RoleValue;
use crate::dialects::BatchSemantics;
use crate::schema::Role;
use schemars::JsonSchema;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// When the world size is unknown, every data-parallel world from 1 to this many
/// processes is tried (and every divisor of the global batch): the batch values
/// are consistent for some of them, or for none (issue 15 item 2). 1024 GPUs is
/// past most jobs; a divisor of the global batch above it is still found.
pub(crate) const MAX_REASONED_WORLD: u64 = 1024;

/// More world sizes than this are described ("W divides 64"), not listed.
const LISTED_WORLDS: usize = 6;

/// Where the data-parallel world size came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum WorldSource {
    Config,
    CommandLineOrManifest,
    /// A launch script that passes the config (`resolve::launch`).
    Launcher,
    Unknown,
}

/// What is wrong with the batch values themselves.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum BatchProblem {
    /// DeepSpeed needs `train_batch_size` or `train_micro_batch_size_per_gpu`.
    Underspecified,
    /// Deriving `role` would floor: `numerator` is not divisible by `denominator`.
    Floors { role: Role, numerator: u64, denominator: u64 },
    /// The explicit global batch is not micro × accumulation × world.
    GlobalMismatch { global: u64, micro: u64, accumulation: u64, world: u64 },
    /// A batch value is zero or negative (`text` as written).
    NotPositive { role: Role, text: String },
    /// A product of the batch values or parallel degrees does not fit in 64
    /// bits (`product` names the factors, as written).
    Overflow { product: String },
    /// A framework that floors the accumulation (`BatchSemantics::accumulation_floors`)
    /// gets 0: `global ÷ world ÷ micro` < 1, and it refuses to start.
    FloorsToZero { global: u64, micro: u64, world: u64 },
}

/// A global batch that a flooring framework (`BatchSemantics::accumulation_floors`) does
/// not train: it trains `micro × accumulation × world = effective` < `global`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Floored {
    pub global: u64,
    pub micro: u64,
    pub accumulation: u64,
    pub world: u64,
    pub effective: u64,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct BatchView {
    pub micro_batch: Option<u64>,
    pub accumulation: Option<u64>,
    pub global_batch: Option<u64>,
    pub world_size: Option<u64>,
    pub world_source: WorldSource,
    pub effective_batch: Option<u64>,
    /// Values derived from the others, as DeepSpeed derives them.
    pub derived: BTreeMap<Role, u64>,
    /// Batch roles set to `"auto"` (filled in by another tool at launch).
    pub auto: Vec<Role>,
    /// The effective batch this config must keep (its own, else the manifest's).
    pub target: Option<u64>,
    pub problem: Option<BatchProblem>,
    /// The global batch the framework silently lowers by flooring the accumulation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub floored: Option<Floored>,
    /// With the world size unknown: the data-parallel world sizes W for which the
    /// batch values hold (and reach the target, when there is one), found by
    /// running the same derivation for each W. `None` when the world is known, or
    /// nothing ties the batch to it (no batch value, `"auto"`, a value that is
    /// not a whole number). `Some(Worlds::None)`: no world size makes the batch
    /// hold; `problem` then says why (as on a world of 1), or is `None` when
    /// only the target is out of reach.
    pub worlds: Option<Worlds>,
    /// With `world_source` `Launcher`: the script, line and launch flags that give the world.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub launcher: Option<String>,
    /// With `world_source` `Config`: a launch that starts another number of processes, and where
    /// it is (BAT009 where the framework refuses that).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub launched_world: Option<(u64, String)>,
    /// The GPUs `--world-size`, the manifest or a launch gives (the config states none) when the
    /// tensor × pipeline × context-parallel degrees do not divide them: no data-parallel world
    /// (PAR001).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undivided_launch: Option<u64>,
    /// The nodes the config states (`num_nodes`; 1 when it states none), for a division by the
    /// devices of one node (`BatchSemantics::accumulation_per_node`).
    #[serde(skip)]
    pub nodes: u64,
    /// The accumulation was derived by the devices of one node (`BatchSemantics::accumulation_per_node`).
    #[serde(skip)]
    pub per_node: bool,
    /// Which release's batch semantics this view follows, when the framework's releases differ on
    /// this config and the project's version chose one (or stated none): the batch findings' notes
    /// say it (`resolve::versions::batch_semantics`).
    #[serde(skip)]
    pub semantics_note: Option<String>,
}

/// A set of data-parallel world sizes, as it is worded (`describe`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Worlds {
    /// Every world size: nothing in the batch values depends on it.
    Every,
    /// A few world sizes.
    Listed { worlds: Vec<u64> },
    /// Every divisor of `of` (`count` of them).
    Divisors { of: u64, count: usize },
    /// Every world size from 1 to `max`.
    UpTo { max: u64 },
    /// Another set: its smallest members and how many there are (among the sizes tried).
    Some { first: Vec<u64>, count: usize },
    /// No world size.
    None,
}

impl Worlds {
    /// From the sizes that hold among those tried (`tried`: 1..=MAX_REASONED_WORLD
    /// and the divisors of the global batch).
    /// Both sorted, without repeats.
    fn from_set(holds: &[u64], tried: &[u64]) -> Worlds {
        if holds.is_empty() {
            return Worlds::None;
        }
        if holds.len() == tried.len() {
            return Worlds::Every;
        }
        if holds.len() <= LISTED_WORLDS {
            return Worlds::Listed { worlds: holds.to_vec() };
        }
        // The divisors of their least common multiple, when that is what they are
        // (every divisor of the global batch was tried, so none is missing).
        let lcm = holds.iter().try_fold(1u64, |l, w| l.checked_mul(*w / gcd(l, *w)));
        if let Some(lcm) = lcm {
            let all = divisors(lcm);
            if all.len() == holds.len() && all.iter().all(|d| holds.binary_search(d).is_ok()) {
                return Worlds::Divisors { of: lcm, count: all.len() };
            }
        }
        let max = holds.last().copied().unwrap_or(1);
        if u64::try_from(holds.len()).is_ok_and(|n| n == max) {
            return Worlds::UpTo { max };
        }
        Worlds::Some { first: holds.iter().take(LISTED_WORLDS).copied().collect(), count: holds.len() }
    }

    /// "W = 4", "W ∈ {1, 2, 4}", "W dividing 64 (1, 2, 4, 8, 16, 32, 64)", "every world size".
    pub(crate) fn describe(&self) -> String {
        let list = |worlds: &[u64]| worlds.iter().map(u64::to_string).collect::<Vec<_>>().join(", ");
        match self {
            Worlds::Every => "every world size".to_owned(),
            Worlds::Listed { worlds } if worlds.len() == 1 => format!("W = {}", worlds[0]),
            Worlds::Listed { worlds } => format!("W ∈ {{{}}}", list(worlds)),
            Worlds::Divisors { of, count } if *count <= 12 => format!("W dividing {of} ({})", list(&divisors(*of))),
            Worlds::Divisors { of, count } => format!("W dividing {of} ({count} world sizes)"),
            Worlds::UpTo { max } => format!("W ≤ {max}"),
            Worlds::Some { first, count } => format!("{count} world sizes up to {MAX_REASONED_WORLD} (W ∈ {{{}, …}})", list(first)),
            Worlds::None => "no world size".to_owned(),
        }
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// The divisors of `n`, ascending. Exact for n up to 2^40 (every real batch):
/// the search stops at 2^20, so a value of 2^63 does not loop 2^63 times.
pub(crate) fn divisors(n: u64) -> Vec<u64> {
    let mut found = BTreeSet::new();
    let mut d = 1u64;
    while d <= 1 << 20 && d.checked_mul(d).is_some_and(|square| square <= n) {
        if n.is_multiple_of(d) {
            found.insert(d);
            found.insert(n / d);
        }
        d += 1;
    }
    found.into_iter().collect()
}

impl BatchView {
    /// `declared`: the manifest names the file's dialect (`[dialects]`), so a
    /// config without any batch key is not a fragment.
    pub(crate) fn from_roles(
        roles: &BTreeMap<Role, RoleValue>,
        semantics: BatchSemantics,
        world_override: Option<u32>,
        target_default: Option<u64>,
        declared: bool,
    ) -> Self {
        let int = |role: Role| roles.get(&role).and_then(RoleValue::as_u64);
        let auto: Vec<Role> = [Role::MicroBatch, Role::Accumulation, Role::GlobalBatch, Role::Devices]
            .into_iter()
            .filter(|r| roles.get(r).is_some_and(RoleValue::is_auto))
            .collect();
        // Checked: a product that overflows is reported, never wrapped.
        let mut overflow = None;
        let degrees = [Role::TensorParallel, Role::PipelineParallel, Role::ContextParallel].map(|r| int(r).unwrap_or(1).max(1));
        let model_parallel = degrees.iter().try_fold(1u64, |p, d| p.checked_mul(*d));
        if model_parallel.is_none() {
            overflow = Some(format!("tensor × pipeline × context parallel = {} × {} × {}", degrees[0], degrees[1], degrees[2]));
        }
        let mut undivided_launch = None;
        let (world_size, world_source) = match (int(Role::Devices).filter(|d| *d > 0), model_parallel) {
            (Some(devices), Some(model_parallel)) => {
                let nodes = int(Role::Nodes).unwrap_or(1);
                match devices.checked_mul(nodes) {
                    // A world that the model-parallel degrees do not divide has no data-parallel size.
                    Some(gpus) if gpus % model_parallel == 0 => (Some(gpus / model_parallel), WorldSource::Config),
                    Some(_) => (None, WorldSource::Unknown),
                    None => {
                        overflow = Some(format!("devices × nodes = {devices} × {nodes}"));
                        (None, WorldSource::Unknown)
                    }
                }
            }
            (Some(_), None) => (None, WorldSource::Unknown),
            // No positive device count (absent, `-1`, `"auto"`: every visible GPU): the
            // launcher decides, and `--world-size` / the manifest's `world-size` say what it decides.
            // The launcher's world counts processes (GPUs), as a config's devices do: the
            // data-parallel world is that ÷ the model-parallel degrees (GPT-NeoX's
            // `calculate_derived`: `dp_world_size = (global_num_gpus / pp_size) / mp_size`;
            // Megatron-LM's and NeMo's `data_parallel_size = world_size // (TP × PP × CP)`).
            (None, model_parallel) => match (world_override.filter(|w| *w > 0).map(u64::from), model_parallel) {
                (Some(gpus), Some(model_parallel)) if gpus % model_parallel == 0 => (Some(gpus / model_parallel), WorldSource::CommandLineOrManifest),
                (Some(gpus), Some(_)) => {
                    undivided_launch = Some(gpus);
                    (None, WorldSource::Unknown)
                }
                _ => (None, WorldSource::Unknown),
            },
        };
        let mut view = BatchView {
            micro_batch: int(Role::MicroBatch),
            accumulation: int(Role::Accumulation),
            global_batch: int(Role::GlobalBatch),
            world_size,
            world_source,
            effective_batch: None,
            derived: BTreeMap::new(),
            auto,
            target: int(Role::EffectiveBatchTarget).or(target_default),
            problem: None,
            floored: None,
            worlds: None,
            launcher: None,
            launched_world: None,
            undivided_launch,
            nodes: int(Role::Nodes).filter(|n| *n > 0).unwrap_or(1),
            per_node: false,
            semantics_note: None,
        };
        // A batch value that is present but not a whole number (a quoted "4", a
        // `${...}` interpolation) is unknown, not absent: nothing is derived from it.
        let unreadable = [Role::MicroBatch, Role::Accumulation, Role::GlobalBatch]
            .into_iter()
            .any(|r| roles.get(&r).is_some_and(|v| v.as_u64().is_none()) && !view.auto.contains(&r));
        // A batch of zero or fewer samples is no batch: every framework refuses it.
        let not_positive = [Role::MicroBatch, Role::Accumulation, Role::GlobalBatch].into_iter().find_map(|r| {
            let value = roles.get(&r)?;
            let text = value.value.as_f64().filter(|f| *f <= 0.0).map(|_| value.value.to_string())?;
            Some(BatchProblem::NotPositive { role: r, text })
        });
        if let Some(problem) = not_positive {
            view.problem = Some(problem);
        } else if let Some(product) = overflow {
            view.problem = Some(BatchProblem::Overflow { product });
        } else if !unreadable {
            view.derive(semantics, declared);
            if view.world_size.is_none() && view.problem.is_none() && !view.batch_auto() && (view.global_batch.is_some() || view.micro_batch.is_some()) {
                view.reason_over_worlds(semantics);
            }
        }
        view
    }

    fn batch_auto(&self) -> bool {
        self.auto.iter().any(|r| matches!(r, Role::MicroBatch | Role::Accumulation | Role::GlobalBatch))
    }

    /// The world is unknown: runs the derivation for every world size tried and
    /// keeps those for which the batch holds (and reaches the target). None:
    /// the problem on a world of 1 is the view's problem (no other world does
    /// better: a value that floors or mismatches there does so for every W).
    fn reason_over_worlds(&mut self, semantics: BatchSemantics) {
        self.reason_over_worlds_trying(semantics, true);
    }

    /// `reason_over_worlds`; `only_divisors`: with a global batch, only the worlds that divide
    /// it are derived (the tests compare with every world derived).
    fn reason_over_worlds_trying(&mut self, semantics: BatchSemantics, only_divisors: bool) {
        // Sorted, without repeats (a list: a set of 1,024 was a tenth of this function).
        let mut tried: Vec<u64> = (1..=MAX_REASONED_WORLD).collect();
        if let Some(global) = self.global_batch.filter(|g| *g > 0) {
            tried.extend(divisors(global).into_iter().filter(|d| *d > MAX_REASONED_WORLD));
            tried.sort_unstable();
            tried.dedup();
        }
        // One trial per world (1,024 and more per config): built from the values the
        // derivation reads, not by cloning the whole view, and the worlds collected in
        // order (a set built from sorted values in one pass).
        let on = |world: u64| {
            let mut trial = BatchView {
                micro_batch: self.micro_batch,
                accumulation: self.accumulation,
                global_batch: self.global_batch,
                world_size: Some(world),
                world_source: self.world_source,
                effective_batch: None,
                derived: BTreeMap::new(),
                auto: self.auto.clone(),
                target: self.target,
                problem: None,
                floored: None,
                worlds: None,
                launcher: None,
                launched_world: None,
                undivided_launch: None,
                nodes: self.nodes,
                per_node: self.per_node,
                semantics_note: None,
            };
            trial.derive(semantics, false);
            trial
        };
        let mut any_holds = false;
        let mut reaches = Vec::new();
        // Without a global batch nothing divides by the world: a problem on a world of 1 is
        // the problem on every world, and the effective batch is that of 1 times W (when the
        // product cannot overflow on the largest world tried). Computed once, not per world.
        let largest = tried.last().copied().unwrap_or(1);
        if self.global_batch.is_none() && !semantics.global_split_over_world {
            let one = on(1);
            let fits = one.effective_batch.is_none_or(|e| e.checked_mul(largest).is_some());
            if fits {
                if one.problem.is_none() {
                    reaches.extend(tried.iter().copied().filter(|w| self.target.is_none_or(|t| one.effective_batch.map(|e| e * w) == Some(t))));
                } else {
                    self.problem = one.problem;
                }
                // In the order tried: sorted.
                self.worlds = Some(Worlds::from_set(&reaches, &tried));
                return;
            }
        }
        // With a global batch, each derivation but the flooring ones holds only on a world that
        // divides it (micro × accumulation × W = global; global ÷ W split over the world), so
        // the other worlds are not derived: a config with a global batch tried 1,024 of them.
        let divides = match self.global_batch.filter(|g| *g > 0) {
            Some(global) if only_divisors && semantics.global_split_over_world => Some(global),
            Some(global) if only_divisors && !semantics.accumulation_floors && !semantics.global_batch_per_process && !self.batch_auto() => Some(global),
            _ => None,
        };
        for world in tried.iter().filter(|w| divides.is_none_or(|global| global.is_multiple_of(**w))) {
            let trial = on(*world);
            if trial.problem.is_none() {
                any_holds = true;
                if self.target.is_none_or(|target| trial.effective_batch == Some(target)) {
                    reaches.push(*world);
                }
            }
        }
        if !any_holds {
            self.problem = on(1).problem;
        }
        // In the order tried: sorted.
        self.worlds = Some(Worlds::from_set(&reaches, &tried));
    }

    /// The batch equation with the values the config gives and W for the world:
    /// "32 = 4 micro batch × 2 accumulation × W".
    pub(crate) fn equation(&self, semantics: BatchSemantics) -> String {
        let micro = self.micro_batch.map_or_else(|| "micro batch".to_owned(), |m| format!("{m} micro batch"));
        let accumulation = self.accumulation.map_or_else(|| "accumulation".to_owned(), |a| format!("{a} accumulation"));
        match (self.target, self.global_batch) {
            (Some(target), _) => format!("effective batch {target} = {micro} × {accumulation} × W"),
            (None, Some(global)) if semantics.global_batch_per_process => format!("{global} = {micro} × {accumulation} (per process; × W in all)"),
            (None, Some(global)) => format!("{global} = {micro} × {accumulation} × W"),
            (None, None) => format!("effective batch = {micro} × {accumulation} × W"),
        }
    }

    /// Fills in what the given values imply, or records why they cannot hold.
    fn derive(&mut self, semantics: BatchSemantics, declared: bool) {
        self.per_node = semantics.accumulation_per_node;
        if semantics.global_split_over_world {
            self.derive_split();
            return;
        }
        if self.batch_auto() {
            return;
        }
        let (tb, mb, ga) = (self.global_batch, self.micro_batch, self.accumulation);
        if tb.is_none() && mb.is_none() {
            // A framework may assert when a config sets its batch only in part. A
            // config with no batch key at all is a fragment (the autotuning templates)
            // or says nothing about the batch, which is not wrong in itself, unless
            // the manifest declares it written for the framework (`{}` as a DeepSpeed
            // config: "Either train_batch_size or train_micro_batch_size_per_gpu needs
            // to be provided", `deepspeed/runtime/config.py`).
            if semantics.needs_batch_size && (ga.is_some() || declared) {
                self.problem = Some(BatchProblem::Underspecified);
            }
            return;
        }
        let Some(w) = self.world_size.filter(|w| *w > 0) else { return };
        if semantics.accumulation_floors {
            self.derive_floored(tb, mb, w, self.floor_divisor(w));
            return;
        }
        // A global batch counted per process: the framework multiplies by the world itself.
        let tw = if semantics.global_batch_per_process { 1 } else { w };
        let floors = |role, numerator: u64, denominator: u64| BatchProblem::Floors { role, numerator, denominator };
        // Every product is checked: 2^63 + 32 × 2 must not wrap to 64 and match.
        let product = |factors: &[u64]| factors.iter().try_fold(1u64, |p, f| p.checked_mul(*f));
        let overflow = |factors: &[u64]| BatchProblem::Overflow { product: factors.iter().map(u64::to_string).collect::<Vec<_>>().join(" × ") };
        let (mb, ga) = match (tb, mb, ga) {
            (Some(tb), Some(mb), Some(ga)) => {
                if product(&[mb, ga, tw]) != Some(tb) {
                    self.problem = Some(BatchProblem::GlobalMismatch { global: tb, micro: mb, accumulation: ga, world: w });
                    return;
                }
                (mb, ga)
            }
            (Some(tb), Some(mb), None) => {
                let Some(denominator) = product(&[mb, tw]) else {
                    self.problem = Some(overflow(&[mb, tw]));
                    return;
                };
                if denominator == 0 || tb % denominator != 0 {
                    self.problem = Some(floors(Role::Accumulation, tb, denominator));
                    return;
                }
                self.derived.insert(Role::Accumulation, tb / denominator);
                (mb, tb / denominator)
            }
            (Some(tb), None, ga) => {
                let ga = ga.unwrap_or(1);
                let Some(denominator) = product(&[tw, ga]) else {
                    self.problem = Some(overflow(&[tw, ga]));
                    return;
                };
                if denominator == 0 || tb % denominator != 0 {
                    self.problem = Some(floors(Role::MicroBatch, tb, denominator));
                    return;
                }
                if self.accumulation.is_none() {
                    self.derived.insert(Role::Accumulation, 1);
                }
                self.derived.insert(Role::MicroBatch, tb / denominator);
                (tb / denominator, ga)
            }
            (None, Some(mb), ga) => {
                let ga = ga.unwrap_or(1);
                let Some(global) = product(&[mb, ga, tw]) else {
                    self.problem = Some(overflow(&[mb, ga, tw]));
                    return;
                };
                if self.accumulation.is_none() {
                    self.derived.insert(Role::Accumulation, 1);
                }
                self.derived.insert(Role::GlobalBatch, global);
                (mb, ga)
            }
            (None, None, _) => return,
        };
        match product(&[mb, ga, w]) {
            Some(effective) => self.effective_batch = Some(effective),
            None => self.problem = Some(overflow(&[mb, ga, w])),
        }
    }

    /// What a flooring framework divides the global batch by on a data-parallel world of
    /// `world`: the world, or the devices of one node (`BatchSemantics::accumulation_per_node`:
    /// world ÷ nodes).
    pub(crate) fn floor_divisor(&self, world: u64) -> u64 {
        if self.per_node && self.nodes > 1 && world.is_multiple_of(self.nodes) { world / self.nodes } else { world }
    }

    /// A flooring framework's batch: with the global and the micro batch stated,
    /// accumulation = ⌊⌊global ÷ divisor⌋ ÷ micro⌋ (the divisor: the world, or the devices of
    /// one node, `floor_divisor`) and the run trains micro × accumulation × world; with either
    /// missing, the framework's default applies and nothing is derived.
    fn derive_floored(&mut self, global: Option<u64>, micro: Option<u64>, world: u64, divisor: u64) {
        let (Some(global), Some(micro)) = (global, micro) else { return };
        let accumulation = (global / divisor.max(1)).checked_div(micro).unwrap_or(0);
        if accumulation == 0 {
            self.problem = Some(BatchProblem::FloorsToZero { global, micro, world });
            return;
        }
        // Divided by the world, accumulation ≤ global ÷ (world × micro), so the product is at
        // most `global`; divided by one node's devices, at most `global` × nodes.
        let Some(effective) = micro.checked_mul(accumulation).and_then(|p| p.checked_mul(world)) else {
            self.problem = Some(BatchProblem::Overflow { product: format!("{micro} × {accumulation} × {world}") });
            return;
        };
        self.derived.insert(Role::Accumulation, accumulation);
        self.effective_batch = Some(effective);
        if effective != global {
            self.floored = Some(Floored { global, micro, accumulation, world, effective });
        }
    }

    /// A global batch split evenly over the world, each device's share cut into
    /// micro batches of which the last may be smaller (`BatchSemantics::global_split_over_world`).
    fn derive_split(&mut self) {
        let (Some(global), Some(world)) = (self.global_batch, self.world_size.filter(|w| *w > 0)) else { return };
        if !global.is_multiple_of(world) {
            self.problem = Some(BatchProblem::Floors { role: Role::GlobalBatch, numerator: global, denominator: world });
            return;
        }
        // A micro batch chosen at run time (`auto`) derives no accumulation.
        if self.auto.contains(&Role::MicroBatch) {
            return;
        }
        let device = global / world;
        // A global batch of 0 (SCH002 reports it) splits into nothing to derive.
        if let Some(micro) = self.micro_batch.filter(|m| *m > 0 && device > 0) {
            // A micro batch above the device batch is lowered to it: one micro batch per step.
            self.derived.insert(Role::Accumulation, device.div_ceil(micro.min(device)));
            self.effective_batch = Some(global);
        }
    }

    /// The micro batch, given or derived.
    pub(crate) fn micro(&self) -> Option<u64> {
        self.micro_batch.or_else(|| self.derived.get(&Role::MicroBatch).copied())
    }

    /// The accumulation, given or derived.
    pub(crate) fn accumulation_steps(&self) -> Option<u64> {
        self.accumulation.or_else(|| self.derived.get(&Role::Accumulation).copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(tb: Option<u64>, mb: Option<u64>, ga: Option<u64>, w: u32) -> BatchView {
        let mut v = BatchView {
            micro_batch: mb,
            accumulation: ga,
            global_batch: tb,
            world_size: Some(u64::from(w)),
            world_source: WorldSource::CommandLineOrManifest,
            effective_batch: None,
            derived: BTreeMap::new(),
            auto: Vec::new(),
            target: None,
            problem: None,
            floored: None,
            worlds: None,
            launcher: None,
            launched_world: None,
            undivided_launch: None,
            nodes: 1,
            per_node: false,
            semantics_note: None,
        };
        v.derive(crate::dialects::deepspeed::DEEPSPEED.batch(), false);
        v
    }

    #[test]
    fn derivations_follow_deepspeed_without_flooring() {
        assert_eq!(view(Some(32), Some(16), None, 2).effective_batch, Some(32));
        assert_eq!(view(Some(32), None, Some(2), 2).derived.get(&Role::MicroBatch), Some(&8));
        assert_eq!(view(Some(64), None, None, 1).derived.get(&Role::MicroBatch), Some(&64));
        assert_eq!(view(Some(33), Some(17), None, 2).problem, Some(BatchProblem::Floors { role: Role::Accumulation, numerator: 33, denominator: 34 }));
        assert_eq!(view(None, None, Some(2), 2).problem, Some(BatchProblem::Underspecified));
        assert!(matches!(view(Some(32), Some(18), Some(1), 2).problem, Some(BatchProblem::GlobalMismatch { .. })));
    }

    fn floored_view(tb: Option<u64>, mb: Option<u64>, w: u32) -> BatchView {
        let mut v = view(None, None, None, w);
        (v.global_batch, v.micro_batch) = (tb, mb);
        v.derive(BatchSemantics { accumulation_floors: true, ..BatchSemantics::default() }, false);
        v
    }

    /// A framework that floors: accumulation = ⌊⌊global ÷ world⌋ ÷ micro⌋, asserted > 0.
    #[test]
    fn flooring_accumulation_trains_less_or_refuses() {
        let exact = floored_view(Some(512), Some(128), 4);
        assert_eq!((exact.effective_batch, exact.derived.get(&Role::Accumulation), exact.floored.clone()), (Some(512), Some(&1), None));
        let three = floored_view(Some(512), Some(128), 3);
        assert_eq!(three.effective_batch, Some(384), "⌊512 ÷ 3⌋ = 170, ⌊170 ÷ 128⌋ = 1, 128 × 1 × 3");
        assert_eq!(three.floored, Some(Floored { global: 512, micro: 128, accumulation: 1, world: 3, effective: 384 }));
        assert_eq!(floored_view(Some(512), Some(128), 5).problem, Some(BatchProblem::FloorsToZero { global: 512, micro: 128, world: 5 }));
        assert_eq!(floored_view(Some(4), Some(1), 8).problem, Some(BatchProblem::FloorsToZero { global: 4, micro: 1, world: 8 }), "⌊4 ÷ 8⌋ = 0");
        assert_eq!(floored_view(Some(8), Some(2), 1).effective_batch, Some(8));
        let no_global = floored_view(None, Some(2), 1);
        assert_eq!((no_global.effective_batch, no_global.derived.len()), (None, 0), "the framework's default global batch is not guessed");
        assert_eq!(floored_view(Some(8), None, 1).effective_batch, None);
    }

    /// litgpt before 0.5.8 divides the global batch by the devices of one node: on 2 nodes of 4
    /// GPUs, 64 ÷ 4 = 16 per GPU, 4 accumulation steps of 4, and the run trains 4 × 4 × 8 = 128.
    #[test]
    fn a_per_node_division_trains_each_node_the_global_batch() {
        let per_node = |nodes: u64, world: u32| {
            let mut v = view(None, None, None, world);
            (v.global_batch, v.micro_batch, v.nodes) = (Some(64), Some(4), nodes);
            v.derive(BatchSemantics { accumulation_floors: true, accumulation_per_node: true, ..BatchSemantics::default() }, false);
            v
        };
        let two = per_node(2, 8);
        assert_eq!((two.derived.get(&Role::Accumulation), two.effective_batch), (Some(&4), Some(128)));
        assert_eq!(two.floored, Some(Floored { global: 64, micro: 4, accumulation: 4, world: 8, effective: 128 }));
        let one = per_node(1, 8);
        assert_eq!((one.derived.get(&Role::Accumulation), one.effective_batch, one.floored), (Some(&2), Some(64), None), "one node: the same division");
        assert_eq!(floored_view(Some(64), Some(4), 8).effective_batch, Some(64), "divided by the world: 64 ÷ 8 ÷ 4 = 2");
    }

    fn worlds(tb: Option<u64>, mb: Option<u64>, ga: Option<u64>) -> (Option<Worlds>, Option<BatchProblem>) {
        let mut v = view(tb, mb, ga, 1);
        v.world_size = None;
        v.problem = None;
        v.derived.clear();
        v.effective_batch = None;
        v.reason_over_worlds(crate::dialects::deepspeed::DEEPSPEED.batch());
        (v.worlds, v.problem)
    }

    /// Trying only the divisors of the global batch finds what trying every world finds, for
    /// every kind of derivation.
    #[test]
    fn trying_the_divisors_finds_what_trying_every_world_finds() {
        let kinds = [
            BatchSemantics::default(),
            BatchSemantics { global_batch_per_process: true, ..BatchSemantics::default() },
            BatchSemantics { accumulation_floors: true, ..BatchSemantics::default() },
            BatchSemantics { global_split_over_world: true, ..BatchSemantics::default() },
            crate::dialects::deepspeed::DEEPSPEED.batch(),
        ];
        let values = [None, Some(0), Some(1), Some(2), Some(3), Some(8), Some(12), Some(96), Some(2048), Some(4096), Some(1 << 40)];
        for semantics in kinds {
            for tb in values {
                for mb in values {
                    for ga in [None, Some(1), Some(4), Some(3)] {
                        for auto in [Vec::new(), vec![Role::MicroBatch]] {
                            let run = |only_divisors: bool| {
                                let mut v = view(tb, mb, ga, 1);
                                (v.world_size, v.auto) = (None, auto.clone());
                                v.reason_over_worlds_trying(semantics, only_divisors);
                                (v.worlds, v.problem)
                            };
                            assert_eq!(run(true), run(false), "{tb:?} {mb:?} {ga:?} {auto:?} {semantics:?}");
                        }
                    }
                }
            }
        }
    }

    /// Issue 15 item 2: the world sizes for which DeepSpeed's derivation holds.
    #[test]
    fn world_sizes_the_batch_holds_for() {
        assert_eq!(worlds(Some(32), Some(4), Some(2)).0, Some(Worlds::Listed { worlds: vec![4] }));
        assert_eq!(worlds(Some(64), Some(4), None).0, Some(Worlds::Listed { worlds: vec![1, 2, 4, 8, 16] }));
        assert_eq!(worlds(Some(64), None, Some(1)).0, Some(Worlds::Divisors { of: 64, count: 7 }));
        // Past the 1024 tried one by one: the divisors of the global batch are tried too.
        assert_eq!(worlds(Some(4096), Some(2), None).0, Some(Worlds::Divisors { of: 2048, count: 12 }));
        assert_eq!(worlds(None, Some(8), Some(4)).0, Some(Worlds::Every));
        // None: the problem is the one on a world of 1.
        let (none, problem) = worlds(Some(32), Some(18), Some(1));
        assert_eq!(none, Some(Worlds::None));
        assert!(matches!(problem, Some(BatchProblem::GlobalMismatch { global: 32, micro: 18, accumulation: 1, world: 1 })), "{problem:?}");
        let (none, problem) = worlds(Some(33), Some(2), None);
        assert_eq!((none, problem), (Some(Worlds::None), Some(BatchProblem::Floors { role: Role::Accumulation, numerator: 33, denominator: 2 })));
        // A huge global batch is neither looped over nor overflowed.
        assert_eq!(worlds(Some(1 << 62), Some(1 << 61), Some(1)).0, Some(Worlds::Listed { worlds: vec![2] }));
    }

    #[test]
    fn world_sets_are_described() {
        let tried: Vec<u64> = (1..=MAX_REASONED_WORLD).collect();
        let set = |items: &[u64]| items.iter().copied().collect::<BTreeSet<u64>>().into_iter().collect::<Vec<u64>>();
        assert_eq!(Worlds::from_set(&set(&[4]), &tried).describe(), "W = 4");
        assert_eq!(Worlds::from_set(&set(&[1, 2, 4]), &tried).describe(), "W ∈ {1, 2, 4}");
        assert_eq!(Worlds::from_set(&(1..=10).collect::<Vec<_>>(), &tried).describe(), "W ≤ 10");
        assert_eq!(Worlds::from_set(&set(&divisors(720)), &tried).describe(), "W dividing 720 (30 world sizes)");
        assert_eq!(Worlds::from_set(&set(&[1, 3, 5, 7, 9, 11, 13]), &tried).describe(), "7 world sizes up to 1024 (W ∈ {1, 3, 5, 7, 9, 11, …})");
        assert_eq!(Worlds::from_set(&tried, &tried).describe(), "every world size");
        assert_eq!(Worlds::from_set(&[], &tried), Worlds::None);
    }

    fn split(tb: Option<u64>, mb: Option<u64>, w: u32, auto_micro: bool) -> BatchView {
        let mut v = view(None, None, None, w);
        (v.global_batch, v.micro_batch) = (tb, mb);
        if auto_micro {
            v.auto.push(Role::MicroBatch);
        }
        v.derive(BatchSemantics { global_split_over_world: true, ..BatchSemantics::default() }, false);
        v
    }

    /// A global batch split over the world: the world must divide it; micro batches
    /// are cut from each device's share (the last may be smaller), so the
    /// accumulation is a ceiling and the effective batch is the global batch.
    #[test]
    fn global_split_over_world() {
        let even = split(Some(48), Some(4), 8, false);
        assert_eq!((even.effective_batch, even.derived.get(&Role::Accumulation), &even.problem), (Some(48), Some(&2), &None), "6 per device: 4 + 2");
        let divides = split(Some(256), Some(8), 8, false);
        assert_eq!((divides.effective_batch, divides.derived.get(&Role::Accumulation)), (Some(256), Some(&4)));
        let lowered = split(Some(48), Some(4), 16, false);
        assert_eq!(lowered.derived.get(&Role::Accumulation), Some(&1), "micro 4 above the device batch 3 is lowered to it");
        assert_eq!(split(Some(48), Some(4), 5, false).problem, Some(BatchProblem::Floors { role: Role::GlobalBatch, numerator: 48, denominator: 5 }));
        let auto = split(Some(512), None, 8, true);
        assert_eq!((auto.effective_batch, auto.derived.is_empty(), &auto.problem), (None, true, &None), "auto: nothing derived, nothing wrong");
        assert!(matches!(split(Some(512), None, 7, true).problem, Some(BatchProblem::Floors { .. })), "512 over 7 fails even with auto");
        let no_global = split(None, Some(4), 8, false);
        assert_eq!((no_global.effective_batch, &no_global.problem), (None, &None));
    }

    /// Issue 13 item 2: products that overflow 64 bits are reported, never
    /// wrapped (2^63 + 32 × 2 wrapped to exactly 64) and never divide by zero.
    #[test]
    fn overflowing_products_are_reported_not_wrapped() {
        let big = (1u64 << 63) + 32;
        assert!(matches!(view(Some(64), Some(big), Some(1), 2).problem, Some(BatchProblem::GlobalMismatch { .. })), "2^63+32 × 2 wraps to 64");
        assert!(matches!(view(Some(64), Some(1 << 63), None, 2).problem, Some(BatchProblem::Overflow { .. })));
        assert!(matches!(view(Some(64), None, Some(1 << 63), 2).problem, Some(BatchProblem::Overflow { .. })));
        assert!(matches!(view(None, Some(1 << 63), Some(1), 2).problem, Some(BatchProblem::Overflow { .. })));
        assert_eq!(view(Some(64), Some(8), None, 0).effective_batch, None, "a world of 0 derives nothing");
    }
}
