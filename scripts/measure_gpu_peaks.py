#!/usr/bin/env python3
"""Measure peak GPU memory of real training setups, for trainlint's accuracy table (issue 14, item 5).

Each setup builds a causal LM FROM ITS CONFIG with random weights (no download: the
architecture numbers below are those of the public model, see MODELS), runs a few
optimizer steps on random token batches, and records PyTorch's caching-allocator peaks:

  * allocated_bytes = torch.cuda.max_memory_allocated()  (live tensors)
  * reserved_bytes  = torch.cuda.max_memory_reserved()   (segments cudaMalloc'ed by the allocator)

both reset with torch.cuda.reset_peak_memory_stats() just before the first step, so the
weights (and anything else alive then) are included, the CUDA context is NOT. The CUDA
context is measured once, as a separate row ("kind": "context"), with nvidia-smi in the
same process (`nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits`).

Every setup runs in a fresh process: the parent imports torch/transformers/peft without
touching CUDA and forks one child per setup (CUDA is initialised in the child only), so
no allocator state, cached kernels or fragmentation leak from one setup to the next.
`--spawn` runs each setup in a new interpreter instead (slower, same numbers).

Semantics of the precisions (what the rows call them):
  fp32        weights, gradients, AdamW states fp32; no autocast.
  bf16-mixed  weights (master) fp32, forward + loss under torch.autocast(bfloat16), gradients
              and AdamW states fp32 (HF Trainer `bf16=True`, Lightning "bf16-mixed").
  bf16-pure   weights, gradients and AdamW states bf16; no autocast (Lightning "bf16-true";
              torch.optim.AdamW keeps exp_avg/exp_avg_sq in the parameter dtype).
For LoRA/QLoRA the frozen base is stored in bf16 (or nf4 for QLoRA);
  lora bf16-mixed  adapters fp32 (peft get_peft_model(autocast_adapter_dtype=True), the
                   default), forward under autocast(bfloat16): a bf16-loaded base trained
                   with HF Trainer `bf16=True` (accelerate autocast).
  lora bf16-pure   adapters bf16 (autocast_adapter_dtype=False), no autocast (litgpt bf16-true).
Loss: transformers' default causal-LM loss (model(input_ids, labels=input_ids).loss,
transformers/loss/loss_utils.py ForCausalLMLoss, which upcasts the logits to fp32; the
script checks the installed source and records "loss_upcasts_logits").
Optimizer: torch.optim.AdamW(lr=1e-5, weight_decay=0.0), PyTorch's default implementation
(foreach on CUDA) unless the row says fused=True; zero_grad(set_to_none=True) after each step.
Gradient checkpointing: model.gradient_checkpointing_enable({"use_reentrant": False}).

QLoRA: needs bitsandbytes (not in the device image; carried). transformers only quantizes
in from_pretrained, so the script does what transformers' bitsandbytes integration does
(replace every nn.Linear except lm_head by bnb.nn.Linear4bit with nf4, double quantization,
bf16 compute) on the random-weight model, then optionally peft.prepare_model_for_kbit_training
(which casts the remaining 16-bit parameters -- embeddings, norms, lm_head -- to fp32).

Usage (on a CUDA machine; QLoRA rows need --bnb-path, see data/measured_gpu_peaks.md):
  python3 scripts/measure_gpu_peaks.py --out data/measured_h200.json --bnb-path .whl/bnb_site
  python3 scripts/measure_gpu_peaks.py --list
  python3 scripts/measure_gpu_peaks.py --round3 --out $OUT/measured_h100.json --bnb-path .whl/bnb_site  # issue 24 item 4
  python3 scripts/measure_gpu_peaks.py --only lora-l8b-r16-all-bf16-mixed-s2048-m2-ckpt --out /tmp/x.json --append
Anywhere (no GPU needed):
  python3 scripts/measure_gpu_peaks.py --check-params          # architectures vs published totals
  python3 scripts/measure_gpu_peaks.py --smoke --out /tmp/s.json  # every code path on the CPU, tiny models
"""

import argparse
import datetime
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
import traceback

GIB = 1024**3

# --smoke (environment MEASURE_GPU_PEAKS_SMOKE=1, inherited by the children): run the same
# code paths on the CPU with shrunken models (2 layers, hidden 64, vocabulary 512, seq <= 64)
# to check the script itself on a machine without a GPU. Its numbers mean nothing (all
# memory fields are 0) and it must never write to data/.
SMOKE = os.environ.get("MEASURE_GPU_PEAKS_SMOKE") == "1"
DEVICE = "cpu" if SMOKE else "cuda"


def _cuda(fn):
    """torch.cuda.<fn>() on the GPU; 0 in smoke mode."""
    import torch

    if SMOKE:
        return 0
    return getattr(torch.cuda, fn)()

