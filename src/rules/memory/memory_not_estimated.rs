use super::at;
use crate::declare_rule;
use crate::diagnostic::Diagnostic;
use crate::resolve::ResolvedConfig;
use crate::resolve::model::ModelLookup;
use crate::schema::Role;

declare_rule! {
    /// ## What it does
    /// Says, once per config, that memory could not be estimated for its GPU
    /// targets, and why: the config names a model that is neither in the model
    /// catalog nor described by a local config.json, or one the catalog knows as
    /// an architecture the memory model does not support (a Mamba or
    /// convolution hybrid, Gemma 4); or it trains only part of
    /// the model (`adapter: lora`, `finetuning_type: lora`, a `lora_` model
    /// builder, TRL `use_peft`) without stating the trainable share, which the
    /// memory model does not derive yet; or it states a setting the memory
    /// model does not read yet (a DeepSpeed or FSDP config that shards the
    /// run, a memory-saving optimizer it does not price such as litgpt's GaLore
    /// or BAdam's ratio mode), which would otherwise be priced as an unsharded
    /// AdamW run and reported as not fitting; or it states no parameter
    /// count, no activation size, no memory terms and no calibration; or a
    /// memory term names a value the config does not have; or the model states
    /// fit but nothing gives the activations (no sequence length, or a maximum
    /// length set to `null`), so whether the run fits is not known; or it
    /// shards with FSDP over a data-parallel world nobody states.
    ///
    /// A config that names its model (`base_model`, `model_name_or_path`, a
    /// model builder, `model.name`) gets its parameter count and shape from
    /// the model catalog or the model's config.json (a local folder, or the
    /// Hugging Face cache; never the network). When neither knows the name,
    /// the finding points at it.
    ///
    /// ## Why is this bad?
    /// It is not wrong; it is unchecked. trainlint does not guess model sizes:
    /// an unknown model is never reported as fitting.
    ///
    /// ## Example
    /// ```yaml
    /// trainlint: 1
    /// batch: {micro_batch: 8}
    /// gpus: [a100-80gb]
    /// ```
    ///
    /// Use instead:
    /// ```yaml
    /// trainlint: 1
    /// batch: {micro_batch: 8}
    /// model: {parameters: 125000000}
    /// memory: {activation_bytes_per_sample: "300 MiB"}
    /// gpus: [a100-80gb]
    /// ```
    ///
    /// A named model the catalog does not know:
    /// ```yaml
    /// trainlint: 1
    /// batch: {micro_batch: 8}
    /// model: {name: my-org/my-model, sequence_length: 2048}
    /// gpus: [a100-80gb]
    /// ```
    ///
    /// Use instead (a model the catalog lists):
    /// ```yaml
    /// trainlint: 1
    /// batch: {micro_batch: 1}
    /// precision: bf16-true
    /// model: {name: Qwen/Qwen2.5-0.5B, sequence_length: 2048}
    /// gpus: [a100-80gb]
    /// ```
    ///
    /// ## Fix safety
    /// There is no fix.
    pub struct MemoryNotEstimated {
        name: "memory-not-estimated",
        severity: Info,
        fix: None,
        since: "0.1.0",
        check: Memory,
        needs: [GpuTargets, MemoryModel],
        options: ["memory", "calibration", "models", "bindings"],
    }
}

