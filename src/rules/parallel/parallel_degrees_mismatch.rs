use crate::declare_rule;
use crate::diagnostic::Diagnostic;
use crate::resolve::ResolvedConfig;
use crate::rules::Checker;
use crate::rules::batch::at;
use crate::schema::Role;

declare_rule! {
    /// ## What it does
    /// Checks the model-parallel degrees a config states (tensor, pipeline and
    /// context parallel) against the run and the model: tensor × pipeline ×
    /// context parallel must divide the GPUs (devices × nodes, or the GPUs
    /// `--world-size` or a launch gives a config that states none), the attention
    /// heads must divide by the tensor-parallel degree, and the layers by the
    /// pipeline-parallel degree — except in frameworks that balance the layers
    /// over their stages by cost (GPT-NeoX's DeepSpeed `PipelineModule`,
    /// nanotron's `build_model`). The data-parallel world is then devices ×
    /// nodes ÷ (tensor × pipeline × context parallel).
    ///
    /// ## Why is this bad?
    /// Megatron-LM refuses to start: `initialize_model_parallel` raises
    /// "world_size (…) is not divisible by …" (`megatron/core/parallel_state.py`,
    /// which computes `data_parallel_size = world_size // (TP × PP × CP)`),
    /// `TransformerConfig` raises "num_attention_heads (…) must be a multiple of
    /// tensor_model_parallel_size (…)" (`megatron/core/transformer/transformer_config.py`),
    /// and `_get_num_layers` asserts "num_layers must be divisible by
    /// transformer_pipeline_model_parallel_size" (`megatron/model/transformer.py`).
    /// Each fails after the job has waited for its GPUs. A tensor-parallel degree of
    /// 2 on one GPU is not a smaller run: it is no run.
    ///
    /// ## Example
    /// ```yaml
    /// trainer:
    ///   devices: 1
    ///   num_nodes: 1
    /// exp_manager:
    ///   name: gpt
    /// model:
    ///   micro_batch_size: 4
    ///   global_batch_size: 8
    ///   tensor_model_parallel_size: 2
    /// ```
    ///
    /// Use instead:
    /// ```yaml
    /// trainer:
    ///   devices: 2
    ///   num_nodes: 1
    /// exp_manager:
    ///   name: gpt
    /// model:
    ///   micro_batch_size: 4
    ///   global_batch_size: 8
    ///   tensor_model_parallel_size: 2
    /// ```
    ///
    /// ## Fix safety
    /// There is no fix: whether the GPUs, the degrees or the model should
    /// change is the author's choice. The help lists the degrees that fit.
    pub struct ParallelDegreesMismatch {
        name: "parallel-degrees-mismatch",
        severity: Error,
        fix: None,
        since: "0.1.0",
        check: Batch,
        options: ["world-size"],
    }
}

const DEGREES: [Role; 3] = [Role::TensorParallel, Role::PipelineParallel, Role::ContextParallel];

/// Reports the degrees that do not fit; returns whether they do not fit the GPUs
/// (the data-parallel world is then undefined, which is this finding, not BAT006).
pub fn check(checker: &mut Checker, resolved: &ResolvedConfig) -> bool {
    if DEGREES.iter().all(|r| resolved.role(*r).is_none()) {
        return false;
    }
    // A degree that is not a whole number (`${...}`, a quoted value) is not checked here.
    let Some([tp, pp, cp]) =
        DEGREES.iter().map(|r| resolved.role(*r).map_or(Some(1), |v| v.as_u64())).collect::<Option<Vec<u64>>>().and_then(|v| <[u64; 3]>::try_from(v).ok())
    else {
        return false;
    };
    let [tp, pp, cp] = [tp.max(1), pp.max(1), cp.max(1)];
    let mut world_wrong = false;
    if let Some(diagnostic) = gpus(resolved, tp, pp, cp) {
        checker.report(diagnostic);
        world_wrong = true;
    }
    // The GPUs a degree can use once the other degrees take theirs (when the config states the GPUs).
    let gpus = resolved
        .role(Role::Devices)
        .and_then(|v| v.as_u64())
        .filter(|d| *d > 0)
        .and_then(|d| d.checked_mul(resolved.role(Role::Nodes).and_then(|v| v.as_u64()).unwrap_or(1).max(1)));
    let room = |others: Option<u64>| gpus.zip(others).filter(|(g, o)| g.is_multiple_of(*o)).map(|(g, o)| g / o);
    if let Some(diagnostic) = shape(resolved, Role::Heads, "attention heads", Role::TensorParallel, tp, room(pp.checked_mul(cp))) {
        checker.report(diagnostic);
    }
    // A framework that balances the layers over its stages by cost needs no even split.
    if !resolved.detection.dialect.pipeline_balances_layers(&resolved.tree)
        && let Some(diagnostic) = shape(resolved, Role::Layers, "layers", Role::PipelineParallel, pp, room(tp.checked_mul(cp)))
    {
        checker.report(diagnostic);
    }
    world_wrong
}

