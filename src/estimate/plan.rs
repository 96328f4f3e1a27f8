//! The plan: for each GPU target, the largest micro batch that surely fits (the
//! high end of the estimate's measured band within usable memory: no MEM001 or
//! MEM002) and lets an integer accumulation keep the effective batch exactly.

use super::{End, Estimate, MemoryModel, estimate};
use crate::resolve::ResolvedConfig;
use crate::schema::GpuTarget;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct PlanRow {
    pub gpu: String,
    pub stage: Option<String>,
    pub micro_batch: Option<u64>,
    pub accumulation: Option<u64>,
    pub effective_batch: Option<u64>,
    /// The estimate at the planned micro batch (live tensors and CUDA context).
    pub peak_bytes: Option<f64>,
    /// The band's high end there: what the card may have to hold (≤ `usable_bytes`).
    pub high_bytes: Option<f64>,
    pub usable_bytes: f64,
    pub capacity_bytes: f64,
    pub utilisation: Option<f64>,
    pub fits: bool,
    /// The largest micro batch whose band's low end fits usable memory (beyond it, MEM001).
    pub max_fit: Option<u64>,
    /// The largest micro batch whose band's high end fits usable memory (beyond it, MEM002).
    pub max_with_headroom: Option<u64>,
    /// Why there is no plan, when there is none.
    pub reason: Option<String>,
    /// Why the planned micro batch is below `max_fit`, when it is.
    pub why_smaller: Option<String>,
    /// The world is the launcher's: the plan keeps micro batch × accumulation per GPU (this
    /// product), which keeps the effective batch whatever the world is.
    pub per_process: Option<u64>,
}

/// The largest micro batch ≤ `max_fit` such that micro × world divides `target`.
/// No product is formed (nothing can overflow), and the search is bounded:
/// micro × world divides target when world divides it and micro divides the
/// quotient, and divisors come in pairs (d, q ÷ d) with d ≤ √q.
pub(crate) fn best_micro(target: u64, world: u64, max_fit: u64) -> Option<u64> {
    if world == 0 || !target.is_multiple_of(world) {
        return None;
    }
    let quotient = target / world;
    let limit = max_fit.min(quotient);
    if limit <= 1 << 20 {
        return (1..=limit).rev().find(|m| quotient.is_multiple_of(*m));
    }
    // Exact for quotients up to 2^40 (every real batch); beyond, the largest pair found.
    let mut best = None;
    let mut d = 1u64;
    while d <= 1 << 20 && d.checked_mul(d).is_some_and(|square| square <= quotient) {
        if quotient.is_multiple_of(d) {
            for m in [d, quotient / d] {
                if m <= limit && best < Some(m) {
                    best = Some(m);
                }
            }
        }
        d += 1;
    }
    best
}

pub fn plan(model: &MemoryModel, resolved: &ResolvedConfig, gpu: &GpuTarget, margin: f64) -> PlanRow {
    let current = resolved.batch.micro().unwrap_or(1);
    let at_current: Estimate = estimate(model, resolved, gpu, margin, current);
    let world = resolved.batch.world_size.unwrap_or(1);
    let target = resolved.batch.target.or(resolved.batch.effective_batch);
    let mut row = PlanRow {
        gpu: gpu.id.clone(),
        stage: resolved.stage.clone(),
        micro_batch: None,
        accumulation: None,
        effective_batch: target,
        peak_bytes: None,
        high_bytes: None,
        usable_bytes: at_current.usable_bytes,
        capacity_bytes: at_current.capacity_bytes,
        utilisation: None,
        fits: false,
        max_fit: model.max_micro_batch(at_current.usable_bytes, End::Low),
        max_with_headroom: None,
        reason: None,
        why_smaller: None,
        per_process: None,
    };
    // The plan keeps the band's high end within usable memory, so that a planned config checks clean.
    let Some(max_fit) = model.max_micro_batch(at_current.usable_bytes, End::High) else {
        row.reason = Some(if row.max_fit.is_some() {
            format!(
                "micro batch 1 may not fit: its band reaches {} of {} usable (MEM002)",
                super::human_bytes(model.high(1)),
                super::human_bytes(at_current.usable_bytes),
            )
        } else if model.activations_modelled || model.calibration().is_some() {
            "even micro batch 1 does not fit".to_owned()
        } else {
            "activations not modelled: the largest micro batch cannot be computed".to_owned()
        });
        return row;
    };
    row.max_with_headroom = Some(max_fit);
    // Without a world, micro batch × accumulation per GPU is what keeps the effective batch
    // (it is that product times whatever world the launcher gives).
    let per_process = match (resolved.batch.world_size, resolved.batch.micro(), resolved.batch.accumulation) {
        (None, Some(micro), Some(accumulation)) if target.is_none() => micro.checked_mul(accumulation),
        _ => None,
    };
    let (target, world) = match (target, per_process) {
        (Some(target), _) => (target, world),
        (None, Some(product)) => {
            row.per_process = Some(product);
            (product, 1)
        }
        (None, None) => {
            row.reason = Some("effective batch unknown: state a target (`effective-batch`) or the world size".to_owned());
            row.micro_batch = Some(max_fit);
            row.why_smaller = why_smaller(max_fit, max_fit, row.max_fit, "");
            return row;
        }
    };
    // A plan that accumulates keeps the earlier micro batches' gradients alive in the
    // backward (`MemoryModel::accumulating`): the largest micro batch is found again with them.
    let accumulating = model.accumulating();
    let (model, max_fit) = match best_micro(target, world, max_fit) {
        Some(micro) if micro.saturating_mul(world) < target => match accumulating.max_micro_batch(at_current.usable_bytes, End::High) {
            Some(fit) => (&accumulating, fit),
            None => {
                row.reason = Some("micro batch 1 does not fit with the gradients that accumulation keeps".to_owned());
                return row;
            }
        },
        _ => (model, max_fit),
    };
    row.max_with_headroom = Some(max_fit);
    match best_micro(target, world, max_fit) {
        Some(micro) => {
            let peak = model.total(micro);
            row.high_bytes = Some(model.high(micro));
            row.micro_batch = Some(micro);
            // best_micro found micro × world dividing target, so the product fits.
            row.accumulation = micro.checked_mul(world).map(|step| target / step);
            row.peak_bytes = Some(peak);
            row.utilisation = Some(peak / row.capacity_bytes);
            row.fits = true;
            row.why_smaller = why_smaller(micro, max_fit, row.max_fit, &kept(target, world, row.per_process.is_some()));
        }
        None => row.reason = Some(format!("no micro batch up to {max_fit} divides {target} on a world of {world}")),
    }
    row
}

