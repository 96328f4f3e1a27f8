#!/usr/bin/env python3
"""State every row of our own GPU measurements (measured_h200.json) as a trainlint run.

`scripts/measure_gpu_peaks.py` measured 38 training setups on one NVIDIA H200
(2026-11-26, torch 2.11.0+cu130, transformers 5.17.0, peft 0.21.0, bitsandbytes 0.50.2);
see data/measured_gpu_peaks.md for the method (the file keeps its name; the card that was lent
is recorded in each JSON's `device`).

Writes data/measured_runs.json in the shape of data/published_runs.json, so that
tests/accuracy.rs reads both the same way. `compare` is always `tensors`: the script records
`torch.cuda.max_memory_allocated()`, which holds no CUDA context, and the estimate is
compared without its context component. `reserved_bytes` rides along for the book.

The mapping, field by field (what the script did -> what the native run says):
- model: the row's `hf_id` (the architecture the script built from config.json numbers);
- precision: fp32 -> 32-true; bf16-mixed (fp32 master weights, autocast) -> bf16-mixed;
  bf16-pure (weights, gradients, AdamW states bf16) -> bf16-true;
- LoRA: r, targets attn(q,k,v,o) -> query/key/value/projection, (q,v) -> query/value,
  all-linear -> all-linear; the frozen base is loaded in bf16 (the script's `weights_dtype`);
- QLoRA: adapter qlora, base_weights int4 (nf4, double quantisation), kbit_prepare as run
  (peft's prepare_model_for_kbit_training, or not in the `noprep` row);
- attention: sdpa or eager, as built; logits: upcast (transformers' ForCausalLMLoss casts
  the logits to fp32, recorded per row as `loss_upcasts_logits`);
- activation checkpointing: full (gradient_checkpointing_enable) or none;
- optimizer: torch.optim.AdamW (foreach or fused: same states).
Standard library only: `python3 data/measured_runs.py`.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
PRECISION = {"fp32": "32-true", "bf16-mixed": "bf16-mixed", "bf16-pure": "bf16-true"}
TARGETS = {
    ("q_proj", "k_proj", "v_proj", "o_proj"): ["query", "key", "value", "projection"],
    ("q_proj", "v_proj"): ["query", "value"],
    ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"): "all-linear",
    # Phi-3's fused projections (transformers modeling_phi3.py): every linear of a block.
    ("qkv_proj", "o_proj", "gate_up_proj", "down_proj"): "all-linear",
}


def targets(row):
    t = row["lora_targets"]
    if isinstance(t, str):
        return "all-linear" if t == "all-linear" else [t]
    key = tuple(t)
    if key not in TARGETS:
        raise SystemExit(f"{row['id']}: LoRA targets {t} not mapped")
    return TARGETS[key]


def run(row):
    model = {
        "name": row["hf_id"],
        "sequence_length": row["seq_len"],
        "attention": row["attn_impl"],
        "activation_checkpointing": "full" if row["grad_ckpt"] else "none",
        "logits": "upcast" if row.get("loss_upcasts_logits", True) else "chunked",
    }
    if row["method"] in ("lora", "qlora"):
        model["adapter"] = row["method"]
        model["lora_rank"] = row["lora_r"]
        model["lora_targets"] = targets(row)
    if row["method"] == "qlora":
        model["base_weights"] = "int4"
        # peft.prepare_model_for_kbit_training ran (the script's default; `kbit_prepare` row field).
        model["kbit_prepare"] = row.get("kbit_prepare") is not False
    return {
        "trainlint": 1,
        "precision": PRECISION[row["precision"]],
        "optimizer": "adamw",
        "batch": {"micro_batch": row["micro_batch"]},
        "parallel": {"devices": 1},
        "model": model,
    }


def main():
    data = json.load(open(os.path.join(HERE, "measured_h200.json")))
    capacity = int(data["device"].split(",")[1].split()[0]) * 2**20
    out = []
    for row in data["rows"]:
        if row.get("kind") != "train":
            continue
        method = row["method"]
        out.append({
            "id": f"h200-{row['id']}",
            "method": method,
            "framework": "transformers+peft",
            "metric": "max_memory_allocated",
            "gpu": "h200",
            "capacity_bytes": capacity,
            "measured_bytes": None if row["oom"] else row["allocated_bytes"],
            "reserved_bytes": None if row["oom"] else row["reserved_bytes"],
            "oom": bool(row["oom"]),
            "compare": "tensors",
            "excluded": None,  # every setup counts: each one was run as stated
            "run": run(row),
        })
    with open(os.path.join(HERE, "measured_runs.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(f"{len(out)} runs, {sum(1 for r in out if r['excluded'] is None)} counted")


if __name__ == "__main__":
    main()
