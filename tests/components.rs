//! Every memory component's figure is pinned (issue 24: "changing one component by 30 % makes a
//! test fail"; issue 27: "every memory component has a test that fails when its figure changes by
//! 30 %"). Each case is a real config from the fixtures (or the corpus) run through `trainlint
//! estimate`; its rows are summed per component (`components[].component` in the JSON, the
//! `MemoryComponent::id` of `src/estimate/components/`) and held to `tests/golden/components.json`
//! within 1 %. Every component of `REGISTRY` must have a case where its figure is not zero, so a
//! change to any of them moves a pinned figure. `TRAINLINT_WRITE_COMPONENTS=1` rewrites the file:
//! review the diff as a snapshot, and say in the commit why a figure moved.

mod common;

use std::collections::BTreeMap;

/// (case, config, arguments). The corpus case needs `../shared` (CI has it).
const CASES: &[(&str, &str, &[&str])] = &[
    // QLoRA on Axolotl: weights (4-bit base, adapters), gradients, optimizer states, activations, logits, context.
    ("axolotl-qlora", "fixtures/memory/axolotl_llama3_qlora.yml", &["--gpu", "a100-80gb"]),
    // A full fine-tune with torch's foreach AdamW: the optimizer step's √v workspace.
    ("llama-factory-full", "fixtures/dialects/llama_factory/v1_train_full_single_gpu.yaml", &["--gpu", "a100-80gb"]),
    // Declared activation bytes per sample.
    ("declared-activations", "fixtures/rules/MEM003/small_batch_on_80gb.yaml", &["--gpu", "a100-80gb"]),
    // The spectrum seed: an EMA copy and the manifest's memory terms.
    ("ema-and-terms", "fixtures/seeds/000_spectrum_rtx4090/config.yaml", &["--gpu", "rtx-4090"]),
    // LLaMA-Factory's full SFT under DeepSpeed ZeRO-3 on 8 RTX 3090s (LLaMA-Factory#5977): DeepSpeed's
    // own estimator for the model states, and what ZeRO-3 keeps in flight.
    ("zero3", "fixtures/published/llama_factory/llamafactory-5977/llama3_full_sft.yaml", &["--gpu", "rtx-3090", "--world-size", "8"]),
    // torchtune's full DPO on the 4 GPUs its header names: the frozen reference model.
    ("dpo-reference", "../shared/corpus/pytorch__torchtune/recipes/configs/llama3_1/8B_full_dpo.yaml", &["--gpu", "rtx-4090"]),
    // open-r1's README GRPO command (ZeRO-3, 8 processes, no vLLM), TRL's release not stated: priced
    // as the newest, whose peak is the generation: the whole policy gathered and the KV cache.
    ("grpo-generation", "fixtures/published/hf/trl-openr1-100/train.sh", &["--gpu", "a100-40gb"]),
    // The same command on TRL 0.14 (`trl==0.14.0`): each prompt trained as 8 completions, with
    // the reference model; GRPO's log-probabilities over the completion tokens.
    ("grpo-trl-0.14", "fixtures/memory/grpo_trl014/train.sh", &["--gpu", "a100-40gb"]),
    // Axolotl's GRPO (`rl: grpo`, its `trl:` section), a full bf16 fine-tune with `trl.beta`: the
    // reference model, and the generation's KV cache of 2 × 64 completions as its peak.
    ("axolotl-grpo", "fixtures/memory/axolotl_grpo.yaml", &["--gpu", "a100-80gb"]),
    // Fusion models that train a share of their parameters.
    ("vision-partial", "fixtures/memory/torchtune_llama3_2_vision_11B_full.yaml", &["--gpu", "rtx-4090", "--world-size", "4"]),
];

/// Per case, per component: the bytes of its rows at the estimate's micro batch.
type Figures = BTreeMap<String, BTreeMap<String, i64>>;

fn measure() -> Figures {
    let mut out = Figures::new();
    for (case, config, args) in CASES {
        let path = common::repo().join(config);
        if config.starts_with("../shared") && common::shared().is_none() {
            continue;
        }
        let text = path.display().to_string();
        let mut argv = vec!["estimate", "--output-format", "json", text.as_str()];
        argv.extend_from_slice(args);
        let output = common::trainlint(&argv);
        let value: serde_json::Value =
            serde_json::from_str(&common::stdout(&output)).unwrap_or_else(|e| panic!("{case}: {e}: {}{}", common::stdout(&output), common::stderr(&output)));
        let estimate = &value["estimates"][0];
        // A figure at an input the estimate solved (a sequence length that fits) moves with the band: not pinnable.
        assert!(estimate["solved"].is_null(), "{case}: the estimate solved {}: pin a config that states its inputs", estimate["solved"]);
        let mut per: BTreeMap<String, i64> = BTreeMap::new();
        for row in estimate["components"].as_array().unwrap_or_else(|| panic!("{case}: no estimate: {value:#}")) {
            *per.entry(row["component"].as_str().unwrap().to_owned()).or_default() += row["bytes"].as_i64().unwrap();
        }
        out.insert((*case).to_owned(), per);
    }
    out
}

/// The figures that differ by more than 1 % (and 1 MiB) from the pinned ones, and those missing.
fn differences(pinned: &Figures, now: &Figures) -> Vec<String> {
    let mut out = Vec::new();
    for (case, figures) in now {
        let Some(expected) = pinned.get(case) else {
            out.push(format!("{case}: not pinned"));
            continue;
        };
        for (component, bytes) in figures.iter().chain(expected.iter().filter(|(c, _)| !figures.contains_key(*c)).map(|(c, _)| (c, &0))) {
            let was = expected.get(component).copied().unwrap_or(0);
            let (a, b) = (was as f64, *bytes as f64);
            if (a - b).abs() > (0.01 * a.abs().max(b.abs())).max(1048576.0) {
                out.push(format!("{case} · {component}: {was} B pinned, {bytes} B now ({:+.1} %)", if a == 0.0 { 100.0 } else { (b / a - 1.0) * 100.0 }));
            }
        }
    }
    out
}

#[test]
fn every_memory_component_figure_is_pinned() {
    let path = common::repo().join("tests/golden/components.json");
    let now = measure();
    if std::env::var_os("TRAINLINT_WRITE_COMPONENTS").is_some() {
        std::fs::write(&path, serde_json::to_string_pretty(&now).unwrap() + "\n").unwrap();
    }
    let pinned: Figures = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let moved = differences(&pinned, &now);
    assert!(
        moved.is_empty(),
        "memory component figures moved (TRAINLINT_WRITE_COMPONENTS=1 cargo test --test components rewrites them; review why):\n{}",
        moved.join("\n")
    );
    // Every component of the registry has a case where it gives a figure: none can change unseen.
    for component in trainlint::estimate::components::REGISTRY {
        let id = component.id();
        assert!(
            pinned.values().any(|figures| figures.get(id).is_some_and(|b| *b > 0)),
            "component `{id}` has no pinned figure: add a case to CASES where it gives a row"
        );
    }
    // And a 30 % change of any pinned figure is caught (the check is not a no-op).
    for (case, figures) in &pinned {
        for (component, bytes) in figures.iter().filter(|(_, b)| **b > 0) {
            let mut changed = pinned.clone();
            changed.get_mut(case).unwrap().insert(component.clone(), (*bytes as f64 * 1.3) as i64);
            assert!(!differences(&pinned, &changed).is_empty(), "{case} · {component}: a 30 % change would pass");
        }
    }
}