/// What the plan's micro batch must divide, in words: the effective batch (on a world), or,
/// when the launcher decides the world, micro batch × accumulation per GPU.
fn kept(target: u64, world: u64, per_process: bool) -> String {
    if per_process {
        return format!("{target} samples per GPU per step (micro batch × accumulation: the world is the launcher's)");
    }
    let on = if world == 1 { String::new() } else { format!(" on a world of {world}") };
    format!("the effective batch {target}{on}")
}

/// Says why the plan stops below the largest micro batch that may fit: the band's
/// high end (MEM002), then the effective batch the micro batch must divide.
fn why_smaller(micro: u64, with_headroom: u64, fits: Option<u64>, kept: &str) -> Option<String> {
    let fits = fits?;
    if micro >= fits {
        return None;
    }
    let headroom = format!("{with_headroom} is the most whose band's high end fits (beyond it, MEM002: may not fit)");
    let most = if with_headroom >= fits { format!("{fits} is the most that fits") } else { format!("{fits} is the most that may fit") };
    if micro == with_headroom {
        return Some(format!("{headroom}; {most}"));
    }
    let divides = format!("{micro} is the largest micro batch up to {with_headroom} that divides {kept}");
    Some(if with_headroom < fits { format!("{divides}; {headroom}; {most}") } else { format!("{divides}; {most}") })
}

#[cfg(test)]
mod tests {
    use super::{best_micro, kept, why_smaller};

    #[test]
    fn the_plan_says_why_it_stops_below_the_most_that_fits() {
        assert_eq!(
            why_smaller(45, 45, Some(81), &kept(225, 1, false)).as_deref(),
            Some("45 is the most whose band's high end fits (beyond it, MEM002: may not fit); 81 is the most that may fit")
        );
        assert_eq!(
            why_smaller(45, 47, Some(53), &kept(225, 1, false)).as_deref(),
            Some(
                "45 is the largest micro batch up to 47 that divides the effective batch 225; 47 is the most whose band's high end fits (beyond it, MEM002: may not fit); 53 is the most that may fit"
            )
        );
        assert_eq!(
            why_smaller(12, 20, Some(20), &kept(96, 2, false)).as_deref(),
            Some("12 is the largest micro batch up to 20 that divides the effective batch 96 on a world of 2; 20 is the most that fits")
        );
        assert_eq!(why_smaller(53, 53, Some(53), &kept(106, 1, false)), None);
        assert_eq!(why_smaller(4, 4, None, &kept(8, 1, false)), None);
        // The launcher decides the world: micro batch × accumulation per GPU is what is kept.
        assert_eq!(
            why_smaller(4, 6, Some(7), &kept(8, 1, true)).as_deref(),
            Some(
                "4 is the largest micro batch up to 6 that divides 8 samples per GPU per step (micro batch × accumulation: the world is the launcher's); 6 is the most whose band's high end fits (beyond it, MEM002: may not fit); 7 is the most that may fit"
            )
        );
    }

    #[test]
    fn best_micro_is_the_largest_divisor_that_fits() {
        assert_eq!(best_micro(96, 2, 32), Some(24));
        assert_eq!(best_micro(96, 2, 48), Some(48));
        assert_eq!(best_micro(97, 2, 48), None);
        // Issue 13 item 2: a world of 0 or a huge one neither divides by zero nor overflows.
        assert_eq!(best_micro(64, 0, 8), None);
        assert_eq!(best_micro(1 << 63, 1 << 62, u64::MAX), Some(2));
        assert_eq!(best_micro(u64::MAX - 1, 1, u64::MAX), Some(u64::MAX - 1));
        // A large fit is searched through divisor pairs, not one by one.
        assert_eq!(best_micro(1 << 40, 1, (1 << 40) - 1), Some(1 << 39));
    }
}