# ---------------------------------------------------------------------------------------
# Architectures. Numbers are the public models' config.json values; sources:
#   litgpt  = Lightning-AI/litgpt litgpt/config.py @ 0006c973aa7d6ace293e2a5fedaf1f8f804f960c
#             (each entry there cites the model's huggingface.co/.../config.json)
#   hf      = the model's config.json on huggingface.co (URL given per model)
#   gpt2    = transformers src/transformers/models/gpt2/configuration_gpt2.py defaults,
#             which are openai-community/gpt2's config.json
# published_params: the checkpoint's total parameter count (Llama-3.1-8B and Mistral-7B as
# quoted in issue 14; the others as reported for the checkpoints' safetensors). `--check-params`
# builds every model on the meta device and checks that the architecture gives exactly this
# total (it does for all six with transformers 5.17), so the random-weight models below are
# the real architectures.
# rope_scaling (Llama 3.x) is left out: it changes the values of the rotary inverse
# frequencies only, not any tensor's shape, so it has no effect on memory.
MODELS = {
    "gpt2": dict(
        family="gpt2",
        hf_id="openai-community/gpt2",
        source="transformers configuration_gpt2.py defaults = https://huggingface.co/openai-community/gpt2/blob/main/config.json",
        config=dict(vocab_size=50257, n_positions=1024, n_embd=768, n_layer=12, n_head=12, tie_word_embeddings=True),
        published_params=124_439_808,
    ),
    "qwen2.5-0.5b": dict(
        family="qwen2",
        hf_id="Qwen/Qwen2.5-0.5B",
        source="litgpt config.py 'Qwen2.5-0.5B{}' + https://huggingface.co/Qwen/Qwen2.5-0.5B/blob/main/config.json (tie_word_embeddings: true)",
        config=dict(
            vocab_size=151936,
            hidden_size=896,
            intermediate_size=4864,
            num_hidden_layers=24,
            num_attention_heads=14,
            num_key_value_heads=2,
            max_position_embeddings=32768,
            rope_theta=1000000.0,
            rms_norm_eps=1e-6,
            tie_word_embeddings=True,
            use_sliding_window=False,
        ),
        published_params=494_032_768,
    ),
    "tinyllama-1.1b": dict(
        family="llama",
        hf_id="TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T",
        source="litgpt config.py 'tiny-llama-1.1b{}' + https://huggingface.co/TinyLlama/TinyLlama-1.1B-Chat-v1.0/blob/main/config.json (tie_word_embeddings: false)",
        config=dict(
            vocab_size=32000,
            hidden_size=2048,
            intermediate_size=5632,
            num_hidden_layers=22,
            num_attention_heads=32,
            num_key_value_heads=4,
            max_position_embeddings=2048,
            rope_theta=10000.0,
            rms_norm_eps=1e-5,
            tie_word_embeddings=False,
        ),
        published_params=1_100_048_384,
    ),
    "llama-3.2-1b": dict(
        family="llama",
        hf_id="meta-llama/Llama-3.2-1B",
        source="litgpt config.py 'Llama-3.2-1B{}' + https://huggingface.co/meta-llama/Llama-3.2-1B/blob/main/config.json (head_dim 64, tie_word_embeddings: true)",
        config=dict(
            vocab_size=128256,
            hidden_size=2048,
            intermediate_size=8192,
            num_hidden_layers=16,
            num_attention_heads=32,
            num_key_value_heads=8,
            head_dim=64,
            max_position_embeddings=131072,
            rope_theta=500000.0,
            rms_norm_eps=1e-5,
            tie_word_embeddings=True,
        ),
        published_params=1_235_814_400,
    ),
    "llama-3.1-8b": dict(
        family="llama",
        hf_id="meta-llama/Llama-3.1-8B",
        source="litgpt config.py 'Llama-3.1-8B{}' + https://huggingface.co/meta-llama/Llama-3.1-8B/blob/main/config.json (tie_word_embeddings: false)",
        config=dict(
            vocab_size=128256,
            hidden_size=4096,
            intermediate_size=14336,
            num_hidden_layers=32,
            num_attention_heads=32,
            num_key_value_heads=8,
            max_position_embeddings=131072,
            rope_theta=500000.0,
            rms_norm_eps=1e-5,
            tie_word_embeddings=False,
        ),
        published_params=8_030_261_248,
    ),
    "mistral-7b-v0.1": dict(
        family="mistral",
        hf_id="mistralai/Mistral-7B-v0.1",
        source="litgpt config.py 'Mistral-7B-{}v0.1' + https://huggingface.co/mistralai/Mistral-7B-v0.1/blob/main/config.json (sliding_window 4096, max_position_embeddings 32768)",
        config=dict(
            vocab_size=32000,
            hidden_size=4096,
            intermediate_size=14336,
            num_hidden_layers=32,
            num_attention_heads=32,
            num_key_value_heads=8,
            max_position_embeddings=32768,
            sliding_window=4096,
            rope_theta=10000.0,
            rms_norm_eps=1e-5,
            tie_word_embeddings=False,
        ),
        published_params=7_241_732_096,
    ),
    "gemma-2-2b": dict(
        family="gemma2",
        hf_id="google/gemma-2-2b",
        source="data/models.json 'google/gemma-2-2b' (litgpt config.py 'Gemma-2-2b' @0006c973; huggingface.co/google/gemma-2-2b config.json: head_dim 256, final_logit_softcapping 30, attn_logit_softcapping 50, sliding_window 4096, query_pre_attn_scalar 256)",
        config=dict(
            vocab_size=256000,
            hidden_size=2304,
            intermediate_size=9216,
            num_hidden_layers=26,
            num_attention_heads=8,
            num_key_value_heads=4,
            head_dim=256,
            max_position_embeddings=8192,
            tie_word_embeddings=True,
        ),
        published_params=2_614_341_888,
    ),
    "qwen3-1.7b": dict(
        family="qwen3",
        hf_id="Qwen/Qwen3-1.7B",
        source="data/models.json 'Qwen/Qwen3-1.7B' (litgpt config.py 'Qwen3-1.7B' @0006c973: norm_qk, head_size 128; huggingface.co/Qwen/Qwen3-1.7B config.json tie_word_embeddings true)",
        config=dict(
            vocab_size=151936,
            hidden_size=2048,
            intermediate_size=6144,
            num_hidden_layers=28,
            num_attention_heads=16,
            num_key_value_heads=8,
            head_dim=128,
            max_position_embeddings=40960,
            rope_theta=1000000.0,
            tie_word_embeddings=True,
        ),
        published_params=1_720_574_976,
    ),
    "phi-3-mini": dict(
        family="phi3",
        hf_id="microsoft/Phi-3-mini-4k-instruct",
        source="data/models.json 'microsoft/Phi-3-mini-4k-instruct' (litgpt config.py 'Phi-3-mini-4k-instruct' @0006c973; torchtune phi3_mini builder); fused qkv_proj and gate_up_proj (transformers modeling_phi3.py)",
        config=dict(
            vocab_size=32064,
            hidden_size=3072,
            intermediate_size=8192,
            num_hidden_layers=32,
            num_attention_heads=32,
            num_key_value_heads=32,
            max_position_embeddings=4096,
            tie_word_embeddings=False,
        ),
        published_params=3_821_079_552,
    ),
    "smollm2-1.7b": dict(
        family="llama",
        hf_id="HuggingFaceTB/SmolLM2-1.7B",
        source="data/models.json 'HuggingFaceTB/SmolLM2-1.7B' (litgpt config.py 'SmolLM2-1.7B' @0006c973; torchtune smol builders)",
        config=dict(
            vocab_size=49152,
            hidden_size=2048,
            intermediate_size=8192,
            num_hidden_layers=24,
            num_attention_heads=32,
            num_key_value_heads=32,
            max_position_embeddings=8192,
            rope_theta=130000.0,
            tie_word_embeddings=True,
        ),
        published_params=1_711_376_384,
    ),
    "qwen1.5-moe-a2.7b": dict(
        family="qwen2_moe",
        hf_id="Qwen/Qwen1.5-MoE-A2.7B",
        source="data/models.json 'Qwen/Qwen1.5-MoE-A2.7B' (transformers configuration_qwen2_moe.py @008e5743: 60 experts, 4 active, expert 1408, shared expert 5632 with gate)",
        config=dict(
            vocab_size=151936,
            hidden_size=2048,
            intermediate_size=5632,
            num_hidden_layers=24,
            num_attention_heads=16,
            num_key_value_heads=16,
            max_position_embeddings=32768,
            num_experts=60,
            num_experts_per_tok=4,
            moe_intermediate_size=1408,
            shared_expert_intermediate_size=5632,
            tie_word_embeddings=False,
        ),
        published_params=14_315_784_192,
    ),
}

ATTN = ["q_proj", "k_proj", "v_proj", "o_proj"]
QV = ["q_proj", "v_proj"]
ALL_LINEAR = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
# Phi-3's fused projections: every linear of a block.
PHI3_ALL = ["qkv_proj", "o_proj", "gate_up_proj", "down_proj"]
TARGET_NAMES = {
    tuple(ATTN): "attn(q,k,v,o)",
    tuple(QV): "attn(q,v)",
    tuple(ALL_LINEAR): "all-linear(q,k,v,o,gate,up,down)",
    tuple(PHI3_ALL): "all-linear(qkv,o,gate_up,down)",
}

MODEL_ABBR = {
    "gpt2": "gpt2",
    "qwen2.5-0.5b": "q05",
    "tinyllama-1.1b": "tl",
    "llama-3.2-1b": "l1b",
    "llama-3.1-8b": "l8b",
    "mistral-7b-v0.1": "m7b",
    "gemma-2-2b": "g2b",
    "qwen3-1.7b": "q3",
    "phi-3-mini": "phi3",
    "smollm2-1.7b": "smol",
    "qwen1.5-moe-a2.7b": "qmoe",
}


