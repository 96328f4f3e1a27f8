#!/usr/bin/env python3
"""State every published measured peak (published_peaks.json) as a trainlint run.

Writes data/published_runs.json: one object per row with
- `run`: the run in trainlint's native format (what the row's setup says, field by field),
- `gpu`: the GPU catalog id of the card the row was measured (or failed) on,
- `measured_bytes`: the value in bytes (null for a published OOM),
- `compare`: what the estimate is compared with: `tensors` (max_memory_allocated: the
  estimate without the CUDA context), `reserved` (max_memory_reserved: that times the caching
  allocator's measured overhead) or `device` (nvidia-smi and unstated metrics: the reserved
  figure plus the CUDA context); the overhead is tests/accuracy.rs `ALLOCATOR_OVERHEAD`,
- `excluded`: why a row is left out of the statistics (null when it counts),
- `pending`: why a row is estimated and shown but counted apart (its model resolved only since issue 24 item 2).

The mapping is written out below so that it can be reviewed; nothing is fitted.
Standard library only: `python3 data/published_runs.py`.
"""
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
UNITS = {"GB": 1e9, "GiB": 2**30, "MiB": 2**20, "MB": 1e6}

# Rows published_peaks.md lists as suspect, and why.
SUSPECT = {
    "litgpt-phi3-full-1xa10g": "17.01 GB is below the bf16 weights + gradients + AdamW states of 3.8 B parameters (~30 GB): not the run the table describes (published_peaks.md)",
    "torchtune-l32-3b-full-baseline": "unpacked, sequence length unknown (published_peaks.md)",
}
# Qwen's LoRA rows "with embedding": finetune.py trains the embeddings and lm_head in full for a
# non-chat base (`modules_to_save = ["wte", "lm_head"]`, QwenLM/Qwen finetune.py @00dceebb
# L323-326); the restatement (plain LoRA) is not that run.
for _size in ("7b", "14b"):
    for _len in ("512", "4096"):
        SUSPECT[f"qwen1-{_size}-lora-emb-{_len}"] = "LoRA with the embeddings and lm_head trained in full (Qwen finetune.py modules_to_save); the restatement is plain LoRA"


# What the row's own config file says and the row does not carry: litgpt's `devices` and the
# accumulation `train.global_batch_size / devices / micro_batch_size` (`litgpt/args.py`
# `TrainArgs.gradient_accumulation_iters`), read in the yaml at the commit named. The README's
# 'Machine' column names the machine (its LoRA rows say 4xA10G for single-GPU runs), so where the
# yaml names fewer devices the yaml is the run: phi-2 runs on 2 of the 4 A10Gs. gemma-2b's yaml
# at the README's commit says `devices: 1`, which cannot hold the 17.43 GB (bf16 weights,
# gradients and AdamW of 3.0 B parameters are 24 GB), so its later yaml (`devices: 4`) is used.
LITGPT_YAML = {
    "litgpt-gemma2b-full-4xa10g": (4, 4, "config_hub/finetune/gemma-2b/full.yaml @0fe99f85: devices 4, global_batch_size 16, micro 1"),
    "litgpt-phi2-full-4xa10g": (2, 1, "config_hub/finetune/phi-2/full.yaml @0f9f6703: devices 2, global_batch_size 8, micro 4"),
    "litgpt-llama2-7b-full-4xa10g-oom": (4, 4, "config_hub/finetune/llama-2-7b/full.yaml @08bf15dd: devices 4, global_batch_size 64, micro 4"),
    "litgpt-llama3-8b-full-4xa10g-oom": (4, 4, "config_hub/finetune/llama-3-8b/full.yaml @0077627d: devices 4, global_batch_size 64, micro 4"),
    "litgpt-tinyllama-full-1xa10g": (1, 8, "config_hub/finetune/tiny-llama/full.yaml @089fc5c6: devices 1, global_batch_size 32, micro 4"),
    # Compared since issue 24 item 2 resolved stabilityai/stablelm-base-alpha-3b; the yaml at the README's commit 03ffc551.
    "litgpt-stablelm3b-full-4xa10g": (2, 4, "config_hub/finetune/stablelm-base-alpha-3b/full.yaml @0077627d: devices 2, global_batch_size 8, micro 1"),
}