/// TP × PP × CP must divide devices × nodes, or the GPUs the launch gives a config that states none.
fn gpus(resolved: &ResolvedConfig, tp: u64, pp: u64, cp: u64) -> Option<Diagnostic> {
    let plural = |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let stated = resolved.role(Role::Devices).and_then(|d| d.as_u64()).filter(|d| *d > 0);
    let (gpus, run, devices) = match stated {
        Some(devices) => {
            let nodes = resolved.role(Role::Nodes).and_then(|v| v.as_u64()).unwrap_or(1).max(1);
            let gpus = devices.checked_mul(nodes)?;
            (gpus, format!("{} ({} × {})", plural(gpus, "GPU", "GPUs"), plural(devices, "device", "devices"), plural(nodes, "node", "nodes")), devices)
        }
        None => {
            let gpus = resolved.batch.undivided_launch?;
            let from = resolved.batch.launcher.as_deref().map_or_else(|| "--world-size / the manifest".to_owned(), |l| l.to_owned());
            (gpus, format!("{} (from {from})", plural(gpus, "GPU", "GPUs")), gpus)
        }
    };
    let model_parallel = tp.checked_mul(pp)?.checked_mul(cp)?;
    if gpus.is_multiple_of(model_parallel) {
        return None;
    }
    let product = format!("tensor × pipeline × context parallel = {tp} × {pp} × {cp} = {model_parallel}");
    let (message, anchor) = if tp > gpus {
        (format!("tensor parallel {tp} needs {tp} GPUs, but the run has {run}"), Role::TensorParallel)
    } else if model_parallel > gpus {
        (format!("{product} GPUs per model replica, but the run has {run}"), largest(resolved, [tp, pp, cp]))
    } else {
        (format!("{product} does not divide the {run}"), largest(resolved, [tp, pp, cp]))
    };
    let fits: Vec<String> = divisors(gpus).into_iter().filter(|d| *d > 1).map(|d| d.to_string()).collect();
    let help = if fits.is_empty() {
        "one GPU holds a whole model replica: set the parallel degrees to 1, or run on more GPUs".to_owned()
    } else {
        format!("use degrees whose product divides {gpus} ({} with the others at 1), or run on a multiple of {model_parallel} GPUs", fits.join(", "))
    };
    let mut diagnostic = at(ParallelDegreesMismatch, resolved, &[anchor], message)
        .with_label(format!("{model_parallel} GPUs per replica"))
        .with_note(format!(
            "the data-parallel world is GPUs ÷ (tensor × pipeline × context parallel) = {gpus} ÷ {model_parallel}, not a whole number; Megatron-LM raises \"world_size ({gpus}) is not divisible by {model_parallel}\" at start-up"
        ))
        .with_help(help);
    let devices_count = devices;
    if let Some(devices) = resolved.role(Role::Devices).filter(|_| stated.is_some()) {
        diagnostic = diagnostic.with_secondary(&devices.file, devices.span.clone(), format!("{} per node", plural(devices_count, "device", "devices")));
    }
    Some(diagnostic)
}

/// The role of the largest degree (where a change helps most), tensor parallel on a tie.
fn largest(resolved: &ResolvedConfig, degrees: [u64; 3]) -> Role {
    let mut best = Role::TensorParallel;
    let mut value = 0;
    for (role, degree) in DEGREES.into_iter().zip(degrees) {
        if degree > value && resolved.role(role).is_some() {
            (best, value) = (role, degree);
        }
    }
    best
}

/// `count` (heads, layers) must be a multiple of the degree that splits it.
/// `room`: the GPUs left for this degree by the others, where known; the help lists degrees that divide both.
fn shape(resolved: &ResolvedConfig, count_role: Role, what: &str, degree_role: Role, degree: u64, room: Option<u64>) -> Option<Diagnostic> {
    if degree <= 1 {
        return None;
    }
    let count = resolved.role(count_role)?.as_u64()?;
    if count.is_multiple_of(degree) {
        return None;
    }
    let (per, constraint) = match degree_role {
        Role::TensorParallel => (
            "GPU of a tensor-parallel group",
            "Megatron-LM's TransformerConfig raises \"num_attention_heads must be a multiple of tensor_model_parallel_size\"",
        ),
        _ => ("pipeline stage", "Megatron-LM asserts \"num_layers must be divisible by transformer_pipeline_model_parallel_size\""),
    };
    let degree_name = if degree_role == Role::TensorParallel { "tensor parallel" } else { "pipeline parallel" };
    let fits = |room: Option<u64>| -> Vec<String> {
        divisors(count).into_iter().filter(|d| *d > 1 && room.is_none_or(|r| r.is_multiple_of(*d))).take(8).map(|d| d.to_string()).collect()
    };
    let help = match (room, fits(room), fits(None)) {
        (Some(room), both, _) if !both.is_empty() => {
            format!("use a {degree_name} degree that divides both the {count} {what} and the {room} GPUs the other degrees leave: {}", both.join(", "))
        }
        (_, _, any) if !any.is_empty() => format!("use a {degree_name} degree that divides {count}: {}", any.join(", ")),
        _ => format!("set {degree_name} to 1"),
    };
    let count_value = resolved.role(count_role)?;
    let mut diagnostic = at(ParallelDegreesMismatch, resolved, &[degree_role], format!("{count} {what} do not split evenly over {degree_name} {degree}"))
        .with_label(format!("{count} ÷ {degree} is not whole"))
        .with_note(format!("each {per} holds {what} ÷ {degree_name} = {count} ÷ {degree}; {constraint} at start-up"))
        .with_help(help);
    let label = if count_value.from_model.is_some() { format!("{count} {what} (from the model)") } else { format!("{count} {what}") };
    diagnostic = diagnostic.with_secondary(&count_value.file, count_value.span.clone(), label);
    Some(diagnostic)
}

/// The divisors of `n` (n ≤ 2^20 in practice: GPU, head and layer counts), ascending.
fn divisors(n: u64) -> Vec<u64> {
    (1..=n.min(1 << 20)).filter(|d| n.is_multiple_of(*d)).collect()
}

#[cfg(test)]
mod tests {
    use super::divisors;

    #[test]
    fn divisors_ascending() {
        assert_eq!(divisors(12), vec![1, 2, 3, 4, 6, 12]);
        assert_eq!(divisors(1), vec![1]);
    }
}