# Optimizers: "adamw" is torch.optim.AdamW; the others are bitsandbytes' (need --bnb-path).
OPTIMS = {
    "adamw": "torch.optim.AdamW",
    "pagedadamw32bit": "bitsandbytes.optim.PagedAdamW32bit",
    "pagedadamw8bit": "bitsandbytes.optim.PagedAdamW8bit",
    "adamw8bit": "bitsandbytes.optim.AdamW8bit",
}
# FSDP on one GPU (world size 1, NCCL): "fsdp1" = FullyShardedDataParallel, "fsdp2" = fully_shard.
FSDP_KINDS = (None, "fsdp1", "fsdp2")


def setup(model, method, precision, micro, seq, ckpt, attn="sdpa", r=None, targets=None, fused=False, lora_dropout=0.05, kbit_prepare=True, expect_oom=False, note="", optim="adamw", fsdp=None):
    assert optim in OPTIMS and fsdp in FSDP_KINDS
    abbr = MODEL_ABBR[model]
    parts = [method, abbr]
    if method != "full":
        parts.append(f"r{r}")
        parts.append({tuple(ATTN): "attn", tuple(QV): "qv", tuple(ALL_LINEAR): "all", tuple(PHI3_ALL): "all"}[tuple(targets)])
    parts += [precision, f"s{seq}", f"m{micro}", "ckpt" if ckpt else "nockpt"]
    if attn != "sdpa":
        parts.append(attn)
    if fused:
        parts.append("fused")
    if method != "full" and lora_dropout != 0.05:
        parts.append(f"do{lora_dropout}")
    if method == "qlora" and not kbit_prepare:
        parts.append("noprep")
    if optim != "adamw":
        parts.append(optim)
    if fsdp:
        parts.append(fsdp)
    return dict(
        id="-".join(parts),
        model=model,
        method=method,
        precision=precision,
        micro_batch=micro,
        seq_len=seq,
        grad_ckpt=ckpt,
        attn_impl=attn,
        lora_r=r,
        lora_targets=targets,
        fused=fused,
        lora_dropout=lora_dropout if method != "full" else None,
        kbit_prepare=kbit_prepare if method == "qlora" else None,
        expect_oom=expect_oom,
        note=note,
        optim=optim,
        fsdp=fsdp,
    )


# Ordered so that one setup of each kind runs early (a systematic failure shows at once)
# and the most useful rows come first if the time budget runs out.
GRID = [
    setup("gpt2", "full", "fp32", 8, 1024, False),
    setup("llama-3.2-1b", "lora", "bf16-mixed", 4, 2048, False, r=8, targets=ATTN),
    setup("tinyllama-1.1b", "qlora", "bf16-mixed", 4, 2048, True, r=16, targets=ALL_LINEAR),
    setup("gpt2", "full", "bf16-mixed", 8, 1024, False),
    setup("gpt2", "full", "bf16-pure", 8, 1024, False),
    setup("qwen2.5-0.5b", "full", "fp32", 4, 512, False),
    setup("qwen2.5-0.5b", "full", "bf16-mixed", 4, 512, False),
    setup("qwen2.5-0.5b", "full", "bf16-pure", 4, 512, False),
    setup("qwen2.5-0.5b", "full", "bf16-mixed", 4, 2048, True),
    setup("qwen2.5-0.5b", "full", "bf16-pure", 8, 2048, False),
    setup("tinyllama-1.1b", "full", "fp32", 2, 2048, False),
    setup("tinyllama-1.1b", "full", "bf16-mixed", 2, 2048, False),
    setup("tinyllama-1.1b", "full", "bf16-pure", 2, 2048, False),
    setup("tinyllama-1.1b", "full", "bf16-pure", 2, 2048, False, fused=True),
    setup("tinyllama-1.1b", "full", "bf16-pure", 2, 2048, False, attn="eager"),
    setup("tinyllama-1.1b", "full", "bf16-mixed", 4, 2048, True),
    setup("llama-3.2-1b", "full", "bf16-mixed", 4, 2048, True),
    setup("llama-3.2-1b", "full", "bf16-pure", 1, 4096, False),
    setup("llama-3.1-8b", "lora", "bf16-mixed", 1, 512, False, r=8, targets=ATTN),
    setup("llama-3.1-8b", "lora", "bf16-mixed", 2, 2048, False, r=16, targets=ALL_LINEAR),
    setup("llama-3.1-8b", "lora", "bf16-mixed", 2, 2048, True, r=16, targets=ALL_LINEAR),
    setup("llama-3.1-8b", "lora", "bf16-pure", 2, 2048, True, r=16, targets=ALL_LINEAR),
    setup("llama-3.1-8b", "lora", "bf16-mixed", 4, 4096, True, r=32, targets=ALL_LINEAR),
    setup("llama-3.1-8b", "lora", "bf16-mixed", 1, 2048, False, r=16, targets=ALL_LINEAR, attn="eager"),
    setup("llama-3.1-8b", "qlora", "bf16-mixed", 1, 2048, True, r=16, targets=ALL_LINEAR),
    setup("llama-3.1-8b", "qlora", "bf16-mixed", 1, 2048, True, r=16, targets=ALL_LINEAR, kbit_prepare=False),
    setup("llama-3.1-8b", "qlora", "bf16-mixed", 4, 2048, True, r=16, targets=ALL_LINEAR),
    setup("llama-3.1-8b", "full", "bf16-mixed", 1, 512, True, expect_oom=True, note="fp32 master 32 GB + fp32 grads 32 GB + bf16 autocast copies: expected OOM"),
    setup("llama-3.1-8b", "lora", "bf16-mixed", 8, 4096, False, r=16, targets=ATTN, attn="eager", expect_oom=True, note="eager attention probabilities for 32 layers: expected OOM"),
    setup("llama-3.2-1b", "lora", "bf16-mixed", 4, 2048, False, r=16, targets=ALL_LINEAR),
    setup("llama-3.2-1b", "lora", "bf16-mixed", 8, 2048, True, r=32, targets=ALL_LINEAR),
    setup("tinyllama-1.1b", "lora", "bf16-mixed", 8, 2048, True, r=16, targets=ATTN),  # max_position_embeddings 2048
    setup("qwen2.5-0.5b", "lora", "bf16-mixed", 8, 2048, False, r=16, targets=ALL_LINEAR),
    setup("mistral-7b-v0.1", "lora", "bf16-mixed", 4, 2048, True, r=16, targets=ALL_LINEAR),
    setup("mistral-7b-v0.1", "lora", "bf16-mixed", 2, 4096, False, r=8, targets=QV),
    setup("mistral-7b-v0.1", "full", "bf16-pure", 1, 512, True, note="bf16 weights+grads+AdamW states (4 x 14.5 GB) + foreach temporaries, near the 80 GB limit"),
    setup("llama-3.1-8b", "lora", "bf16-mixed", 2, 2048, True, r=16, targets=ALL_LINEAR, lora_dropout=0.0),
    setup("mistral-7b-v0.1", "full", "bf16-pure", 4, 2048, False, expect_oom=True, note="activations of 4x2048 tokens without checkpointing on top of ~58 GB of states: expected OOM"),
    # Second round (2026-11-26): other architectures than Llama's.
    setup("gemma-2-2b", "full", "bf16-pure", 2, 2048, False, attn="eager", note="GeGLU, sandwich norms, 256k vocabulary, final logit softcapping; eager as Gemma 2 recommends"),
    setup("gemma-2-2b", "lora", "bf16-mixed", 4, 2048, True, r=16, targets=ALL_LINEAR),
    setup("qwen3-1.7b", "full", "bf16-mixed", 4, 2048, True, note="q/k norms"),
    setup("qwen3-1.7b", "lora", "bf16-mixed", 4, 2048, False, r=16, targets=ALL_LINEAR),
    setup("phi-3-mini", "lora", "bf16-mixed", 2, 2048, False, r=16, targets=PHI3_ALL, note="fused qkv_proj and gate_up_proj"),
    setup("phi-3-mini", "full", "bf16-pure", 1, 1024, True),
    setup("smollm2-1.7b", "full", "bf16-mixed", 4, 2048, False, note="multi-head attention (no GQA)"),
    setup("qwen1.5-moe-a2.7b", "lora", "bf16-mixed", 2, 2048, False, r=16, targets=ATTN, note="MoE: 60 experts, 4 active, a shared expert"),
    setup("qwen1.5-moe-a2.7b", "lora", "bf16-mixed", 4, 2048, True, r=16, targets=ATTN),
]