# torchtune's optimization table adds `compile=True` from its third row on, and its LoRA/QLoRA
# rows run with the final row's flags (README 'Optimization flags': "compile=True" in the command).
TORCHTUNE_COMPILED = ("torchtune-l32-3b-full-packed-compile", "torchtune-l32-3b-full-chunkedce", "torchtune-l32-3b-full-ac",
                      "torchtune-l32-3b-full-optinbwd", "torchtune-l32-3b-full-actoffload", "torchtune-l32-3b-full-8bitadamw",
                      "torchtune-l32-3b-lora", "torchtune-l32-3b-qlora")

# torchtune's module names (`modules/attention.py` `output_proj`) in trainlint's canonical ones.
TARGET_NAMES = {"output_proj": "o"}


def precision(row):
    text = (row["precision"] or "").lower()
    fw = row["framework"]
    if text.startswith("bf16-true") or text.startswith("bf16 (pure") or "pure bfloat16" in text:
        return "bf16-true"
    if text.startswith("bf16 autocast") or text.startswith("bf16-mixed"):
        return "bf16-mixed"
    if text.startswith("fp16 autocast") or text.startswith("16-mixed"):
        return "16-mixed"
    if text.startswith("fp32"):
        return "32-true"
    if not text:
        # LLaMA-Factory's comparison and the Unsloth baselines run Hugging Face with bf16 autocast;
        # the DeepSpeed GPT-2 tutorial runs Megatron with fp16 (its ds_config `fp16.enabled: true`).
        return {"llamafactory": "bf16-mixed", "hf": "bf16-mixed", "deepspeed": "16-mixed"}.get(fw)
    raise SystemExit(f"{row['id']}: precision {row['precision']!r} not mapped")


def optimizer(row):
    text = (row["optimizer"] or "adamw").lower()
    if "8-bit" in text and "not 8-bit" not in text:
        return "adamw-8bit"
    if "adafactor" in text:
        return "adafactor"
    if "fused=true" in text:
        return "adamw-fused"
    return "adamw"


def sharding(row):
    text = row["sharding"] or ""
    out, parallel = {}, {}
    if text.startswith("FULL_SHARD"):
        out["fsdp"] = True
        m = re.search(r"tensor parallel (\d+)", text)
        if m:
            parallel["tensor"] = int(m.group(1))
    elif text.startswith("ZeRO-3"):
        out["zero_stage"] = 3
    elif text.startswith("ZeRO-2"):
        out["zero_stage"] = 2
    if row["offload"] == "cpu":
        out["offload_optimizer"] = True
        if out.get("zero_stage") == 3 or out.get("fsdp"):
            out["offload_params"] = True
    return out, parallel


def gpu_id(text):
    t = (text or "").lower()
    table = [
        ("a10g", "a10g"), ("a100-sxm4-80gb", "a100-80gb"), ("a100 80gb", "a100-80gb"), ("a100 40gb", "a100-40gb"),
        ("rtx 3090", "rtx-3090"), ("rtx 4090", "rtx-4090"), ("rtx a6000", "rtx-a6000"), ("v100-sxm3 32gb", "v100-32gb"),
        ("v100", "v100-16gb"), ("h100 96gb", "h100-96gb"), ("h100 80gb", "h100-sxm"), ("a100 (size not stated; 405b", "a100-80gb"),
        ("a100 (size not stated)", "a100-80gb"), ("40gb gpus", "a100-40gb"), ("24gb gpus", "rtx-3090"),
    ]
    for needle, gid in table:
        if needle in t:
            return gid
    m = re.search(r"(\d+) ?gb gpu", t)
    if m:
        return f"{m.group(1)}gb"
    return None