/// MEM004 for a run without an estimate, placed and worded by the kind of reason (`Why`).
pub fn diagnostic(resolved: &ResolvedConfig, not: &crate::estimate::NotEstimable) -> Diagnostic {
    use crate::estimate::Why;
    let reason = not.0.as_str();
    if not.1 == Why::UnknownModel
        && let Some(ModelLookup::Unknown { name, .. }) = &resolved.model
        && let Some(named) = resolved.role(Role::Model)
    {
        let mut diagnostic = Diagnostic::new(MemoryNotEstimated, &named.file, named.span.clone(), format!("memory not estimated: {reason}"));
        diagnostic.stage = resolved.stage.clone();
        return diagnostic
            .with_label("not in the model catalog")
            .with_note("the catalog is matched by name (hub id, alias, model builder, litgpt name, or a path ending in one), case-insensitively, also under a re-upload org (NousResearch, TheBloke, unsloth, …) and without suffixes that keep the architecture (-hf, -chat, -Instruct, -GPTQ, …); trainlint does not guess sizes from a similar name")
            .with_help(format!(
                "describe it in the manifest: `[models.\"{name}\"]` with `same-as = \"<a catalog model with the same architecture>\"` or `config = \"<path to its config.json>\"`; or point `{}` at a local folder that holds its config.json, or put that file in the Hugging Face cache (`huggingface-cli download {name} config.json`)",
                named.path
            ));
    }
    if not.1 == Why::UnsupportedModel
        && let Some(ModelLookup::Unsupported { .. }) = &resolved.model
        && let Some(named) = resolved.role(Role::Model)
    {
        let mut diagnostic = Diagnostic::new(MemoryNotEstimated, &named.file, named.span.clone(), format!("memory not estimated: {reason}"));
        diagnostic.stage = resolved.stage.clone();
        return diagnostic
            .with_label("architecture not supported by the memory model")
            .with_note("the model catalog lists this model as known but lacking a layer type the parameter count needs (data/unsupported.json); trainlint does not price it as a similar transformer")
            .with_help(
                "state the parameter count and shape as roles (`parameters`, `hidden_size`, `layers`, `heads`, `vocab_size`; the manifest's `[bindings]` maps them to keys of this file), or add measured peaks as `[[calibration]]` in the manifest",
            );
    }
    if not.1 == Why::PartialTraining
        && let Some(adapter) = resolved.role(Role::Adapter)
    {
        let mut diagnostic = Diagnostic::new(MemoryNotEstimated, &adapter.file, adapter.span.clone(), format!("memory not estimated: {reason}"));
        diagnostic.stage = resolved.stage.clone();
        return diagnostic
            .with_label("adapter memory not modelled")
            .with_note("a LoRA-style run keeps the frozen base without gradients or optimizer states; trainlint counts LoRA/QLoRA/DoRA adapters from their rank and target modules when it knows the model's architecture, and does not model other partial training")
            .with_help("name a model the catalog knows (or describe it in the manifest's `[models]`), or state the trained share as the `trainable_fraction` role (the manifest's `[bindings]` maps it to a key of this file), or add measured peaks as `[[calibration]]` in the manifest");
    }
    if not.1 == Why::ActivationsUnknown {
        let (file, span, label) = match resolved.role(Role::SequenceLength) {
            Some(length) => (length.file.clone(), length.span.clone(), "no sequence length"),
            None => (std::sync::Arc::clone(resolved.source()), 0..0, "activations unknown"),
        };
        let mut diagnostic = Diagnostic::new(MemoryNotEstimated, &file, span, format!("memory not estimated: {reason}"));
        diagnostic.stage = resolved.stage.clone();
        return diagnostic
            .with_label(label)
            .with_note("activation memory grows with the sequence length: without it the peak, and so the fit, is not known")
            .with_help(
                "state the longest sequence the run trains on (the framework's max length / cutoff key), or declare `memory.activation_bytes_per_sample`",
            );
    }

    if not.1 == Why::Unmodelled
        && let Some(unmodelled) = resolved.detection.dialect.memory_unmodelled(&resolved.tree)
        && let Some(entry) = resolved.tree.entry_dotted(&unmodelled.path)
    {
        let file = resolved.files.get(entry.value.origin).unwrap_or(resolved.source());
        let mut diagnostic = Diagnostic::new(MemoryNotEstimated, file, entry.key_span.clone(), format!("memory not estimated: {reason}"));
        diagnostic.stage = resolved.stage.clone();
        return diagnostic
            .with_label("not modelled yet")
            .with_note("pricing this run as an unsharded AdamW run would report a false \"does not fit\"; trainlint says it does not know instead")
            .with_help("add measured peaks as `[[calibration]]` in the manifest to check this run's fit now");
    }
    at(MemoryNotEstimated, resolved, None, None, format!("memory not estimated: {reason}"))
        .with_label("memory unknown")
        .with_note("the GPU targets cannot be checked for fit without memory facts; trainlint does not guess them")
        .with_help(
            "state `model.parameters` and `memory.activation_bytes_per_sample` (or memory terms), or add measured peaks as `[[calibration]]` in the manifest",
        )
}

/// Why a MEM004 finding gives no memory verdict, in a few words for the summary line the human
/// formats print when infos are folded ("23 name a model not in the catalog"), by the finding's
/// label; and the model it names, where that is the reason.
pub(crate) fn summary_reason(diagnostic: &Diagnostic) -> (&'static str, Option<String>) {
    let model = || diagnostic.message.split('`').nth(1).map(str::to_owned);
    match diagnostic.label.as_deref() {
        Some("not in the model catalog") => ("name a model not in the catalog", model()),
        Some("architecture not supported by the memory model") => ("use an architecture the memory model does not support", model()),
        Some("no sequence length" | "activations unknown") => ("state no sequence length", None),
        Some("sharded over an unknown number of GPUs") => ("shard over a world nothing states (`--world-size N`)", None),
        Some("adapter memory not modelled") => ("train an adapter of a model whose shape is unknown", None),
        Some("not modelled yet") => ("use a setting not modelled yet", None),
        _ if diagnostic.message.contains(crate::estimate::NOT_TRAINING) => ("are not training runs", None),
        _ => ("state no model or parameter count", None),
    }
}

/// MEM004 for a run sharded over a world nobody states (`NotEstimable::world`), at the key that
/// shards it; another reason is `diagnostic`'s.
pub(crate) fn diagnostic_world(resolved: &ResolvedConfig, not_estimable: &crate::estimate::NotEstimable) -> Diagnostic {
    let reason = &not_estimable.0;
    let key = match not_estimable.world_unknown() {
        Some(crate::estimate::WorldUnknown::Fsdp) => resolved.role(Role::Fsdp),
        Some(crate::estimate::WorldUnknown::Zero) => resolved.role(Role::ZeroStage),
        None => None,
    };
    let Some(key) = key else { return diagnostic(resolved, not_estimable) };
    let mut diagnostic = Diagnostic::new(MemoryNotEstimated, &key.file, key.span.clone(), format!("memory not estimated: {reason}"));
    diagnostic.stage = resolved.stage.clone();
    diagnostic
        .with_label("sharded over an unknown number of GPUs")
        .with_note("each GPU holds 1/W of the model states, W being the data-parallel world; trainlint does not guess W")
        .with_help("pass `--world-size N` (or set `world-size = N` in the manifest) to estimate the run on N GPUs")
}