# Third round (issue 24, item 4): mechanisms that could not be settled from source.
# (a) QLoRA without gradient checkpointing: does bitsandbytes' MatMul4Bit keep its input?
# (b) bitsandbytes paged / 8-bit AdamW: do the states show in max_memory_allocated?
# (c) FSDP + LoRA on one GPU (world 1) against the same LoRA without FSDP.
# Ordered most important first (one of each mechanism early); `--round3` runs just these.
_TL_ALL = dict(r=16, targets=ALL_LINEAR)
ROUND3 = [
    setup("tinyllama-1.1b", "qlora", "bf16-mixed", 2, 2048, False, **_TL_ALL),
    setup("tinyllama-1.1b", "qlora", "bf16-mixed", 2, 2048, True, **_TL_ALL),
    setup("tinyllama-1.1b", "lora", "bf16-mixed", 2, 2048, False, **_TL_ALL, note="baseline of the QLoRA and FSDP rows"),
    setup("tinyllama-1.1b", "lora", "bf16-mixed", 2, 2048, False, **_TL_ALL, fsdp="fsdp1"),
    setup("qwen2.5-0.5b", "full", "bf16-pure", 4, 512, False, note="torch AdamW baseline of the bitsandbytes optimizer rows, with device-level memory"),
    setup("qwen2.5-0.5b", "full", "bf16-pure", 4, 512, False, optim="pagedadamw8bit"),
    setup("qwen2.5-0.5b", "full", "bf16-pure", 4, 512, False, optim="pagedadamw32bit"),
    setup("qwen2.5-0.5b", "full", "bf16-pure", 4, 512, False, optim="adamw8bit"),
    setup("tinyllama-1.1b", "lora", "bf16-mixed", 2, 2048, False, **_TL_ALL, fsdp="fsdp2"),
    setup("llama-3.1-8b", "qlora", "bf16-mixed", 1, 2048, False, **_TL_ALL),
    setup("llama-3.1-8b", "qlora", "bf16-mixed", 1, 2048, True, **_TL_ALL),
    setup("tinyllama-1.1b", "lora", "bf16-mixed", 2, 2048, True, **_TL_ALL),
    setup("tinyllama-1.1b", "lora", "bf16-mixed", 2, 2048, True, **_TL_ALL, fsdp="fsdp1"),
    setup("tinyllama-1.1b", "lora", "bf16-mixed", 2, 2048, True, **_TL_ALL, fsdp="fsdp2"),
    setup("qwen2.5-0.5b", "full", "bf16-mixed", 4, 512, False, note="torch AdamW baseline, with device-level memory"),
    setup("qwen2.5-0.5b", "full", "bf16-mixed", 4, 512, False, optim="pagedadamw8bit"),
    setup("qwen2.5-0.5b", "full", "bf16-mixed", 4, 512, False, optim="pagedadamw32bit"),
    setup("qwen2.5-0.5b", "full", "bf16-mixed", 4, 512, False, optim="adamw8bit"),
    setup("llama-3.1-8b", "qlora", "bf16-mixed", 2, 2048, False, **_TL_ALL),
    setup("llama-3.1-8b", "qlora", "bf16-mixed", 2, 2048, True, **_TL_ALL),
    setup("tinyllama-1.1b", "qlora", "bf16-mixed", 1, 2048, False, **_TL_ALL),
    setup("tinyllama-1.1b", "qlora", "bf16-mixed", 1, 2048, True, **_TL_ALL),
    setup("tinyllama-1.1b", "lora", "bf16-mixed", 1, 2048, False, **_TL_ALL),
    # Added after the first H100 call: without prepare_model_for_kbit_training everything
    # outside the nf4 weights stays bf16, which separates bitsandbytes' own saved tensors
    # from the fp32 activations that the prepare step's fp32 norms and embeddings cause.
    setup("tinyllama-1.1b", "qlora", "bf16-mixed", 2, 2048, False, **_TL_ALL, kbit_prepare=False),
    setup("llama-3.1-8b", "qlora", "bf16-mixed", 1, 2048, False, **_TL_ALL, kbit_prepare=False),
]
_seen = {s["id"] for s in GRID}
GRID += [s for s in ROUND3 if s["id"] not in _seen]
ROUND3_IDS = [s["id"] for s in ROUND3]


# ---------------------------------------------------------------------------------------
def nvidia_smi_used_bytes():
    """GPU memory used on device 0 as nvidia-smi reports it (MiB granularity), in bytes."""
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits", "-i", "0"],
            capture_output=True,
            text=True,
            timeout=30,
        ).stdout.strip()
        return int(out.splitlines()[0].strip()) * 1024 * 1024
    except Exception:  # noqa: BLE001 - recorded as missing
        return None


def device_used_bytes():
    """Device-level used memory from the driver (cudaMemGetInfo: total - free), in bytes.
    Counts everything on the GPU: the CUDA context, PyTorch's reserved segments, and memory
    outside the caching allocator (cuBLAS workspaces, NCCL buffers, CUDA managed memory
    resident on the device, e.g. bitsandbytes' paged optimizer states). 0 in smoke mode."""
    import torch

    if SMOKE:
        return 0
    free, total = torch.cuda.mem_get_info()
    return total - free


def optimizer_state_bytes(opt):
    """Bytes of the optimizer's state tensors, split into bitsandbytes paged tensors (CUDA
    managed memory, seen by PyTorch as CPU tensors over a foreign buffer) and ordinary ones."""
    paged = 0
    normal = 0
    dtypes = {}
    for st in opt.state.values():
        for v in st.values():
            if not hasattr(v, "numel") or not hasattr(v, "element_size"):
                continue
            n = v.numel() * v.element_size()
            if getattr(v, "is_paged", False):
                paged += n
                key = "paged " + str(v.dtype).replace("torch.", "")
            else:
                normal += n
                key = str(v.dtype).replace("torch.", "") + ("" if v.device.type != "cpu" or SMOKE else " (cpu)")
            dtypes[key] = dtypes.get(key, 0) + n
    return paged, normal, dtypes


def make_optimizer(s, params):
    import torch

    if s.get("optim", "adamw") == "adamw":
        return torch.optim.AdamW(params, lr=1e-5, weight_decay=0.0, betas=(0.9, 0.999), fused=True if s["fused"] else None)
    import bitsandbytes as bnb

    cls = {"pagedadamw32bit": bnb.optim.PagedAdamW32bit, "pagedadamw8bit": bnb.optim.PagedAdamW8bit, "adamw8bit": bnb.optim.AdamW8bit}[s["optim"]]
    # bitsandbytes' defaults otherwise: min_8bit_size 4096 (smaller tensors keep 32-bit
    # states), blockwise quantization; paged buffers only for tensors of >= 1e5 elements.
    return cls(params, lr=1e-5, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0)