# Memory of the GPU catalog's cards (MiB, src/gpus catalog) and of the cards it does not list
# (nominal size in GiB as the source writes it: "H100 96GB HBM2e", "8 GB GPU").
CATALOG_MIB = {"a10g": 23028, "a100-80gb": 81920, "a100-40gb": 40960, "rtx-3090": 24576, "rtx-4090": 24564,
               "v100-16gb": 16384, "v100-32gb": 32768, "rtx-a6000": 49140, "h100-sxm": 81559}


def capacity_bytes(gid):
    if gid in CATALOG_MIB:
        return CATALOG_MIB[gid] * 2**20
    m = re.match(r"(?:h100-)?(\d+)gb$", gid or "")
    return int(m.group(1)) * 2**30 if m else None


def checkpointing(row):
    if row["grad_checkpointing"] is None:
        # Not published: the framework's default. torchtune's recipe configs set
        # `enable_activation_checkpointing: True`; LLaMA-Factory checkpoints unless
        # `disable_gradient_checkpointing` (hparams/model_args.py); HF TrainingArguments
        # `gradient_checkpointing=False`. A published OOM is tested with checkpointing on (the strict case).
        on = row["oom"] or row["framework"] in ("torchtune", "llamafactory")
        return "full" if on else "none"
    if not row["grad_checkpointing"]:
        return "none"
    # torchtitan's selective AC (`activation_checkpoint.mode = "selective"`) keeps most of each
    # layer's activations (op mode: the outputs of every other matmul, SDPA's); trainlint's
    # `selective` keeps all but the attention scores, which bounds it from above.
    text = ((row["notes"] or "") + " " + (row["quote"] or "")).lower()
    if "selective ac" in text or "selective activation checkpointing" in text:
        return "selective"
    # torchtune's optimization table adds each technique on top of the previous ones
    # (README: "except for LoRA and QLoRA, which do not use optimizer_in_bwd or AdamW8bit"),
    # so its activation-offloading, 8-bit AdamW, LoRA and QLoRA rows offload activations
    # (`enable_activation_offloading`).
    if row["id"] in ("torchtune-l32-3b-lora", "torchtune-l32-3b-qlora", "torchtune-l32-3b-full-actoffload", "torchtune-l32-3b-full-8bitadamw"):
        return "offload"
    return "full"


LOGITS = {"litgpt": "chunked", "torchtune": "chunked"}


def logits(row):
    # torchtune's optimization table adds chunked cross-entropy at its fourth row; before it the
    # recipe's `TransformerDecoder` returned `self.output(h).float()` (upcast) to `CrossEntropyLoss`.
    if row["id"] in ("torchtune-l32-3b-full-baseline", "torchtune-l32-3b-full-packed", "torchtune-l32-3b-full-packed-compile"):
        return "upcast"
    return LOGITS.get(row["framework"], "upcast")


