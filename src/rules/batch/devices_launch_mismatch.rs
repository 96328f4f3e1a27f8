use super::at;
use crate::declare_rule;
use crate::diagnostic::Diagnostic;
use crate::resolve::ResolvedConfig;
use crate::schema::Role;

declare_rule! {
    /// ## What it does
    /// Reports a config whose device count (× nodes) differs from the number of
    /// processes the launch script that runs it starts, for a framework that
    /// checks the two against each other at start-up: Lightning (and
    /// LightningCLI, litgpt through Fabric, NeMo) compares `devices × num_nodes`
    /// with the world size torchrun or SLURM gives it and raises.
    ///
    /// ## Why is this bad?
    /// The run dies at start-up, after the job waited in the queue and every
    /// node loaded its data: `ValueError: You set devices=1 and num_nodes=1 in
    /// Lightning, but the product (1 * 1) does not match the world size (8)`.
    /// And the batch the config was tuned for assumed its own count.
    ///
    /// ## Example
    /// ```sh,file=train.sh
    /// torchrun --nproc_per_node 8 train.py --config config.yaml
    /// ```
    ///
    /// ```yaml
    /// trainer:
    ///   accelerator: gpu
    ///   devices: 1
    ///   num_nodes: 1
    ///   accumulate_grad_batches: 4
    /// data:
    ///   batch_size: 16
    /// ```
    ///
    /// Use instead:
    /// ```yaml
    /// trainer:
    ///   accelerator: gpu
    ///   devices: 8
    ///   num_nodes: 1
    ///   accumulate_grad_batches: 4
    /// data:
    ///   batch_size: 16
    /// ```
    ///
    /// ## Fix safety
    /// There is no fix: whether the config or the launch is right, and what
    /// the effective batch should be on the other count, is the author's choice.
    pub struct DevicesLaunchMismatch {
        name: "devices-launch-mismatch",
        severity: Error,
        fix: None,
        since: "0.1.0",
        check: Batch,
        options: [],
    }
}

pub fn check(resolved: &ResolvedConfig) -> Option<Diagnostic> {
    let (launched, from) = resolved.batch.launched_world.as_ref()?;
    let source = resolved.detection.dialect.refuses_other_world()?;
    // Processes, not the data-parallel world: the launcher starts one per GPU, model-parallel ones included.
    let world = resolved.processes()?;
    let framework = resolved.detection.dialect.title();
    let nodes = resolved.role(Role::Nodes).and_then(|v| v.as_u64());
    let processes = |n: u64| format!("{n} process{}", if n == 1 { "" } else { "es" });
    // A count the dialect derives rather than reads (nanotron's dp × tp × pp × cp, shown at
    // `parallelism.dp`): the key's own number is not the count.
    let written =
        |devices: &crate::resolve::RoleValue| devices.file.text().get(devices.span.clone()).and_then(|t| t.trim().parse::<u64>().ok()) == devices.as_u64();
    let stated = match (resolved.role(Role::Devices), nodes) {
        (Some(devices), Some(n)) if n > 1 => format!("`{}` × {n} nodes = {}", devices.path, processes(world)),
        (Some(devices), _) if !written(devices) => format!("{} (`{}` × the tensor, pipeline and context-parallel degrees)", processes(world), devices.path),
        (Some(devices), _) => format!("`{}: {}` ({})", devices.path, devices.value, processes(world)),
        _ => processes(world),
    };
    Some(
        at(
            DevicesLaunchMismatch,
            resolved,
            &[Role::Devices, Role::Nodes],
            format!("the config asks for {stated}, but {from} starts {}: {framework} refuses a device count that differs from the launcher's world", processes(*launched)),
        )
        .with_label(format!("{world} here, {launched} launched"))
        .with_note(format!(
            "{framework} compares its devices × nodes with the world size the launcher gives and stops at start-up ({source}); the batch values were also set for {}",
            processes(world)
        ))
        .with_help(format!("make the config's devices × nodes {launched}, or launch {}; then check the effective batch on that world", processes(world))),
    )
}