def decoder_layer_class(model):
    for m in model.modules():
        if type(m).__name__.endswith("DecoderLayer"):
            return type(m)
    raise RuntimeError("no *DecoderLayer module found")


def wrap_fsdp(model, kind, row):
    """Wrap a (peft) model in FSDP on one rank. Returns the wrapped model.

    fsdp1: FullyShardedDataParallel(use_orig_params=True, MixedPrecision(bf16, bf16, bf16),
      FULL_SHARD requested, limit_all_gathers) with the policy peft's
      `fsdp_auto_wrap_policy` builds: each decoder layer one unit (transformer_auto_wrap_policy)
      and each leaf module with a trainable weight (every LoRA A and B) its own unit, so that
      the fp32 adapters and the bf16 frozen base never share a FlatParameter (FSDP1 requires
      one dtype per FlatParameter). The root unit holds embeddings, final norm and lm_head.
    fsdp2: fully_shard(MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=bf16)) on each
      decoder layer, then on the root (FSDP2 casts every parameter of a group to param_dtype
      for its all-gather, so mixed storage dtypes need no separate units)."""
    import functools
    import socket

    import torch
    import torch.distributed as dist

    if not dist.is_initialized():
        with socket.socket() as sk:
            sk.bind(("127.0.0.1", 0))
            port = sk.getsockname()[1]
        os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK="0", WORLD_SIZE="1", LOCAL_RANK="0")
        if not SMOKE:
            torch.cuda.set_device(0)
        dist.init_process_group("gloo" if SMOKE else "nccl", rank=0, world_size=1)
    row["dist_backend"] = dist.get_backend()
    row["world_size"] = dist.get_world_size()
    layer_cls = decoder_layer_class(model)
    row["fsdp_layer_class"] = layer_cls.__name__
    if kind == "fsdp1":
        from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
        from torch.distributed.fsdp import MixedPrecision, ShardingStrategy
        from torch.distributed.fsdp.wrap import _or_policy, lambda_auto_wrap_policy, transformer_auto_wrap_policy

        def leaf_trainable(m):
            w = getattr(m, "weight", None)
            return len(list(m.named_children())) == 0 and w is not None and w.requires_grad

        policy = functools.partial(
            _or_policy,
            policies=[
                functools.partial(lambda_auto_wrap_policy, lambda_fn=leaf_trainable),
                functools.partial(transformer_auto_wrap_policy, transformer_layer_cls={layer_cls}),
            ],
        )
        mp = MixedPrecision(param_dtype=torch.bfloat16, reduce_dtype=torch.bfloat16, buffer_dtype=torch.bfloat16)
        kw = dict(device_id=torch.device("cpu") if SMOKE else torch.cuda.current_device())
        model = FSDP(model, auto_wrap_policy=policy, mixed_precision=mp, use_orig_params=True, sharding_strategy=ShardingStrategy.FULL_SHARD, limit_all_gathers=True, backward_prefetch=None, **kw)
        row["fsdp_impl"] = "FSDP1 FullyShardedDataParallel(use_orig_params=True, sharding_strategy=FULL_SHARD, MixedPrecision(param/reduce/buffer bf16), limit_all_gathers=True, backward_prefetch=None: with the default BACKWARD_PRE, HF gradient checkpointing fails its recompute check because peft reads lora_A.weight.dtype before the adapter unit runs and the prefetch has already cast it to bf16); wrap policy = peft fsdp_auto_wrap_policy's: decoder layers + every leaf with a trainable weight"
        row["fsdp_sharding_strategy_effective"] = str(getattr(model, "sharding_strategy", None))
        row["fsdp_units"] = sum(1 for m in model.modules() if isinstance(m, FSDP))
    else:
        from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

        mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.bfloat16)
        units = 0
        for m in list(model.modules()):
            if isinstance(m, layer_cls):
                fully_shard(m, mp_policy=mp)
                units += 1
        fully_shard(model, mp_policy=mp)
        row["fsdp_impl"] = "FSDP2 fully_shard(mp_policy=MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=bf16), reshard_after_forward=True) on each decoder layer, then the root"
        row["fsdp_units"] = units + 1
    return model


def count_params(model):
    total = 0
    trainable = 0
    dtypes = {}
    trainable_dtypes = {}
    for p in model.parameters():
        n = p.numel()
        # bitsandbytes Params4bit stores two 4-bit values per uint8 element.
        if p.__class__.__name__ == "Params4bit":
            n = p.numel() * 2
        total += n
        key = "nf4 (packed in uint8)" if p.__class__.__name__ == "Params4bit" else str(p.dtype).replace("torch.", "")
        dtypes[key] = dtypes.get(key, 0) + n
        if p.requires_grad:
            trainable += n
            trainable_dtypes[key] = trainable_dtypes.get(key, 0) + n
    return total, trainable, dtypes, trainable_dtypes


def build_config(spec, attn):
    import transformers

    cls = {
        "gpt2": transformers.GPT2Config,
        "llama": transformers.LlamaConfig,
        "qwen2": transformers.Qwen2Config,
        "mistral": transformers.MistralConfig,
        "gemma2": transformers.Gemma2Config,
        "qwen3": transformers.Qwen3Config,
        "phi3": transformers.Phi3Config,
        "qwen2_moe": transformers.Qwen2MoeConfig,
    }[spec["family"]]
    kw = dict(spec["config"])
    if SMOKE:
        if spec["family"] == "gpt2":
            kw.update(n_embd=64, n_layer=2, n_head=4, vocab_size=512)
        else:
            kw.update(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, vocab_size=512)
            if spec["family"] == "qwen2_moe":
                kw.update(num_experts=4, num_experts_per_tok=2, moe_intermediate_size=32, shared_expert_intermediate_size=64)
            if "head_dim" in kw:
                kw["head_dim"] = 16
    cfg = cls(**kw)
    cfg.use_cache = False
    return cfg


def build_model(spec, dtype, attn):
    import torch
    import transformers

    cfg = build_config(spec, attn)
    with torch.device(DEVICE):
        try:
            model = transformers.AutoModelForCausalLM.from_config(cfg, dtype=dtype, attn_implementation=attn)
        except TypeError:
            model = transformers.AutoModelForCausalLM.from_config(cfg, torch_dtype=dtype, attn_implementation=attn)
    if any(p.dtype != dtype or p.device.type != DEVICE for p in model.parameters()):
        model.to(device=DEVICE, dtype=dtype)
    return model


