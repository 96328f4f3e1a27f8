//! Calibration, the model's last step: measured peaks from the manifest replace
//! the formula's fixed and per-sample parts by a fit.

use super::MIB;
use crate::resolve::ResolvedConfig;
use crate::schema::GpuTarget;
use crate::settings::Settings;
use serde::Serialize;

/// A fit of measured peaks: peak(m) = fixed + per_sample × m.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Calibration {
    pub points: usize,
    pub fixed_bytes: f64,
    pub per_sample_bytes: f64,
    /// Largest |measured − formula| over the points, before calibration.
    pub formula_error_bytes: f64,
    /// Largest |measured − fit| over the points (0 for one or two points).
    pub residual_bytes: f64,
}

/// Measured (micro batch, peak bytes) for this stage: those taken on this GPU,
/// else those of any GPU (what a batch needs depends on the model, not the card).
pub(crate) fn points(settings: &Settings, resolved: &ResolvedConfig, gpu: Option<&GpuTarget>) -> Vec<(u64, f64)> {
    let for_stage: Vec<_> = settings.manifest.calibration.iter().filter(|p| p.stage.is_none() || p.stage == resolved.stage).collect();
    let same_gpu: Vec<_> = for_stage.iter().filter(|p| gpu.is_none_or(|g| g.id == p.gpu)).collect();
    let chosen: Vec<_> = if same_gpu.is_empty() { for_stage.iter().collect() } else { same_gpu };
    chosen.iter().map(|p| (p.micro_batch, p.peak_mib * MIB)).collect()
}

/// Two points fix both parts exactly; one fixes the fixed part and keeps the
/// formula's per-sample part; more are fitted by least squares. `formula` is
/// the uncalibrated total at a micro batch.
pub(crate) fn fit(points: &[(u64, f64)], formula: impl Fn(u64) -> f64) -> Option<Calibration> {
    if points.is_empty() {
        return None;
    }
    let formula_error = points.iter().map(|(m, peak)| (peak - formula(*m)).abs()).fold(0.0, f64::max);
    let formula_slope = formula(1) - formula(0);
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
    Some(Calibration { points: points.len(), fixed_bytes: fixed, per_sample_bytes: per_sample, formula_error_bytes: formula_error, residual_bytes: residual })
}