def run(row):
    model = {"name": row["model"]}
    seq = row["seq_len"]
    if seq is None and row["oom"]:
        seq = 512  # published as failing at every tested length: the shortest common one is the strictest test
    if seq is not None:
        model["sequence_length"] = seq
    model["attention"] = row["attention"]
    model["activation_checkpointing"] = checkpointing(row)
    model["logits"] = logits(row)
    lora = row["lora"]
    if lora:
        model["adapter"] = "qlora" if row["quant"] else "lora"
        model["lora_rank"] = lora["r"]
        if lora.get("targets"):
            t = lora["targets"]
            model["lora_targets"] = t[0] if t == ["all-linear"] else [TARGET_NAMES.get(n, n) for n in t]
    if row["quant"]:
        model["base_weights"] = "int4"
    shard, parallel = sharding(row)
    parallel["devices"] = row["gpus"] or 1
    batch = {"micro_batch": row["micro_batch"] or 1}
    # The accumulation a row's own record states (its command line or the source's text).
    said = re.search(r"gradient_accumulation_steps[ =](\d+)|accumulation of (\d+)", (row["notes"] or "") + " " + (row["quote"] or ""))
    if said:
        batch["accumulation"] = int(said.group(1) or said.group(2))
    if row["id"] in LITGPT_YAML:
        devices, accumulation, _ = LITGPT_YAML[row["id"]]
        parallel["devices"] = devices
        batch["accumulation"] = accumulation
    if row["id"] in TORCHTUNE_COMPILED:
        model["compile"] = True
    if row["framework"] == "litgpt":
        # litgpt's `GPT` builds its own `lm_head` beside `transformer.wte` (`litgpt/model.py`
        # `GPT.__init__`): a tied checkpoint (Gemma) trains two V × h matrices.
        model["tie_embeddings"] = False
    out = {"trainlint": 1, "precision": precision(row), "optimizer": optimizer(row), "batch": batch, "parallel": parallel, "model": model}
    if shard:
        out["sharding"] = shard
    if "optimizer_in_bwd" in (row["optimizer"] or ""):
        out["optimizer_in_backward"] = True
    return out


# Models the catalog resolves only since issue 24 item 2 (their names were not catalog names when issue 14's bars were
# set): their rows are estimated and shown by tests/accuracy.rs, but counted apart ("pending") until the estimate for
# their architecture (encoder-only BERT, encoder-decoder T5/mT5, BLOOM, StableLM-Alpha, Qwen v1) is checked against them.
RESOLVED_IN_ISSUE_24 = {
    "google-bert/bert-large-uncased", "stabilityai/stablelm-base-alpha-3b", "google/flan-t5-xl", "google/flan-t5-xxl",
    "bigscience/T0_3B", "bigscience/mt0-xxl", "bigscience/bloomz-7b1", "Qwen/Qwen-1_8B", "Qwen/Qwen-1_8B-Chat",
    "Qwen/Qwen-1_8B-Chat-Int4", "Qwen/Qwen-14B", "Qwen/Qwen-14B-Chat", "Qwen/Qwen-14B-Chat-Int4", "Qwen/Qwen-72B-Chat",
    "Qwen/Qwen-72B-Chat-Int4",
}


def pending(row):
    if row["model"] in RESOLVED_IN_ISSUE_24:
        return "model resolved since issue 24 item 2; its estimate is not yet checked against published rows"
    return None


def excluded(row):
    if row["id"] in SUSPECT:
        return SUSPECT[row["id"]]
    notes = (row["notes"] or "").lower()
    if "sum over" in notes or "summed over" in notes:
        return "the published value is the sum over GPUs"
    if row["value"] is not None and row["seq_len"] is None:
        return "sequence length not published"
    if row["id"].startswith("torchtune-l31-"):
        return "the table does not publish the config, optimizer or checkpointing of each row (torchtune README 'Memory and training speed')"
    if "72-80" in (row["quote"] or ""):
        return "a range read off a screenshot"
    return None


def main():
    rows = json.load(open(os.path.join(HERE, "published_peaks.json")))
    out = []
    for row in rows:
        value = row["value"]
        out.append({
            "id": row["id"],
            "method": row["method"],
            "framework": row["framework"],
            "metric": row["metric"],
            "gpu": gpu_id(row["gpu"]),
            "capacity_bytes": capacity_bytes(gpu_id(row["gpu"])),
            "measured_bytes": None if value is None else value * UNITS[row["unit"]],
            "oom": bool(row["oom"]),
            "compare": {"max_memory_allocated": "tensors", "max_memory_reserved": "reserved"}.get(row["metric"], "device"),
            "excluded": excluded(row),
            "pending": pending(row),
            "run": run(row),
        })
    with open(os.path.join(HERE, "published_runs.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(f"{len(out)} runs, {sum(1 for r in out if r['excluded'] is None)} counted")


if __name__ == "__main__":
    main()