def quantize_nf4(model):
    """Replace nn.Linear layers (all but lm_head) with bitsandbytes nf4 Linear4bit, as
    transformers' bitsandbytes integration does for load_in_4bit=True,
    bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True, bnb_4bit_compute_dtype=bf16."""
    import bitsandbytes as bnb
    import torch
    import torch.nn as nn

    replaced = 0
    for name, module in list(model.named_modules()):
        for cname, child in list(module.named_children()):
            if not isinstance(child, nn.Linear) or cname == "lm_head":
                continue
            new = bnb.nn.Linear4bit(
                child.in_features,
                child.out_features,
                bias=child.bias is not None,
                compute_dtype=torch.bfloat16,
                compress_statistics=True,
                quant_type="nf4",
                quant_storage=torch.uint8,
                device="meta",
            )
            w = child.weight.data
            try:
                p = bnb.nn.Params4bit(w, requires_grad=False, compress_statistics=True, quant_type="nf4", quant_storage=torch.uint8, module=new)
            except TypeError:
                p = bnb.nn.Params4bit(w, requires_grad=False, compress_statistics=True, quant_type="nf4", quant_storage=torch.uint8)
            new.weight = p.to(DEVICE)
            if child.bias is not None:
                new.bias = nn.Parameter(child.bias.data.to(torch.bfloat16), requires_grad=False)
            new.requires_grad_(False)
            setattr(module, cname, new)
            del child, w
            replaced += 1
    try:  # what from_pretrained(load_in_4bit=True) sets; peft reads it
        model.is_loaded_in_4bit = True
    except Exception:  # noqa: BLE001 - read-only property in some versions
        pass
    _cuda("empty_cache")
    return replaced


def loss_upcasts_logits():
    import inspect

    try:
        from transformers.loss import loss_utils

        return ".float()" in inspect.getsource(loss_utils.ForCausalLMLoss)
    except Exception:  # noqa: BLE001
        return None


def run_context_row():
    """CUDA context size: nvidia-smi before any CUDA call, after torch.cuda.init(), after a
    first 1-element allocation, and after a first bf16 matmul (cuBLAS handle/workspace)."""
    import torch

    t0 = time.time()
    row = dict(id="cuda-context", kind="context")
    row["nvidia_smi_before_init_bytes"] = nvidia_smi_used_bytes()
    torch.cuda.init()
    row["nvidia_smi_after_init_bytes"] = nvidia_smi_used_bytes()
    x = torch.zeros(1, device="cuda")
    _cuda("synchronize")
    row["nvidia_smi_after_first_alloc_bytes"] = nvidia_smi_used_bytes()
    row["reserved_after_first_alloc_bytes"] = _cuda("memory_reserved")
    a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    b = a @ a
    _cuda("synchronize")
    row["nvidia_smi_after_matmul_bytes"] = nvidia_smi_used_bytes()
    row["reserved_after_matmul_bytes"] = _cuda("memory_reserved")
    row["allocated_after_matmul_bytes"] = _cuda("memory_allocated")
    del a, b, x
    base = row["nvidia_smi_before_init_bytes"] or 0
    if row["nvidia_smi_after_first_alloc_bytes"] is not None:
        row["context_bytes"] = row["nvidia_smi_after_first_alloc_bytes"] - base - row["reserved_after_first_alloc_bytes"]
    if row["nvidia_smi_after_matmul_bytes"] is not None:
        row["context_after_matmul_bytes"] = row["nvidia_smi_after_matmul_bytes"] - base - row["reserved_after_matmul_bytes"]
    row["note"] = (
        "context_bytes = nvidia-smi used after the first allocation - used before CUDA init - torch.cuda.memory_reserved(); "
        "context_after_matmul_bytes the same after a first bf16 matmul (adds cuBLAS/cuBLASLt handles outside the caching allocator)"
    )
    row["seconds"] = round(time.time() - t0, 2)
    return row


def run_setup(s, steps):
    """Build, train `steps` steps, measure. Runs in a fresh process."""
    import contextlib

    import torch

    t_start = time.time()
    spec = MODELS[s["model"]]
    row = dict(s)
    row["kind"] = "train"
    row["hf_id"] = spec["hf_id"]
    row["config_source"] = spec["source"]
    row["model_config"] = spec["config"]
    row["published_params"] = spec["published_params"]
    row["steps"] = steps
    row["loss"] = "transformers ForCausalLMLoss via model(input_ids, labels=input_ids) (shift + cross_entropy, mean)"
    row["loss_upcasts_logits"] = loss_upcasts_logits()
    optim = s.get("optim", "adamw")
    row["optimizer"] = f"{OPTIMS[optim]}(lr=1e-5, weight_decay=0.0, betas=(0.9, 0.999))"
    row["optimizer_impl"] = ("fused" if s["fused"] else "foreach (PyTorch default on CUDA)") if optim == "adamw" else "bitsandbytes, blockwise 8-bit states (min_8bit_size 4096)" if "8bit" in optim else "bitsandbytes 32-bit states (fp32 whatever the parameter dtype)"
    row["device_used_at_start_bytes"] = device_used_bytes()
    row["grad_ckpt_impl"] = "gradient_checkpointing_enable(use_reentrant=False)" if s["grad_ckpt"] else None
    row["oom"] = False
    row["nvidia_smi_before_init_bytes"] = nvidia_smi_used_bytes()
    torch.manual_seed(0)

    row["pytorch_cuda_alloc_conf"] = os.environ.get("PYTORCH_CUDA_ALLOC_CONF")
    phase = "build"
    step = None
    peak_alloc = 0
    peak_res = 0
    try:
        method, prec = s["method"], s["precision"]
        if method == "full":
            wdtype = torch.float32 if prec in ("fp32", "bf16-mixed") else torch.bfloat16
        else:
            wdtype = torch.bfloat16
        row["weights_dtype"] = {torch.float32: "float32", torch.bfloat16: "bfloat16"}[wdtype] if method != "qlora" else "nf4 (decoder linears); the rest see params_by_dtype"
        model = build_model(spec, wdtype, s["attn_impl"])
        row["attn_impl_effective"] = getattr(model.config, "_attn_implementation", None)
        if method == "qlora":
            row["quantization"] = "bitsandbytes Linear4bit nf4, double quant (compress_statistics), bf16 compute, blocksize 64, lm_head not quantized"
            row["quantized_linear_layers"] = quantize_nf4(model)
            if s["kbit_prepare"]:
                import peft

                model = peft.prepare_model_for_kbit_training(model, use_gradient_checkpointing=False)
                row["kbit_prepare_impl"] = "peft.prepare_model_for_kbit_training(use_gradient_checkpointing=False) (casts 16-bit non-quantized params to fp32)"
        if s["grad_ckpt"]:
            model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        if method in ("lora", "qlora"):
            import peft

            for p in model.parameters():
                p.requires_grad_(False)
            lcfg = peft.LoraConfig(
                r=s["lora_r"],
                lora_alpha=2 * s["lora_r"],
                lora_dropout=s["lora_dropout"],
                target_modules=list(s["lora_targets"]),
                bias="none",
                task_type="CAUSAL_LM",
            )
            model = peft.get_peft_model(model, lcfg, autocast_adapter_dtype=(prec != "bf16-pure"))
            row["lora_alpha"] = 2 * s["lora_r"]
            row["lora_targets_name"] = TARGET_NAMES[tuple(s["lora_targets"])]
        model.train()
        total, trainable, dtypes, tdtypes = count_params(model)
        row["params_total"] = total
        row["params_trainable"] = trainable
        row["params_by_dtype"] = dtypes
        row["trainable_params_by_dtype"] = tdtypes
        if method == "full":
            row["params_match_published"] = total == spec["published_params"]
        if s.get("fsdp"):
            phase = "fsdp-wrap"
            model = wrap_fsdp(model, s["fsdp"], row)
        params = [p for p in model.parameters() if p.requires_grad]
        opt = make_optimizer(s, params)
        vocab = model.config.vocab_size
        micro, seq = (min(s["micro_batch"], 2), min(s["seq_len"], 64)) if SMOKE else (s["micro_batch"], s["seq_len"])
        ids = torch.randint(0, vocab, (micro, seq), device=DEVICE)
        use_autocast = prec == "bf16-mixed"
        row["autocast"] = "torch.autocast('cuda', dtype=torch.bfloat16) around forward+loss" if use_autocast else None
        _cuda("synchronize")
        _cuda("empty_cache")
        row["allocated_after_build_bytes"] = _cuda("memory_allocated")
        row["reserved_after_build_bytes"] = _cuda("memory_reserved")
        row["device_used_after_build_bytes"] = device_used_bytes()
        dev_samples = [row["device_used_after_build_bytes"]]
        row["build_seconds"] = round(time.time() - t_start, 2)
        _cuda("reset_peak_memory_stats")
        peak_alloc = _cuda("max_memory_allocated")
        peak_res = _cuda("max_memory_reserved")
        step_peaks = []
        step_secs = []
        phase_peaks = []
        for step in range(steps):
            ts = time.time()
            ph = {}
            phase = "forward"
            _cuda("reset_peak_memory_stats")
            ctx = torch.autocast(DEVICE, dtype=torch.bfloat16) if use_autocast else contextlib.nullcontext()
            with ctx:
                loss = model(input_ids=ids, labels=ids, use_cache=False).loss
            _cuda("synchronize")
            ph["forward"] = _cuda("max_memory_allocated")
            ph["after_forward"] = _cuda("memory_allocated")
            ph["device_used_after_forward"] = device_used_bytes()
            ph["reserved_after_forward"] = _cuda("memory_reserved")
            sp_res = _cuda("max_memory_reserved")
            phase = "backward"
            _cuda("reset_peak_memory_stats")
            loss.backward()
            _cuda("synchronize")
            ph["backward"] = _cuda("max_memory_allocated")
            ph["device_used_after_backward"] = device_used_bytes()
            ph["reserved_after_backward"] = _cuda("memory_reserved")
            sp_res = max(sp_res, _cuda("max_memory_reserved"))
            del loss
            phase = "optimizer"
            _cuda("reset_peak_memory_stats")
            opt.step()
            opt.zero_grad(set_to_none=True)
            _cuda("synchronize")
            ph["optimizer"] = _cuda("max_memory_allocated")
            sp_res = max(sp_res, _cuda("max_memory_reserved"))
            ph["after_step"] = _cuda("memory_allocated")
            ph["device_used_after_optimizer"] = device_used_bytes()
            ph["reserved_after_optimizer"] = _cuda("memory_reserved")
            dev_samples += [ph["device_used_after_forward"], ph["device_used_after_backward"], ph["device_used_after_optimizer"]]
            if step == 0:
                row["nvidia_smi_after_first_step_bytes"] = nvidia_smi_used_bytes()
            sp = max(ph["forward"], ph["backward"], ph["optimizer"])
            step_peaks.append(sp)
            phase_peaks.append(ph)
            peak_alloc = max(peak_alloc, sp)
            peak_res = max(peak_res, sp_res)
            step_secs.append(round(time.time() - ts, 3))
        row["allocated_bytes"] = peak_alloc
        row["reserved_bytes"] = peak_res
        row["allocated_after_steps_bytes"] = _cuda("memory_allocated")
        row["step_peak_allocated_bytes"] = step_peaks
        row["phase_allocated_bytes"] = phase_peaks
        row["step_seconds"] = step_secs
        row["peak_phase"] = max(("forward", "backward", "optimizer"), key=lambda k: max(p[k] for p in phase_peaks))
        row["nvidia_smi_end_bytes"] = nvidia_smi_used_bytes()
        row["device_used_max_sampled_bytes"] = max(dev_samples)
        row["device_used_end_bytes"] = device_used_bytes()
        row["reserved_end_bytes"] = _cuda("memory_reserved")
        # memory on the device that is neither the CUDA context (measured at start, before
        # the build) nor PyTorch's reserved segments: cuBLAS workspaces, NCCL, managed memory
        row["device_outside_allocator_end_bytes"] = row["device_used_end_bytes"] - row["device_used_at_start_bytes"] - row["reserved_end_bytes"]
        sp_paged, sp_normal, sp_dtypes = optimizer_state_bytes(opt)
        row["optimizer_state_paged_bytes"] = sp_paged
        row["optimizer_state_unpaged_bytes"] = sp_normal
        row["optimizer_state_bytes_by_dtype"] = sp_dtypes
    except torch.OutOfMemoryError as e:
        row["oom"] = True
        row["oom_phase"] = phase
        row["oom_step"] = step
        row["oom_message"] = str(e).splitlines()[0][:400]
        row["allocated_bytes"] = max(peak_alloc, _cuda("max_memory_allocated"))
        row["reserved_bytes"] = max(peak_res, _cuda("max_memory_reserved"))
        row["allocated_at_oom_bytes"] = _cuda("memory_allocated")
        row["nvidia_smi_end_bytes"] = nvidia_smi_used_bytes()
        row["allocated_note"] = "highest peak seen before the failing allocation (which is not included); the configuration does not fit"
    if s.get("fsdp"):
        try:
            import torch.distributed as dist

            if dist.is_initialized():
                dist.destroy_process_group()
        except Exception:  # noqa: BLE001
            pass
    row["seconds"] = round(time.time() - t_start, 2)
    return row


def _child(s, steps, path):
    try:
        row = run_context_row() if s == "context" else run_setup(s, steps)
    except Exception as e:  # noqa: BLE001 - recorded in the row
        row = dict(s) if isinstance(s, dict) else dict(id="cuda-context")
        row["error"] = f"{type(e).__name__}: {e}"[:1000]
        row["traceback"] = traceback.format_exc()[-3000:]
    with open(path, "w") as f:
        json.dump(row, f)


def run_one(s, steps, use_spawn, timeout, bnb_path=None):
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        # QLoRA setups always run in a new interpreter that sees bitsandbytes (--bnb-path):
        # the parent must not import it (its import initialises CUDA, which forbids fork).
        # The bitsandbytes optimizers need it too.
        needs_bnb = isinstance(s, dict) and (s["method"] == "qlora" or s.get("optim", "adamw") != "adamw")
        if use_spawn or needs_bnb:
            key = "context" if s == "context" else s["id"]
            cmd = [sys.executable, os.path.abspath(__file__), "--child", key, "--child-out", path, "--steps", str(steps)]
            env = dict(os.environ)
            if bnb_path:
                env["PYTHONPATH"] = os.path.abspath(bnb_path) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
            try:
                subprocess.run(cmd, timeout=timeout, check=False, env=env)
            except subprocess.TimeoutExpired:
                pass
        else:
            ctx = multiprocessing.get_context("fork")
            p = ctx.Process(target=_child, args=(s, steps, path))
            p.start()
            p.join(timeout)
            if p.is_alive():
                p.terminate()
                p.join(10)
        with open(path) as f:
            text = f.read()
        if text.strip():
            return json.loads(text)
        row = dict(s) if isinstance(s, dict) else dict(id="cuda-context")
        row["error"] = "child process died or timed out without a result"
        return row
    finally:
        os.unlink(path)


def versions(bnb_path):
    import peft
    import torch
    import transformers

    v = dict(torch=torch.__version__, transformers=transformers.__version__, peft=peft.__version__, cuda=torch.version.cuda)
    v["bitsandbytes"] = None
    try:  # read without importing it (the import initialises CUDA)
        import re as _re

        init = os.path.join(bnb_path, "bitsandbytes", "__init__.py") if bnb_path else None
        if init and os.path.exists(init):
            m = _re.search(r'__version__\s*=\s*"([^"]+)"', open(init).read())
            v["bitsandbytes"] = m.group(1) if m else "present"
    except Exception:  # noqa: BLE001
        pass
    try:
        q = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,memory.total,driver_version", "--format=csv,noheader"], capture_output=True, text=True, timeout=30
        ).stdout.strip()
        v["device"] = q
    except Exception:  # noqa: BLE001
        v["device"] = None
    return v


def gib(x):
    return "" if x is None else f"{x / GIB:.2f}"


def table(rows):
    lines = ["| id | model | method | precision | micro | seq | ckpt | attn | alloc GiB | reserved GiB | oom | s |", "|---" * 12 + "|"]
    for r in rows:
        if r.get("kind") == "context":
            lines.append(f"| {r['id']} | - | context | - | - | - | - | - | ctx {gib(r.get('context_bytes'))} | after matmul {gib(r.get('context_after_matmul_bytes'))} | - | {r.get('seconds', '')} |")
            continue
        err = " ERROR" if r.get("error") else ""
        lines.append(
            f"| {r['id']} | {r['model']} | {r['method']}{(' r' + str(r['lora_r'])) if r.get('lora_r') else ''} | {r['precision']} | {r['micro_batch']} | {r['seq_len']} | "
            f"{'on' if r['grad_ckpt'] else 'off'} | {r['attn_impl']} | {gib(r.get('allocated_bytes'))} | {gib(r.get('reserved_bytes'))} | {r.get('oom')}{err} | {r.get('seconds', '')} |"
        )
    return "\n".join(lines)


def check_params():
    """Exact parameter count of each architecture in MODELS against its published total."""
    import torch
    import transformers

    bad = 0
    for name, spec in MODELS.items():
        cfg = build_config(spec, "sdpa")
        with torch.device("meta"):
            model = transformers.AutoModelForCausalLM.from_config(cfg)
        total = sum(p.numel() for p in model.parameters())
        ok = total == spec["published_params"]
        bad += not ok
        print(f"{name:18s} {total:>14,d} published {spec['published_params']:>14,d} {'ok' if ok else 'MISMATCH'}")
    return 1 if bad else 0


def main():
    global SMOKE, DEVICE
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="data/measured_h200.json")
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--only", default="", help="comma-separated setup ids (or 'context')")
    ap.add_argument("--skip", default="", help="comma-separated setup ids to leave out")
    ap.add_argument("--append", action="store_true", help="merge into --out, replacing rows with the same id")
    ap.add_argument("--budget-s", type=float, default=1e9, help="start no new setup after this many seconds")
    ap.add_argument("--timeout-s", type=float, default=240, help="per-setup limit")
    ap.add_argument("--spawn", action="store_true", help="new interpreter per setup instead of fork")
    ap.add_argument("--abort-after-errors", type=int, default=4, help="stop after this many consecutive errors (not OOMs)")
    ap.add_argument("--bnb-path", default=None, help="folder holding the bitsandbytes package, put on PYTHONPATH of QLoRA children only")
    ap.add_argument("--smoke", action="store_true", help="check the script on the CPU with shrunken models (numbers meaningless; QLoRA and the context row skipped)")
    ap.add_argument("--check-params", action="store_true", help="build each model on the meta device (no memory, no GPU) and compare its parameter count with the published total")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--round3", action="store_true", help="run the third round only (QLoRA without checkpointing, bitsandbytes optimizers, FSDP + LoRA), in its priority order")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--child-out", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()

    by_id = {s["id"]: s for s in GRID}
    assert len(by_id) == len(GRID), "duplicate setup ids"
    if args.list:
        for s in GRID:
            print(s["id"])
        return 0
    if args.check_params:
        return check_params()
    if args.child:
        _child("context" if args.child == "context" else by_id[args.child], args.steps, args.child_out)
        return 0

    # Import in the parent (no CUDA initialisation) so that forked children start fast.
    import torch

    import peft  # noqa: F401
    import transformers  # noqa: F401
    from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training  # noqa: F401
    from transformers import AutoModelForCausalLM, GPT2Config, LlamaConfig, MistralConfig, Qwen2Config  # noqa: F401
    from transformers.models.gpt2 import modeling_gpt2  # noqa: F401
    from transformers.models.llama import modeling_llama  # noqa: F401
    from transformers.models.mistral import modeling_mistral  # noqa: F401
    from transformers.models.qwen2 import modeling_qwen2  # noqa: F401

    if not SMOKE and torch.cuda.is_initialized():
        print("[warn] CUDA was initialised by an import: running every setup in a new interpreter (--spawn)", flush=True)
        args.spawn = True

    if args.smoke:
        if os.path.abspath(args.out).startswith(os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "data"))):
            ap.error("--smoke must not write into data/")
        os.environ["MEASURE_GPU_PEAKS_SMOKE"] = "1"
        SMOKE, DEVICE = True, "cpu"
    todo = ["context"] + list(GRID)
    if args.round3:
        todo = list(ROUND3)
    if args.only:
        want = [x.strip() for x in args.only.split(",") if x.strip()]
        todo = [("context" if w == "context" else by_id[w]) for w in want]
    skip = {x.strip() for x in args.skip.split(",") if x.strip()}
    if SMOKE:
        todo = [s for s in todo if s != "context" and ((s["method"] != "qlora" and s.get("optim", "adamw") == "adamw") or args.bnb_path)]
    todo = [s for s in todo if (s if s == "context" else s["id"]) not in skip]

    meta = versions(args.bnb_path)
    out = dict(
        device=meta.pop("device"),
        torch=meta["torch"],
        transformers=meta["transformers"],
        peft=meta["peft"],
        bitsandbytes=meta["bitsandbytes"],
        cuda=meta["cuda"],
        date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        script="scripts/measure_gpu_peaks.py",
        metric_note="max_memory_allocated/reserved in bytes; CUDA context not included",
        rows=[],
    )
    if args.append and os.path.exists(args.out):
        with open(args.out) as f:
            old = json.load(f)
        out["rows"] = old.get("rows", [])
    t0 = time.time()
    errors = 0
    jsonl = os.path.splitext(args.out)[0] + ".rows.jsonl"
    for s in todo:
        sid = s if s == "context" else s["id"]
        if time.time() - t0 > args.budget_s:
            print(f"[budget] not run: {sid}", flush=True)
            continue
        row = run_one(s, args.steps, args.spawn, args.timeout_s, args.bnb_path)
        out["rows"] = [r for r in out["rows"] if r.get("id") != row.get("id")] + [row]
        with open(jsonl, "a") as f:
            f.write(json.dumps(row) + "\n")
        with open(args.out, "w") as f:
            json.dump(out, f, indent=1)
        status = "ERROR " + row["error"] if row.get("error") else ("OOM" if row.get("oom") else "ok")
        print(f"[{time.time() - t0:6.1f}s] {sid}: alloc {gib(row.get('allocated_bytes'))} GiB reserved {gib(row.get('reserved_bytes'))} GiB {status} ({row.get('seconds')} s)", flush=True)
        if row.get("error"):
            print(row.get("traceback", ""), flush=True)
            errors += 1
            if errors >= args.abort_after_errors:
                print("[abort] too many consecutive errors", flush=True)
                break
        else:
            errors = 0
    print(json.dumps({k: v for k, v in out.items() if k != "rows"}, indent=1))
    print(table(out["rows"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
