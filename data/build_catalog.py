#!/usr/bin/env python3
"""Generate data/models.json from the transcribed specs below (one place for every model fact).

Every number below was read from the source named in the entry's `source` (repo, path, commit).
Do not type numbers that are not in a cited source; leave the model out instead (see README.md).
Run: python3 data/build_catalog.py  (writes data/models.json, sorted by id; parameters computed by
data/param_count.py).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_catalog import CORROBORATED, PUBLISHED, corroborated_total  # noqa: E402
from param_count import mtp_layer  # noqa: E402
from param_count import count  # noqa: E402

LIT = "Lightning-AI/litgpt litgpt/config.py @0006c973aa7d6ace293e2a5fedaf1f8f804f960c"
TT = "pytorch/torchtune torchtune/models/"
TF = "huggingface/transformers src/transformers/models/"
# tie flag from the config class default where no builder states it and no published total confirms it
# (the checkpoint's own config.json was not read): listed in README "tie flag from a class default".
LLAMA_UNTIED = "; tie_word_embeddings=False: " + TF + "llama/configuration_llama.py @008e574391258935f3ecc3035c882e73bbcac419 class default"
MISTRAL_UNTIED = "; tie_word_embeddings=False: " + TF + "mistral/configuration_mistral.py @001f85b38fb432858ace93f18622f07cec46d874 class default"
TT_QWEN2 = TT + "qwen2/_model_builders.py @02f9d2c01e98c5c8fd89328f9dc0b3245f2227c6"
TT_QWEN25 = TT + "qwen2_5/_model_builders.py @47a9e1989d7b1434b5a6dbaaa4b829283ba86281"
TT_QWEN3 = TT + "qwen3/_model_builders.py @010412e0a1b8637f2b3d5f6a5332ff466cc5d83b"
TT_L32 = TT + "llama3_2/_component_builders.py @05d251afcf93144cc375dfb62cf6e2f243dd788a (TiedLinear output)"

ENTRIES = []
QUANTIZED = []  # added to ENTRIES by main() after every base entry exists


def add(id, H, L, nh, nkv, I, V, maxpos, source, *, arch="llama", hd=None, tie=False, mlp="gated", norm="rmsnorm",
        qkv_bias=False, o_bias=False, mlp_bias=False, learned_positions=0, extra=None, aliases=(), torchtune=(),
        litgpt=(), parameters_source=None, counts=None, stored_quantization=None):
    e = {
        "id": id,
        "aliases": sorted(set(aliases)),
        "builders": list(torchtune),
        "litgpt": list(litgpt),
        "architecture": arch,
        "hidden_size": H,
        "num_layers": L,
        "num_heads": nh,
        "num_kv_heads": nkv,
        "head_dim": hd if hd is not None else H // nh,
        "intermediate_size": I,
        "vocab_size": V,
        "tie_embeddings": tie,
        "mlp": mlp,
        "norm": norm,
        "qkv_bias": qkv_bias,
        "o_bias": o_bias,
        "mlp_bias": mlp_bias,
        "learned_positions": learned_positions,
        "extra": extra or {},
        "max_positions": maxpos,
        "parameters": None,
        "parameters_source": parameters_source or "computed by data/param_count.py; no published exact total found",
        "source": source,
    }
    if counts:  # optional: what `parameters` covers when it is not the whole checkpoint (see README "Optional fields")
        e["counts"] = counts
    if stored_quantization:  # optional: the checkpoint under this id ships quantized weights (e.g. gpt-oss MXFP4 experts)
        e["stored_quantization"] = stored_quantization
    if hd is None:
        assert H % nh == 0, id
    ENTRIES.append(e)
    return e


def quant(id, base_id, q, source, aliases=()):  # q None: a 16-bit re-upload (e.g. dequantized) of base_id
    """A quantized upload of a catalog model: same architecture fields as `base_id`, plus the stored quantization.

    `q` is what the checkpoint stores for its quantized linear weights (README "Optional fields"): "nf4" (bitsandbytes
    4-bit NormalFloat), "int8", "gptq-int4", "gptq" (bit width not stated by any source read), "awq-int4", "aqlm-2bit-1x16",
    "nvfp4", "mxfp4", "fp8". Embeddings, norms and (unless stated) lm_head stay 16-bit in all of these formats.
    """
    QUANTIZED.append((id, base_id, q, source, aliases))


def _quantized_entry(id, base_id, q, source, aliases):
    base = next(e for e in ENTRIES if e["id"] == base_id)
    e = json.loads(json.dumps(base))
    e.update({"id": id, "aliases": sorted(set(aliases)), "builders": [], "litgpt": [],
              "parameters_source": f"architecture of {base_id} (count as for the base)", "source": source})
    e.pop("stored_quantization", None)
    e["same_architecture_as"] = base_id
    if q:
        e["stored_quantization"] = q
    else:
        e.pop("stored_quantization", None)
    return e


def tt(family, *sizes, lora=True, qlora=True):
    out = []
    for s in sizes:
        out.append(f"torchtune.models.{family}.{s}")
        if lora:
            out.append(f"torchtune.models.{family}.lora_{s}")
        if qlora:
            out.append(f"torchtune.models.{family}.qlora_{s}")
    return out


# ---------------------------------------------------------------- Llama 2 (litgpt llama_2; torchtune llama2)
add("meta-llama/Llama-2-7b-hf", 4096, 32, 32, 32, 11008, 32000, 4096, LIT + " (llama_2 'Llama-2-7b{}-hf'; defaults n_embd=4096, n_head=32, block_size=4096)",
    aliases=["meta-llama/Llama-2-7b", "meta-llama/Llama-2-7b-chat-hf", "meta-llama/Llama-2-7b-chat", "NousResearch/Llama-2-7b-hf",
             "NousResearch/Llama-2-7b-chat-hf", "Llama-2-7b-hf", "Llama-2-7b-chat-hf", "lmsys/vicuna-7b-v1.5"],
    torchtune=tt("llama2", "llama2_7b"), litgpt=["Llama-2-7b-hf", "Llama-2-7b-chat-hf", "vicuna-7b-v1.5"])
# issue 24 item 2: lmsys/vicuna-7b-v1.5 has this exact shape (a Llama 2 7B fine-tune).
VICUNA_SRC = ("; alias lmsys/vicuna-7b-v1.5 (issue 24): " + LIT + " (vicuna 'vicuna-7b-v1.5', citing huggingface.co/lmsys/vicuna-7b-v1.5/"
              "blob/main/config.json: n_layer 32, intermediate_size 11008, vocab 32000, defaults n_embd 4096 / n_head 32 / block_size 4096) "
              "and the checkpoint's config as LLaVA prints it after loading lmsys/vicuna-7b-v1.5 (LlavaConfig _name_or_path "
              "lmsys/vicuna-7b-v1.5, transformers 4.31.0: hidden 4096, intermediate 11008, 32 heads, 32 kv heads, 32 layers, vocab 32000, "
              "max_position_embeddings 4096, tie_word_embeddings false; an annotated public copy of haotian-liu/LLaVA "
              "llava/model/multimodal_projector/builder.py)")
ENTRIES[-1]["source"] += VICUNA_SRC
add("meta-llama/Llama-2-13b-hf", 5120, 40, 40, 40, 13824, 32000, 4096, LIT + " (llama_2 'Llama-2-13b{}-hf')",
    aliases=["meta-llama/Llama-2-13b", "meta-llama/Llama-2-13b-chat-hf", "NousResearch/Llama-2-13b-hf", "Llama-2-13b-hf", "Llama-2-13b-chat-hf"],
    torchtune=tt("llama2", "llama2_13b"), litgpt=["Llama-2-13b-hf", "Llama-2-13b-chat-hf"])
add("meta-llama/Llama-2-70b-hf", 8192, 80, 64, 8, 28672, 32000, 4096, LIT + " (llama_2 'Llama-2-70b{}-hf')",
    aliases=["meta-llama/Llama-2-70b", "meta-llama/Llama-2-70b-chat-hf", "NousResearch/Llama-2-70b-hf", "Llama-2-70b-hf", "Llama-2-70b-chat-hf"],
    torchtune=tt("llama2", "llama2_70b"), litgpt=["Llama-2-70b-hf", "Llama-2-70b-chat-hf"])

# ---------------------------------------------------------------- Code Llama (litgpt code_llama)
add("codellama/CodeLlama-7b-hf", 4096, 32, 32, 32, 11008, 32016, 16384, LIT + " (code_llama 'CodeLlama-7b-hf': vocab_size=32016, padding_multiple=16)" + LLAMA_UNTIED,
    aliases=["codellama/CodeLlama-7b-Instruct-hf"], litgpt=["CodeLlama-7b-hf", "CodeLlama-7b-Instruct-hf"])
add("codellama/CodeLlama-13b-hf", 5120, 40, 40, 40, 13824, 32016, 16384, LIT + " (code_llama 'CodeLlama-13b-hf')" + LLAMA_UNTIED,
    litgpt=["CodeLlama-13b-hf"])
add("codellama/CodeLlama-34b-hf", 8192, 48, 64, 8, 22016, 32000, 16384, LIT + " (code_llama 'CodeLlama-34b-hf': padded_vocab_size=32000)" + LLAMA_UNTIED,
    aliases=["codellama/CodeLlama-34b-Instruct-hf", "codellama/CodeLlama-34b-Python-hf"],
    litgpt=["CodeLlama-34b-hf", "CodeLlama-34b-Instruct-hf", "CodeLlama-34b-Python-hf"])

# ---------------------------------------------------------------- Llama 3 / 3.1 / 3.2 / 3.3 (litgpt llama_3)
L3 = LIT + " (llama_3 '%s'; padded_vocab_size=128256)"
add("meta-llama/Meta-Llama-3-8B", 4096, 32, 32, 8, 14336, 128256, 8192, L3 % "Llama-3-8B{}",
    aliases=["meta-llama/Llama-3-8B", "meta-llama/Meta-Llama-3-8B-Instruct", "meta-llama/Llama-3-8B-Instruct",
             "NousResearch/Meta-Llama-3-8B", "NousResearch/Meta-Llama-3-8B-Instruct", "Meta-Llama-3-8B", "Meta-Llama-3-8B-Instruct"],
    torchtune=tt("llama3", "llama3_8b"), litgpt=["Llama-3-8B", "Llama-3-8B-Instruct"])
add("meta-llama/Meta-Llama-3-70B", 8192, 80, 64, 8, 28672, 128256, 8192, L3 % "Llama-3-70B{}",
    aliases=["meta-llama/Llama-3-70B", "meta-llama/Meta-Llama-3-70B-Instruct", "Meta-Llama-3-70B", "Meta-Llama-3-70B-Instruct",
             "casperhansen/llama-3-70b-fp16"],
    torchtune=tt("llama3", "llama3_70b"), litgpt=["Llama-3-70B", "Llama-3-70B-Instruct"])
add("meta-llama/Llama-3.1-8B", 4096, 32, 32, 8, 14336, 128256, 131072, L3 % "Llama-3.1-8B{}",
    aliases=["meta-llama/Meta-Llama-3.1-8B", "meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Meta-Llama-3.1-8B-Instruct",
             "NousResearch/Meta-Llama-3.1-8B", "NousResearch/Meta-Llama-3.1-8B-Instruct", "Meta-Llama-3.1-8B", "Meta-Llama-3.1-8B-Instruct",
             "deepseek-ai/DeepSeek-R1-Distill-Llama-8B"],
    torchtune=tt("llama3_1", "llama3_1_8b"), litgpt=["Llama-3.1-8B", "Llama-3.1-8B-Instruct", "R1-Distill-Llama-8B"])
add("meta-llama/Llama-3.1-70B", 8192, 80, 64, 8, 28672, 128256, 131072, L3 % "Llama-3.1-70B{}",
    aliases=["meta-llama/Meta-Llama-3.1-70B", "meta-llama/Llama-3.1-70B-Instruct", "meta-llama/Meta-Llama-3.1-70B-Instruct",
             "Meta-Llama-3.1-70B", "Meta-Llama-3.1-70B-Instruct", "nvidia/Llama-3.1-Nemotron-70B-Instruct-HF",
             "deepseek-ai/DeepSeek-R1-Distill-Llama-70B"],
    torchtune=tt("llama3_1", "llama3_1_70b"), litgpt=["Llama-3.1-70B", "Llama-3.1-70B-Instruct", "Llama-3.1-Nemotron-70B-Instruct-HF", "R1-Distill-Llama-70B"])
add("meta-llama/Llama-3.1-405B", 16384, 126, 128, 8, 53248, 128256, 131072, L3 % "Llama-3.1-405B{}",
    aliases=["meta-llama/Meta-Llama-3.1-405B", "meta-llama/Llama-3.1-405B-Instruct", "meta-llama/Meta-Llama-3.1-405B-Instruct",
             "Meta-Llama-3.1-405B", "Meta-Llama-3.1-405B-Instruct"],
    torchtune=tt("llama3_1", "llama3_1_405b"), litgpt=["Llama-3.1-405B", "Llama-3.1-405B-Instruct"])
add("meta-llama/Llama-3.2-1B", 2048, 16, 32, 8, 8192, 128256, 131072, L3 % "Llama-3.2-1B{}" + "; tied output: " + TT_L32, tie=True,
    aliases=["meta-llama/Llama-3.2-1B-Instruct", "NousResearch/Llama-3.2-1B", "Llama-3.2-1B", "Llama-3.2-1B-Instruct"],
    torchtune=tt("llama3_2", "llama3_2_1b"), litgpt=["Llama-3.2-1B", "Llama-3.2-1B-Instruct"])
add("meta-llama/Llama-3.2-3B", 3072, 28, 24, 8, 8192, 128256, 131072, L3 % "Llama-3.2-3B{}" + "; tied output: " + TT_L32, tie=True,
    aliases=["meta-llama/Llama-3.2-3B-Instruct", "Llama-3.2-3B", "Llama-3.2-3B-Instruct"],
    torchtune=tt("llama3_2", "llama3_2_3b"), litgpt=["Llama-3.2-3B", "Llama-3.2-3B-Instruct"])
add("meta-llama/Llama-3.3-70B-Instruct", 8192, 80, 64, 8, 28672, 128256, 131072, L3 % "Llama-3.3-70B-Instruct",
    aliases=["Llama-3.3-70B-Instruct"], torchtune=tt("llama3_3", "llama3_3_70b"), litgpt=["Llama-3.3-70B-Instruct"])

# ---------------------------------------------------------------- Open LLaMA, TinyLlama (litgpt)
add("openlm-research/open_llama_3b", 3200, 26, 32, 32, 8640, 32000, 2048, LIT + " (open_LLaMA 'open_llama_3b')" + LLAMA_UNTIED, litgpt=["open_llama_3b"])
add("openlm-research/open_llama_7b", 4096, 32, 32, 32, 11008, 32000, 2048, LIT + " (open_LLaMA 'open_llama_7b')" + LLAMA_UNTIED, litgpt=["open_llama_7b"])
add("openlm-research/open_llama_13b", 5120, 40, 40, 40, 13824, 32000, 2048, LIT + " (open_LLaMA 'open_llama_13b')" + LLAMA_UNTIED, litgpt=["open_llama_13b"])
add("TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T", 2048, 22, 32, 4, 5632, 32000, 2048, LIT + " (tiny_llama 'tiny-llama-1.1b{}')",
    aliases=["TinyLlama/TinyLlama-1.1B-Chat-v1.0", "TinyLlama/TinyLlama_v1.1", "TinyLlama_v1.1"], litgpt=["tiny-llama-1.1b", "tiny-llama-1.1b-chat"])
# TinyLlama_v1.1: pytorch/torchtune recipes/configs/llama2/1B_qat_single_device.yaml (corpus) builds /tmp/TinyLlama_v1.1 with
# llama2(vocab_size=32000, num_layers=22, num_heads=32, num_kv_heads=4, embed_dim=2048, max_seq_len=2048): the same architecture.

# ---------------------------------------------------------------- Mistral / Mixtral (litgpt mistral)
MI = LIT + " (mistral '%s')"
add("mistralai/Mistral-7B-v0.1", 4096, 32, 32, 8, 14336, 32000, 32768,
    MI % "Mistral-7B-{}v0.1" + "; max_positions 32768 per the entry's own comment (block_size=4096 'should be 32768')",
    aliases=["mistralai/Mistral-7B-Instruct-v0.1", "Mistral-7B-v0.1", "Mistral-7B-Instruct-v0.1",
             # full-SFT outputs of corpus recipes that start from mistralai/Mistral-7B-v0.1 (alignment-handbook
             # recipes/zephyr-7b-beta/sft/config_full.yaml hub_model_id zephyr-7b-sft-full; recipes/constitutional-ai/sft/*.yaml)
             "alignment-handbook/zephyr-7b-sft-full", "alignment-handbook/mistral-7b-sft-constitutional-ai"],
    torchtune=tt("mistral", "mistral_7b"), litgpt=["Mistral-7B-v0.1", "Mistral-7B-Instruct-v0.1"])
add("mistralai/Mistral-7B-Instruct-v0.2", 4096, 32, 32, 8, 14336, 32000, 32768, MI % "Mistral-7B-Instruct-v0.2",
    aliases=["Mistral-7B-Instruct-v0.2", "unsloth/mistral-7b-v0.2"], litgpt=["Mistral-7B-Instruct-v0.2", "Mistral-7B-v0.2"])
add("mistralai/Mistral-7B-v0.3", 4096, 32, 32, 8, 14336, 32768, 32768, MI % "Mistral-7B-v0.3" + MISTRAL_UNTIED,
    aliases=["mistralai/Mistral-7B-Instruct-v0.3", "Mistral-7B-v0.3", "Mistral-7B-Instruct-v0.3"],
    litgpt=["Mistral-7B-v0.3", "Mistral-7B-Instruct-v0.3"])
add("mistralai/mathstral-7B-v0.1", 4096, 32, 32, 8, 14336, 32768, 32768, MI % "Mathstral-7B-v0.1" + MISTRAL_UNTIED, litgpt=["Mathstral-7B-v0.1"])
add("mistralai/Mixtral-8x7B-v0.1", 4096, 32, 32, 8, 14336, 32000, 32768, MI % "Mixtral-8x7B-{}v0.1" + " (LLaMAMoE, n_expert=8, n_expert_per_token=2)",
    arch="mixtral", extra={"moe": {"experts": 8, "active": 2, "expert_intermediate_size": 14336, "shared_experts": 0}},
    aliases=["mistralai/Mixtral-8x7B-Instruct-v0.1"], litgpt=["Mixtral-8x7B-v0.1", "Mixtral-8x7B-Instruct-v0.1"])
add("mistralai/Mixtral-8x22B-v0.1", 6144, 56, 48, 8, 16384, 32768, 65536, MI % "Mixtral-8x22B-{}v0.1" + " (LLaMAMoE, n_expert=8, n_expert_per_token=2)" + MISTRAL_UNTIED,
    arch="mixtral", extra={"moe": {"experts": 8, "active": 2, "expert_intermediate_size": 16384, "shared_experts": 0}},
    aliases=["mistralai/Mixtral-8x22B-Instruct-v0.1", "mistral-community/Mixtral-8x22B-v0.1"],
    litgpt=["Mixtral-8x22B-v0.1", "Mixtral-8x22B-Instruct-v0.1"])
add("mistralai/Mistral-Large-Instruct-2407", 12288, 88, 96, 8, 28672, 32768, 32768, MI % "Mistral-Large-Instruct-2407" + MISTRAL_UNTIED,
    aliases=["mistralai/Mistral-Large-Instruct-2411"], litgpt=["Mistral-Large-Instruct-2407", "Mistral-Large-Instruct-2411"])

# ---------------------------------------------------------------- Qwen 2 (torchtune qwen2 builders: q/k/v bias on by default)
QB = "; qkv bias: torchtune qwen2 component builder default (qwen3 builders pass q_proj_bias=False to turn it off)"
add("Qwen/Qwen2-0.5B-Instruct", 896, 24, 14, 2, 4864, 151936, 32768, TT_QWEN2 + " (qwen2_0_5b, tie_word_embeddings=True)" + QB, tie=True, qkv_bias=True,
    arch="qwen2", aliases=["Qwen2-0.5B-Instruct"], torchtune=tt("qwen2", "qwen2_0_5b", qlora=False))
add("Qwen/Qwen2-1.5B-Instruct", 1536, 28, 12, 2, 8960, 151936, 32768, TT_QWEN2 + " (qwen2_1_5b, tie_word_embeddings=True)" + QB, tie=True, qkv_bias=True,
    arch="qwen2", aliases=["Qwen2-1.5B-Instruct"], torchtune=tt("qwen2", "qwen2_1_5b", qlora=False))
add("Qwen/Qwen2-7B-Instruct", 3584, 28, 28, 4, 18944, 152064, 32768, TT_QWEN2 + " (qwen2_7b, from Qwen/Qwen2-7B-Instruct)" + QB
    + "; Qwen/Qwen2-7B (base) has the same shape with max_position_embeddings 131072: its config.json as re-published with "
    "'_name_or_path: Qwen/Qwen2-7B' in huggingface.co/heegyu/0713-qwen2-infini-qarv/blob/main/config.json (hidden 3584, intermediate "
    "18944, 28 layers, 28 heads, 4 kv heads, vocab 152064, tie_word_embeddings false)", qkv_bias=True,
    arch="qwen2", aliases=["Qwen2-7B-Instruct", "Qwen/Qwen2-7B"], torchtune=tt("qwen2", "qwen2_7b", qlora=False))
# Other Qwen2 base checkpoints are not aliased: torchtune's builders cite the -Instruct configs only.

# ---------------------------------------------------------------- Qwen 2.5 (litgpt qwen_2_5: attn_bias=True; ties from torchtune qwen2_5)
Q25 = LIT + " (qwen_2_5 'Qwen2.5-%s{}', attn_bias=True)"
TIE25 = "; tie_word_embeddings=True: " + TT_QWEN25 + " ('Qwen2.5 0.5B-3B model builders will enable tie_word_embeddings')"
add("Qwen/Qwen2.5-0.5B", 896, 24, 14, 2, 4864, 151936, 32768, Q25 % "0.5B" + TIE25, tie=True, qkv_bias=True, arch="qwen2",
    aliases=["Qwen/Qwen2.5-0.5B-Instruct", "Qwen2.5-0.5B", "Qwen2.5-0.5B-Instruct"], torchtune=tt("qwen2_5", "qwen2_5_0_5b", qlora=False),
    litgpt=["Qwen2.5-0.5B", "Qwen2.5-0.5B-Instruct"])
add("Qwen/Qwen2.5-1.5B", 1536, 28, 12, 2, 8960, 151936, 131072, Q25 % "1.5B" + TIE25, tie=True, qkv_bias=True, arch="qwen2",
    aliases=["Qwen/Qwen2.5-1.5B-Instruct", "Qwen2.5-1.5B", "Qwen2.5-1.5B-Instruct"],
    torchtune=["torchtune.models.qwen2_5.qwen2_5_1_5b_base", "torchtune.models.qwen2_5.qwen2_5_1_5b_instruct",
               "torchtune.models.qwen2_5.lora_qwen2_5_1_5b_base", "torchtune.models.qwen2_5.lora_qwen2_5_1_5b_instruct"],
    litgpt=["Qwen2.5-1.5B", "Qwen2.5-1.5B-Instruct"])
add("Qwen/Qwen2.5-3B", 2048, 36, 16, 2, 11008, 151936, 32768, Q25 % "3B" + TIE25, tie=True, qkv_bias=True, arch="qwen2",
    aliases=["Qwen/Qwen2.5-3B-Instruct", "Qwen2.5-3B", "Qwen2.5-3B-Instruct"], torchtune=tt("qwen2_5", "qwen2_5_3b", qlora=False),
    litgpt=["Qwen2.5-3B", "Qwen2.5-3B-Instruct"])
# issue 24 item 2: fine-tunes with exactly the Qwen2.5-7B shape (hidden 3584, 28 layers, 28/4 heads, intermediate 18944, vocab 152064,
# untied, q/k/v bias); only max_position_embeddings/rope_theta differ, which the count does not use.
Q25_7B_SAME = ["Qwen/Qwen2.5-Math-7B", "Qwen/Qwen2.5-Math-7B-Instruct", "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B"]
Q25_7B_SRC = ("; aliases Qwen/Qwen2.5-Math-7B and -Instruct (issue 24): " + LIT + " (qwen_2_5_math 'Qwen2.5-Math-7B{}' built for '' and "
              "'-Instruct', citing huggingface.co/Qwen/Qwen2.5-Math-7B/blob/main/config.json: n_embd 3584, 28 layers, 28 heads, 4 query "
              "groups, intermediate 18944, padded_vocab_size 152064, attn_bias; block_size 4096, rope_base 10000) and keras-hub "
              "qwen2.5_math_7b_en = this count (check_catalog.py PUBLISHED); alias deepseek-ai/DeepSeek-R1-Distill-Qwen-7B (issue 24): the "
              "module printout of the Hub checkpoint in VainF/Torch-Pruning examples/LLMs/readme.md @566a8875 (Embedding(152064, 3584), "
              "28 x Qwen2DecoderLayer with q_proj 3584->3584 and k/v_proj 3584->512 with bias, gate/up 3584->18944, lm_head 3584->152064 "
              "untied; config _name_or_path deepseek-ai/DeepSeek-R1-Distill-Qwen-7B: vocab_size 152064, tie_word_embeddings false, "
              "max_position_embeddings 131072, rope_theta 10000), the same printout as for Qwen/Qwen2.5-7B there")
for size, H, L, nh, nkv, I, V in [("7B", 3584, 28, 28, 4, 18944, 152064), ("14B", 5120, 48, 40, 8, 13824, 152064),
                                  ("32B", 5120, 64, 40, 8, 27648, 152064), ("72B", 8192, 80, 64, 8, 29568, 152064)]:
    b = "qwen2_5_" + size.lower()
    add(f"Qwen/Qwen2.5-{size}", H, L, nh, nkv, I, V, 131072, Q25 % size + "; untied (torchtune %s_base/_instruct pass no tie_word_embeddings)" % b,
        qkv_bias=True, arch="qwen2", aliases=[f"Qwen/Qwen2.5-{size}-Instruct", f"Qwen2.5-{size}", f"Qwen2.5-{size}-Instruct"] + (
            Q25_7B_SAME if size == "7B" else []),
        torchtune=[f"torchtune.models.qwen2_5.{b}_base", f"torchtune.models.qwen2_5.{b}_instruct",
                   f"torchtune.models.qwen2_5.lora_{b}_base", f"torchtune.models.qwen2_5.lora_{b}_instruct"] + (
                       [f"torchtune.models.qwen2_5.lora_{b}"] if size == "7B" else []),
        litgpt=[f"Qwen2.5-{size}", f"Qwen2.5-{size}-Instruct"] + (["Qwen2.5-Math-7B", "Qwen2.5-Math-7B-Instruct"] if size == "7B" else []))
    if size == "7B":
        ENTRIES[-1]["source"] += Q25_7B_SRC

# ---------------------------------------------------------------- Qwen 3 dense (litgpt qwen_3: head_size=128, norm_qk=True; ties torchtune qwen3)
Q3 = LIT + " (qwen_3 'Qwen3-%s{}', norm_qk=True, head_size=128)"
TIE3 = "; tie_word_embeddings=True in " + TT_QWEN3 + " (qwen3_%s_*)"
UNT3 = "; untied: " + TT_QWEN3 + " (qwen3_%s_* pass no tie_word_embeddings)"
for size, H, L, nh, I, tie in [("0.6B", 1024, 28, 16, 3072, True), ("1.7B", 2048, 28, 16, 6144, True), ("4B", 2560, 36, 32, 9728, True),
                               ("8B", 4096, 36, 32, 12288, False), ("14B", 5120, 40, 40, 17408, False)]:
    b = "qwen3_" + size.lower().replace(".", "_")
    src = Q3 % size + ((TIE3 if tie else UNT3) % size.lower().replace(".", "_"))
    add(f"Qwen/Qwen3-{size}", H, L, nh, 8, I, 151936, 40960, src, hd=128, tie=tie, arch="qwen3", extra={"qk_norm": "head"},
        aliases=[f"Qwen/Qwen3-{size}-Base", f"Qwen3-{size}", f"Qwen3-{size}-Base"],
        torchtune=[f"torchtune.models.qwen3.{b}_base", f"torchtune.models.qwen3.{b}_instruct",
                   f"torchtune.models.qwen3.lora_{b}_base", f"torchtune.models.qwen3.lora_{b}_instruct"],
        litgpt=[f"Qwen3-{size}", f"Qwen3-{size}-Base"])
add("Qwen/Qwen3-32B", 5120, 64, 64, 8, 25600, 151936, 40960, LIT + " (qwen_3_32b 'Qwen3-32B'); untied: " + TT_QWEN3 + " (qwen3_32b)",
    hd=128, arch="qwen3", extra={"qk_norm": "head"}, aliases=["Qwen3-32B"],
    torchtune=["torchtune.models.qwen3.qwen3_32b", "torchtune.models.qwen3.lora_qwen3_32b"], litgpt=["Qwen3-32B"])
add("Qwen/Qwen3-4B-Instruct-2507", 2560, 36, 32, 8, 9728, 151936, 262144,
    LIT + " (qwen_3_2507_thinking_instruct 'Qwen3-4B-{}-2507': same dims as Qwen3-4B, block_size=262144); tie_word_embeddings=true: "
    "HF Qwen/Qwen3-4B-Instruct-2507 config.json as quoted in the public notes found by find_string (see README), consistent with the "
    "model card's 4.0B total / 3.6B non-embedding", hd=128, tie=True, arch="qwen3", extra={"qk_norm": "head"},
    aliases=["Qwen/Qwen3-4B-Thinking-2507", "Qwen3-4B-Instruct-2507", "Qwen3-4B-Thinking-2507"],
    litgpt=["Qwen3-4B-Instruct-2507", "Qwen3-4B-Thinking-2507"])
# ---------------------------------------------------------------- Qwen 3 MoE (litgpt qwen_3_moe; router = Linear(H, experts, bias=False))
add("Qwen/Qwen3-30B-A3B", 2048, 48, 32, 4, 6144, 151936, 40960, LIT + " (qwen_3_moe 'Qwen3-30B-A3B': n_expert=128, n_expert_per_token=8, moe_intermediate_size=768)",
    hd=128, arch="qwen3_moe", extra={"qk_norm": "head", "moe": {"experts": 128, "active": 8, "expert_intermediate_size": 768, "shared_experts": 0}},
    aliases=["Qwen/Qwen3-30B-A3B-Base", "Qwen3-30B-A3B", "Qwen3-30B-A3B-Base"], litgpt=["Qwen3-30B-A3B", "Qwen3-30B-A3B-Base"])
add("Qwen/Qwen3-30B-A3B-Instruct-2507", 2048, 48, 32, 4, 6144, 151936, 262144, LIT + " (qwen_3_2507_thinking_instruct 'Qwen3-30B-A3B-{}-2507')",
    hd=128, arch="qwen3_moe", extra={"qk_norm": "head", "moe": {"experts": 128, "active": 8, "expert_intermediate_size": 768, "shared_experts": 0}},
    aliases=["Qwen/Qwen3-30B-A3B-Thinking-2507", "Qwen3-30B-A3B-Instruct-2507", "Qwen3-30B-A3B-Thinking-2507"],
    litgpt=["Qwen3-30B-A3B-Instruct-2507", "Qwen3-30B-A3B-Thinking-2507"])
add("Qwen/Qwen3-235B-A22B", 4096, 94, 64, 4, 12288, 151936, 40960, LIT + " (qwen_3_moe 'Qwen3-235B-A22B': n_expert=128, n_expert_per_token=8, moe_intermediate_size=1536)",
    hd=128, arch="qwen3_moe", extra={"qk_norm": "head", "moe": {"experts": 128, "active": 8, "expert_intermediate_size": 1536, "shared_experts": 0}},
    aliases=["Qwen3-235B-A22B"], litgpt=["Qwen3-235B-A22B"])
add("Qwen/Qwen3-235B-A22B-Instruct-2507", 4096, 94, 64, 4, 12288, 151936, 262144, LIT + " (qwen_3_2507_thinking_instruct 'Qwen3-235B-A22B-{}-2507')",
    hd=128, arch="qwen3_moe", extra={"qk_norm": "head", "moe": {"experts": 128, "active": 8, "expert_intermediate_size": 1536, "shared_experts": 0}},
    aliases=["Qwen/Qwen3-235B-A22B-Thinking-2507"], litgpt=["Qwen3-235B-A22B-Instruct-2507", "Qwen3-235B-A22B-Thinking-2507"])
add("Qwen/QwQ-32B", 5120, 64, 40, 8, 27648, 152064, 131072, LIT + " (qwq 'QwQ-32B', attn_bias=True)" + "; untied: same dims as Qwen2.5-32B, whose published total (untied) is checked", qkv_bias=True, arch="qwen2",
    aliases=["Qwen/QwQ-32B-Preview"], litgpt=["QwQ-32B", "QwQ-32B-Preview"])

# ---------------------------------------------------------------- Qwen 1.5 MoE (transformers Qwen2MoeConfig defaults = Qwen/Qwen1.5-MoE-A2.7B)
add("Qwen/Qwen1.5-MoE-A2.7B", 2048, 24, 16, 16, 5632, 151936, 32768,
    TF + "qwen2_moe/configuration_qwen2_moe.py @008e574391258935f3ecc3035c882e73bbcac419 (checkpoint Qwen/Qwen1.5-MoE-A2.7B: num_experts=60, "
    "num_experts_per_tok=4, moe_intermediate_size=1408, shared_expert_intermediate_size=5632 with a sigmoid shared_expert_gate Linear(H, 1), "
    "decoder_sparse_step=1, mlp_only_layers=[], qkv_bias=True, tie_word_embeddings=False)",
    arch="qwen2_moe", qkv_bias=True,
    extra={"moe": {"experts": 60, "active": 4, "expert_intermediate_size": 1408, "shared_experts": 1, "shared_intermediate_size": 5632, "shared_gate": True}},
    aliases=["Qwen/Qwen1.5-MoE-A2.7B-Chat"])

# ---------------------------------------------------------------- Gemma (litgpt gemma/gemma3; torchtune gemma builders; output tied to embedding)
TT_G = TT + "gemma/_model_builders.py @00a080a6066946a4a2a3c893e48a22c5f55ad1fe"
G = LIT + " (gemma '%s', GemmaMLP = gated GeGLU)"
add("google/gemma-2b", 2048, 18, 8, 1, 16384, 256000, 8192, G % "Gemma-2b" + "; max_seq_len=8192: " + TT_G + " (gemma_2b)", hd=256, tie=True, arch="gemma",
    aliases=["google/gemma-2b-it", "gemma-2b", "gemma-2b-it"], torchtune=tt("gemma", "gemma_2b"), litgpt=["Gemma-2b", "Gemma-2b-it"],
    parameters_source=None)
add("google/gemma-7b", 3072, 28, 16, 16, 24576, 256000, 8192, G % "Gemma-7b" + "; max_seq_len=8192: " + TT_G + " (gemma_7b)", hd=256, tie=True, arch="gemma",
    aliases=["google/gemma-7b-it", "gemma-7b", "gemma-7b-it", "mhenrichsen/gemma-7b"], torchtune=tt("gemma", "gemma_7b"), litgpt=["Gemma-7b", "Gemma-7b-it"])
G2X = {"norms_per_layer": 4}
add("google/gemma-2-2b", 2304, 26, 8, 4, 9216, 256000, 8192, G % "Gemma-2-2b" + " (post_attention_norm, post_mlp_norm: 4 norms/layer)", hd=256, tie=True,
    arch="gemma2", extra=G2X, aliases=["google/gemma-2-2b-it", "gemma-2-2b", "gemma-2-2b-it"], torchtune=tt("gemma2", "gemma2_2b"),
    litgpt=["Gemma-2-2b", "Gemma-2-2b-it"])
add("google/gemma-2-9b", 3584, 42, 16, 8, 14336, 256000, 8192, G % "Gemma-2-9b" + " (4 norms/layer)", hd=256, tie=True,
    arch="gemma2", extra=G2X, aliases=["google/gemma-2-9b-it", "gemma-2-9b", "gemma-2-9b-it"], torchtune=tt("gemma2", "gemma2_9b"),
    litgpt=["Gemma-2-9b", "Gemma-2-9b-it"])
add("google/gemma-2-27b", 4608, 46, 32, 16, 36864, 256000, 8192, G % "Gemma-2-27b" + " (head_size=128, 4 norms/layer)", hd=128, tie=True,
    arch="gemma2", extra=G2X, aliases=["google/gemma-2-27b-it", "gemma-2-27b", "gemma-2-27b-it"], torchtune=tt("gemma2", "gemma2_27b"),
    litgpt=["Gemma-2-27b", "Gemma-2-27b-it"])
G3 = LIT + " (gemma3 '%s': norm_qk=True, post_attention_norm, post_mlp_norm)"
G3X = {"norms_per_layer": 4, "qk_norm": "head"}
add("google/gemma-3-1b-it", 1152, 26, 4, 1, 6912, 262144, 131072, G3 % "Gemma-3-1b-it", hd=256, tie=True, arch="gemma3_text", extra=G3X,
    aliases=["google/gemma-3-1b-pt", "gemma-3-1b-it"], litgpt=["Gemma-3-1b-it"])
# Gemma 3 4B/12B/27B checkpoints are Gemma3ForConditionalGeneration: the text decoder (litgpt dims) + a SigLIP vision tower and
# projector (extra.components) + 64 image/special token rows (Hugging Face embed_tokens has 262208 rows: transformers
# configuration_gemma3.py Gemma3TextConfig vocab_size default 262_208; keras-hub keeps 262144, the explained delta in check_catalog.py).
G3_VIS = ("; vision tower: SigLIP so400m/14 at 896 px as transformers modeling_gemma3.py/modeling_siglip.py build it (Conv2d 14x14 with "
          "bias, 4096-row position table = (896/14)^2, 27 LayerNorm blocks of 1152 with q/k/v/o and fc1/fc2 (4304) biases, post_layernorm), "
          "Gemma3MultiModalProjector mm_input_projection_weight 1152 x text hidden + mm_soft_emb_norm RMSNorm(1152); these dims reproduce the "
          "vision+text totals of keras-team/keras-hub keras_hub/src/models/gemma3/gemma3_presets.py @00d9f10a8e74d4f552ed50170b7dcadb65d3bd52 "
          "(gemma3_4b/12b/27b) exactly")


def gemma3_vision(H):
    E = 1152
    return [
        {"name": "SigLIP patch embedding (Conv2d 14x14, bias)", "kind": "conv", "in_channels": 3, "kernel": [14, 14], "out": E, "bias": True},
        {"name": "SigLIP position table (896/14)^2 rows", "kind": "vector", "dim": E, "count": 4096},
        {"name": "SigLIP encoder layers", "kind": "vit", "hidden": E, "layers": 27, "heads": 16, "intermediate": 4304, "attn_bias": True},
        {"name": "SigLIP post_layernorm", "kind": "norm", "dim": E},
        {"name": "mm_input_projection_weight", "kind": "linear", "in": E, "out": H},
        {"name": "mm_soft_emb_norm", "kind": "norm", "dim": E, "norm": "rmsnorm"},
    ]


for size, H, L, nh, nkv, hd, I in [("4b", 2560, 34, 8, 4, 256, 10240), ("12b", 3840, 48, 16, 8, 256, 15360), ("27b", 5376, 62, 32, 16, 128, 21504)]:
    add(f"google/gemma-3-{size}-it", H, L, nh, nkv, I, 262208, 131072, G3 % f"Gemma-3-{size}-it" + " (text decoder); 262208 embedding rows: "
        + TF + "gemma3/configuration_gemma3.py Gemma3TextConfig vocab_size default 262_208 (transformers 5.23.0)" + G3_VIS,
        hd=hd, tie=True, arch="gemma3", extra=dict(G3X, components=gemma3_vision(H)),
        aliases=[f"google/gemma-3-{size}-pt", f"gemma-3-{size}-it"], litgpt=[f"Gemma-3-{size}-it"])
add("google/codegemma-7b-it", 3072, 28, 16, 16, 24576, 256000, 8192, G % "CodeGemma-7b-it" + "; block_size not set (8192 as gemma-7b: torchtune gemma_7b)", hd=256, tie=True,
    arch="gemma", litgpt=["CodeGemma-7b-it"])

# ---------------------------------------------------------------- Phi (transformers PhiConfig / Phi3Config; litgpt phi; torchtune phi3/phi4)
PHI_CFG = TF + "phi/configuration_phi.py @008e574391258935f3ecc3035c882e73bbcac419 (tie_word_embeddings=False)"
PHI3_CFG = TF + "phi3/configuration_phi3.py @008e574391258935f3ecc3035c882e73bbcac419 (tie_word_embeddings=False)"
PHI_X = {"norms_per_layer": 1, "lm_head_bias": True}  # parallel block with one shared input_layernorm (litgpt shared_attention_norm=True)
add("microsoft/phi-1_5", 2048, 24, 32, 32, 8192, 51200, 2048,
    LIT + " (phi 'phi-1_5': padded_vocab_size=51200, shared_attention_norm=True, lm_head_bias=True, bias=True, GptNeoxMLP = plain MLP 4*n_embd); " + PHI_CFG,
    arch="phi", mlp="plain", norm="layernorm", qkv_bias=True, o_bias=True, mlp_bias=True, extra=PHI_X, aliases=["phi-1_5"], litgpt=["phi-1_5"])
add("microsoft/phi-2", 2560, 32, 32, 32, 10240, 51200, 2048,
    LIT + " (phi 'phi-2': padded_vocab_size=51200, shared_attention_norm=True, lm_head_bias=True, bias=True, plain MLP 4*n_embd); " + PHI_CFG,
    arch="phi", mlp="plain", norm="layernorm", qkv_bias=True, o_bias=True, mlp_bias=True, extra=PHI_X, aliases=["phi-2"], litgpt=["phi-2"])
TT_PHI3 = TT + "phi3/_model_builders.py @0e4a9ae9c1d63e15b7011d61f39cc808d5d207b1 (phi3_mini)"
add("microsoft/Phi-3-mini-4k-instruct", 3072, 32, 32, 32, 8192, 32064, 4096, LIT + " (phi 'Phi-3-mini-4k-instruct'); " + TT_PHI3 + "; " + PHI3_CFG,
    arch="phi3", aliases=["Phi-3-mini-4k-instruct"], torchtune=tt("phi3", "phi3_mini"), litgpt=["Phi-3-mini-4k-instruct"])
add("microsoft/Phi-3-mini-128k-instruct", 3072, 32, 32, 32, 8192, 32064, 131072, LIT + " (phi 'Phi-3-mini-128k-instruct'); " + PHI3_CFG,
    arch="phi3", litgpt=["Phi-3-mini-128k-instruct"])
add("microsoft/Phi-3.5-mini-instruct", 3072, 32, 32, 32, 8192, 32064, 4096, LIT + " (phi 'Phi-3.5-mini-instruct': block_size=4096 as litgpt states it); " + PHI3_CFG,
    arch="phi3", aliases=["Phi-3.5-mini-instruct"], litgpt=["Phi-3.5-mini-instruct"])
TT_PHI4 = TT + "phi4/_model_builders.py @235c0fe238eda6627bdec8628c862d249c8f61e4 (phi4_14b, phi3 component builder)"
add("microsoft/phi-4", 5120, 40, 40, 10, 17920, 100352, 16384, LIT + " (phi 'phi-4'); " + TT_PHI4 + "; " + PHI3_CFG,
    arch="phi3", aliases=["phi-4"], torchtune=tt("phi4", "phi4_14b"), litgpt=["phi-4"])
add("microsoft/Phi-4-reasoning", 5120, 40, 40, 10, 17920, 100352, 32768, LIT + " (phi 'Phi-4-reasoning'); " + PHI3_CFG,
    arch="phi3", aliases=["microsoft/Phi-4-reasoning-plus"], litgpt=["Phi-4-reasoning", "Phi-4-reasoning-plus"])

# ---------------------------------------------------------------- SmolLM2 (litgpt smollm2; torchtune smol builders: tie_word_embeddings=True)
TT_SMOL = TT + "smol/_component_builders.py @838b987c31eafe1c66e2c819009a34523c9b35e6 (smollm2: tie_word_embeddings=True, max_seq_len=8192) and smol/_model_builders.py @aa6f57ad3fd382130c2b94af2b776a303aa25c84"
for size, H, L, nh, nkv, I, b in [("135M", 576, 30, 9, 3, 1536, "smollm2_135m"), ("360M", 960, 32, 15, 5, 2560, "smollm2_360m"),
                                  ("1.7B", 2048, 24, 32, 32, 8192, "smollm2_1_7b")]:
    add(f"HuggingFaceTB/SmolLM2-{size}", H, L, nh, nkv, I, 49152, 8192, LIT + f" (smollm2 'SmolLM2-{size}{{}}'); " + TT_SMOL + f" ({b})",
        tie=True, arch="llama", aliases=[f"HuggingFaceTB/SmolLM2-{size}-Instruct", f"SmolLM2-{size}", f"SmolLM2-{size}-Instruct"],
        torchtune=[f"torchtune.models.smol.{b}"], litgpt=[f"SmolLM2-{size}", f"SmolLM2-{size}-Instruct"])

# ---------------------------------------------------------------- Falcon (litgpt falcon; transformers FalconConfig)
FAL_CFG = TF + "falcon/configuration_falcon.py @055855363e97555535aa9d133f53d99ef75bfd9c (defaults = tiiuae/falcon-7b: multi_query=True, parallel_attn=True, bias=False; tie_word_embeddings not overridden, so PretrainedConfig's default True)"
add("tiiuae/falcon-7b", 4544, 32, 71, 1, 18176, 65024, 2048, LIT + " (falcon 'falcon-7b{}': n_query_groups=1, shared_attention_norm=True, bias=False, plain 4*n_embd MLP); " + FAL_CFG,
    arch="falcon", mlp="plain", norm="layernorm", tie=True, hd=64, extra={"norms_per_layer": 1},
    aliases=["tiiuae/falcon-7b-instruct", "falcon-7b", "falcon-7b-instruct"], litgpt=["falcon-7b", "falcon-7b-instruct"])
add("tiiuae/falcon-40b", 8192, 60, 128, 8, 32768, 65024, 2048,
    LIT + " (falcon 'falcon-40b{}': n_query_groups=8, bias=False, two norms per block (shared_attention_norm False), plain 4*n_embd MLP); tied as " + FAL_CFG,
    arch="falcon", mlp="plain", norm="layernorm", tie=True, aliases=["tiiuae/falcon-40b-instruct", "falcon-40b", "falcon-40b-instruct"],
    litgpt=["falcon-40b", "falcon-40b-instruct"])
# Falcon3 (litgpt falcon3) left out: its tie flag is not stated by any source read.

# ---------------------------------------------------------------- Pythia / GPT-NeoX (litgpt pythia; transformers GPTNeoXConfig)
NEOX_CFG = TF + "gpt_neox/configuration_gpt_neox.py @008e574391258935f3ecc3035c882e73bbcac419 (tie_word_embeddings=False, attention_bias=True, separate input/post-attention LayerNorms)"
PY = LIT + " (pythia '%s', padded vocab from padding_multiple; intermediate 4*n_embd; deduped variants are the same config)"
for name, H, L, nh, V, maxpos in [("pythia-70m", 512, 6, 8, 50304, 2048), ("pythia-160m", 768, 12, 12, 50304, 2048), ("pythia-410m", 1024, 24, 16, 50304, 2048),
                                  ("pythia-1b", 2048, 16, 8, 50304, 2048), ("pythia-1.4b", 2048, 24, 16, 50304, 2048), ("pythia-2.8b", 2560, 32, 32, 50304, 2048),
                                  ("pythia-6.9b", 4096, 32, 32, 50432, 2048), ("pythia-12b", 5120, 36, 40, 50688, 2048)]:
    add(f"EleutherAI/{name}", H, L, nh, nh, 4 * H, V, maxpos, PY % name + "; " + NEOX_CFG, arch="gpt_neox", mlp="plain", norm="layernorm",
        qkv_bias=True, o_bias=True, mlp_bias=True, aliases=[f"EleutherAI/{name}-deduped", name, name + "-deduped"], litgpt=[name, name + "-deduped"])

# ---------------------------------------------------------------- StableLM (transformers StableLmConfig defaults = stablelm-3b-4e1t; litgpt)
add("stabilityai/stablelm-3b-4e1t", 2560, 32, 32, 32, 6912, 50304, 4096,
    TF + "stablelm/configuration_stablelm.py @05cd1ec14dbe16127778060fb68c34105873015c (defaults = stablelm-3b-4e1t: LayerNorm, use_qkv_bias=False, tie_word_embeddings=False); "
    + LIT + " (configs 'stablelm-3b-4e1t': padded_vocab_size=50304, n_layer=32, n_embd=2560, intermediate_size=6912, bias=False)",
    arch="stablelm", norm="layernorm", aliases=["stabilityai/stablelm-zephyr-3b"], litgpt=["stablelm-3b-4e1t", "stablelm-zephyr-3b"])

# ---------------------------------------------------------------- Open LLaMA v1 / OLMo-2 (litgpt)
add("allenai/OLMo-2-1124-7B", 4096, 32, 32, 32, 11008, 100352, 4096,
    LIT + " (olmo2 'OLMo-2-1124-7B{}': norm_qk (full-width q/k RMSNorm, olmo2 type), post_attention_norm, post_mlp_norm, no pre-norms)",
    arch="olmo2", extra={"norms_per_layer": 2, "qk_norm": "full"}, aliases=["allenai/OLMo-2-1124-7B-Instruct", "allenai/OLMo-2-1124-7B-SFT", "allenai/OLMo-2-1124-7B-DPO"],
    litgpt=["OLMo-2-1124-7B", "OLMo-2-1124-7B-Instruct"])
add("allenai/OLMo-2-1124-13B", 5120, 40, 40, 40, 13824, 100352, 4096,
    LIT + " (olmo2 'OLMo-2-1124-13B{}': norm_qk olmo2 type, post_attention_norm, post_mlp_norm)",
    arch="olmo2", extra={"norms_per_layer": 2, "qk_norm": "full"}, aliases=["allenai/OLMo-2-1124-13B-Instruct", "allenai/OLMo-2-1124-13B-SFT", "allenai/OLMo-2-1124-13B-DPO"],
    litgpt=["OLMo-2-1124-13B", "OLMo-2-1124-13B-Instruct"])

# ---------------------------------------------------------------- GPT-2, OPT, BERT (transformers configuration defaults)
add("openai-community/gpt2", 768, 12, 12, 12, 3072, 50257, 1024,
    TF + "gpt2/configuration_gpt2.py @01ae98ae2414210efd0d9ac1ffe78ff21588f1f7 (defaults = openai-community/gpt2: vocab 50257, n_positions 1024, n_embd 768, n_layer 12, n_head 12, n_inner None = 4*n_embd; Conv1D layers with bias; tied lm_head)",
    arch="gpt2", mlp="plain", norm="layernorm", tie=True, qkv_bias=True, o_bias=True, mlp_bias=True, learned_positions=1024, aliases=["gpt2"])
add("facebook/opt-125m", 768, 12, 12, 12, 3072, 50272, 2048,
    TF + "opt/configuration_opt.py @014674d38b61e5c7109e89d496bd699121a8aa4e (defaults: vocab 50272, d_model 768, 12 layers, 12 heads, ffn_dim 3072, max_position_embeddings 2048; OPTLearnedPositionalEmbedding keeps an offset of 2 -> table of 2050 rows; biases on; tied lm_head)",
    arch="opt", mlp="plain", norm="layernorm", tie=True, qkv_bias=True, o_bias=True, mlp_bias=True, learned_positions=2050)
add("google-bert/bert-base-uncased", 768, 12, 12, 12, 3072, 30522, 512,
    TF + "bert/configuration_bert.py @008f5c8c29be84d4721dc6d1e0fcd72300580be4 (defaults = bert-base-uncased: vocab 30522, 768, 12 layers, 12 heads, 3072, 512 positions, type_vocab_size 2); counted as BertModel (embeddings + LayerNorm, encoder, pooler; no MLM head)",
    arch="bert", mlp="plain", norm="layernorm", tie=True, qkv_bias=True, o_bias=True, mlp_bias=True, learned_positions=512,
    extra={"token_type_vocab": 2, "embedding_norm": True, "final_norm": False, "pooler": True, "encoder_only": True}, aliases=["bert-base-uncased"])

# ---------------------------------------------------------------- T5 v1.0 (transformers T5Config; keras-nlp T5 presets for base/large dims)
T5_CFG = TF + "t5/configuration_t5.py @038869d4d54db478c18dbe58a02aefc67f62beb0 (defaults = google-t5/t5-small: vocab 32128, d_model 512, d_kv 64, d_ff 2048, 6+6 layers, 8 heads, 32 relative buckets, relu FF, tie_word_embeddings default True)"
T5_KN = "keras-team/keras-hub keras_nlp/models/t5/t5_presets.py @02dced285ee57d860cfd3e2be6433689ecd3943b (%s config)"
for name, H, L, nh, I, src in [("t5-small", 512, 6, 8, 2048, T5_CFG), ("t5-base", 768, 12, 12, 3072, T5_KN % "t5_base_multi" + "; d_kv 64 and 32 buckets: " + T5_CFG),
                               ("t5-large", 1024, 24, 16, 4096, T5_KN % "t5_large_multi" + "; d_kv 64 and 32 buckets: " + T5_CFG)]:
    add(f"google-t5/{name}", H, L, nh, nh, I, 32128, 0, src + "; max_positions 0: relative position buckets, no maximum stated by the source",
        arch="t5", mlp="plain", tie=True, hd=64,
        extra={"encoder_decoder": {"encoder_layers": L, "decoder_layers": L, "relative_attention_buckets": 32}}, aliases=[name])

# ---------------------------------------------------------------- DeepSeek-V3 (transformers DeepseekV3Config defaults = DeepSeek-V3)
add("deepseek-ai/DeepSeek-V3", 7168, 61, 128, 128, 18432, 129280, 4096,
    TF + "deepseek_v3/configuration_deepseek_v3.py @001f85b38fb432858ace93f18622f07cec46d874 (defaults 'similar to DeepSeek-V3': vocab 129280, "
    "hidden 7168, intermediate 18432 (3 dense layers, first_k_dense_replace=3), moe_intermediate 2048, 61 layers, 128 heads, 256 routed + 1 shared "
    "experts, 8 per token, q_lora_rank 1536, kv_lora_rank 512, qk_nope 128, qk_rope 64, v_head 128, tie_word_embeddings False); "
    "max_positions is the config default 4096 (the released checkpoint extends it with YaRN rope scaling); the multi-token-prediction layer "
    "shipped in the checkpoint is not part of the HF model and not counted",
    arch="deepseek_v3", hd=192,
    extra={"mla": {"q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128},
           "moe": {"experts": 256, "active": 8, "expert_intermediate_size": 2048, "shared_experts": 1, "shared_intermediate_size": 2048,
                   "dense_layers": 3, "router_bias": True}})


# ================================================================ coverage pass 2 (multimodal components, quantized uploads, new families)
# ---------------------------------------------------------------- Llama 3.2 Vision (torchtune llama3_2_vision builders; transformers Mllama)
# Top-level fields are the text decoder's self-attention stack (num_layers = self-attention layers); the vision tower, the
# projection and the fused cross-attention layers are extra.components (README "Optional fields"), so `parameters` is the whole model.
TT_L32V = TT + "llama3_2_vision/_model_builders.py and _component_builders.py (torchtune 0.6.1 on PyPI) "
TT_CLIP = TT + "clip/_component_builders.py clip_vision_encoder + clip/_position_embeddings.py + modules/vision_transformer.py (torchtune 0.6.1)"


def l32v_components(E, out_dim, n_cross, aspect_rows, tokens):
    # `part` (README "Optional fields"): what torchtune's DeepFusionModel freezes or trains with `encoder_trainable` /
    # `fusion_trainable` (modules/model_fusion/_deep_fusion.py __init__, _fusion_utils.py get_fusion_params). "encoder": the CLIP
    # model (Llama3VisionEncoder.clip, models/llama3_2_vision/_encoder.py); "fusion": the projection head (register_fusion_module
    # in Llama3VisionEncoder.__init__), each FusionLayer's cross-attention layer and FusionEmbedding's extra rows
    # (modules/model_fusion/_fusion_layers.py fusion_params); the top-level fields are the decoder's own parameters.
    return [
        {"name": "vision patch embedding", "kind": "conv", "in_channels": 3, "kernel": [14, 14], "out": E, "bias": False, "part": "encoder"},
        {"name": "vision CLS token", "kind": "vector", "dim": E, "part": "encoder"},
        {"name": "vision tiled position embeddings", "kind": "mllama_positions", "hidden": E, "tokens": tokens, "tiles": 4, "aspect_rows": aspect_rows,
         "part": "encoder"},
        {"name": "vision ln_pre/ln_post", "kind": "norm", "dim": E, "count": 2, "part": "encoder"},
        {"name": "vision encoder layers", "kind": "vit", "hidden": E, "layers": 32, "heads": 16, "intermediate": 4 * E, "attn_bias": False, "part": "encoder"},
        {"name": "vision global/projection layers (gated)", "kind": "vit", "hidden": E, "layers": 8, "heads": 16, "intermediate": 4 * E,
         "attn_bias": False, "gates": 2, "part": "fusion"},
        {"name": "multimodal projector", "kind": "linear", "in": 6 * E, "out": out_dim, "bias": True, "part": "fusion"},
        {"name": "text cross-attention layers", "kind": "cross_attention_layers", "layers": n_cross, "part": "fusion"},
        {"name": "fusion token embeddings", "kind": "embedding_rows", "rows": 8, "part": "fusion"},
    ]


for size, H, L, nh, I in [("11b", 4096, 32, 32, 14336), ("90b", 8192, 80, 64, 28672)]:
    add(f"torchtune.models.llama3_2_vision.llama3_2_vision_{size}", H, L, nh, 8, I, 128256, 131072,
        TT_L32V + f"(llama3_2_vision_{size}: vocab 128256 + 8 fusion tokens, {L} self-attention layers, fusion_interval 4 -> {L // 4} "
        f"cross-attention layers, heads {nh}, kv 8, embed {H}, intermediate {I}, untied output nn.Linear; encoder clip_embed_dim 1280, "
        "32 CLIP layers, 16 heads, patch 14, image_size 560 (the default and what every corpus config passes), max_num_tiles 4, "
        "clip_hidden_states [3, 7, 15, 23, 30] -> projection input 6 x 1280, 8 projection-head layers with 2 TanhGates each, attn_bias False, "
        "MLP 4 x 1280 with bias, Fp32LayerNorm); " + TT_CLIP + " (tile tables max_num_tiles x max_num_tiles rows; 1601 tokens per tile = "
        "(560/14)^2 + 1). torchtune layout: the pre/post tile and global position tables have 4 x 4 rows where transformers' Mllama has "
        "9 (max_aspect_ratio_id + 1), so this count is 41,036,800 below the Hugging Face module count for 11B",
        arch="mllama", torchtune=[f"torchtune.models.llama3_2_vision.lora_llama3_2_vision_{size}", f"torchtune.models.llama3_2_vision.qlora_llama3_2_vision_{size}"],
        extra={"components": l32v_components(1280, H, L // 4, 4, 1601)})
add("meta-llama/Llama-3.2-11B-Vision-Instruct", 4096, 32, 32, 8, 14336, 128256, 131072,
    TF + "mllama/configuration_mllama.py (transformers 5.23.0 on PyPI: MllamaTextConfig defaults vocab 128256, hidden 4096, 40 layers "
    "of which cross_attention_layers [3, 8, 13, 18, 23, 28, 33, 38] (8), heads 32, kv 8, intermediate 14336, tie_word_embeddings False; "
    "MllamaVisionConfig defaults hidden 1280, 32 + 8 global layers, 16 heads, intermediate 5120, vision_output_dim 7680, patch 14, "
    "max_num_tiles 4, 8 supported_aspect_ratios -> max_aspect_ratio_id 8) and mllama/modeling_mllama.py (embed_tokens vocab + 8 rows, "
    "aspect-ratio tables of max_aspect_ratio_id + 1 rows); image_size 560 (the checkpoint's; the class default is 448) from "
    + TT_L32V + "(image_size 560 for the Instruct weights); self-attention layers = 40 - 8",
    arch="mllama", aliases=["meta-llama/Llama-3.2-11B-Vision", "alpindale/Llama-3.2-11B-Vision-Instruct", "Llama-3.2-11B-Vision-Instruct"],
    extra={"components": l32v_components(1280, 4096, 8, 9, 1601)})


# ---------------------------------------------------------------- quantized uploads of catalog models (stored_quantization)
# The base is the model the repository name states; the upload's own config.json was not read (its architecture fields are
# the base's; check_catalog.py verifies they are copied unchanged). The corpus file that loads each one is cited.
QC = "base named by the repository id; loaded by ../shared/corpus/"
quant("TechxGenus/Meta-Llama-3-8B-Instruct-AWQ", "meta-llama/Meta-Llama-3-8B", "awq-int4",
      QC + "hiyouga__LLaMA-Factory/examples/train_qlora/llama3_lora_sft_awq.yaml; 4-bit: transformers utils/quantization_config.py "
      "AwqConfig bits default 4 (transformers 5.23.0; the upload's quantization_config not read)")
quant("TechxGenus/Meta-Llama-3-8B-Instruct-GPTQ", "meta-llama/Meta-Llama-3-8B", "gptq",
      QC + "hiyouga__LLaMA-Factory/examples/train_qlora/llama3_lora_sft_gptq.yaml; bit width not stated by any source read")
quant("ISTA-DASLab/Meta-Llama-3-8B-Instruct-AQLM-2Bit-1x16", "meta-llama/Meta-Llama-3-8B", "aqlm-2bit-1x16",
      QC + "hiyouga__LLaMA-Factory/examples/train_qlora/llama3_lora_sft_aqlm.yaml; AQLM 2 bits per weight, 1 codebook of 16 bits (the repository id)")
quant("TheBloke/Llama-2-7B-GPTQ", "meta-llama/Llama-2-7b-hf", "gptq-int4",
      QC + "axolotl-ai-cloud__axolotl/examples/llama-2/gptq-lora.yml (gptq: true); 4-bit: axolotl's own config reference "
      ".runpod/src/config/config.yaml ('Whether you are training a 4-bit GPTQ quantized model')")
quant("hugging-quants/Meta-Llama-3.1-405B-BNB-NF4-BF16", "meta-llama/Llama-3.1-405B", "nf4",
      QC + "axolotl-ai-cloud__axolotl/examples/llama-3/qlora-fsdp-405b.yaml (load_in_4bit: true); bitsandbytes NF4 with bf16 for "
      "the unquantized tensors (the repository id)")
quant("nvidia/Qwen3-30B-A3B-NVFP4", "Qwen/Qwen3-30B-A3B", "nvfp4",
      QC + "axolotl-ai-cloud__axolotl/examples/qwen3/30b-a3b-nvfp4-lora.yaml ('Qwen3-30B-A3B MoE LoRA on an NVFP4 (modelopt) checkpoint')")
quant("axolotl-quants/Llama-4-Scout-17B-16E-Linearized-bnb-nf4-bf16", "meta-llama/Llama-4-Scout-17B-16E", "nf4",
      QC + "axolotl-ai-cloud__axolotl/examples/llama-4/scout-qlora-single-h100-flex.yaml and 5 more (load_in_4bit: true, adapter: qlora); "
      "'Linearized': experts stored as per-expert nn.Linear (same parameter count), bnb NF4 with bf16 for the rest (the repository id)")
quant("axolotl-quants/Llama-4-Maverick-17B-128E-Linearized-bnb-nf4-bf16", "meta-llama/Llama-4-Maverick-17B-128E", "nf4",
      QC + "axolotl-ai-cloud__axolotl/examples/llama-4/do-no-use-fa2/maverick-qlora-fsdp1.yaml (load_in_4bit: true, adapter: qlora)")

# ---------------------------------------------------------------- Llama 4 Scout / Maverick (torchtune llama4 builders; transformers Llama4)
TT_L4 = TT + "llama4/_model_builders.py @27aa76b887ca4015fd017774c9537b8754033438 and llama4/_component_builders.py @10ff7cd2e2415a9ebb462a10cf7ed149bf531054"
# `part`: what torchtune's EarlyFusionModel freezes or trains with `encoders_trainable` / `fusion_trainable`
# (modules/model_fusion/_early_fusion.py __init__): "encoder" the CLIP model (Llama4VisionEncoder.clip), "fusion" the projection head
# (register_fusion_module in Llama4VisionEncoder.__init__, models/llama4/_encoder.py: fc1, fc2 and the projector of
# llama4_vision_projection_head); the top-level fields are the decoder's.
L4_VISION = [  # torchtune llama4_vision_encoder == transformers Llama4VisionModel + Llama4MultiModalProjector (same tensors)
    {"name": "vision patch embedding (unfold + linear, no bias)", "kind": "linear", "in": 3 * 14 * 14, "out": 1408, "part": "encoder"},
    {"name": "vision CLS token", "kind": "vector", "dim": 1408, "part": "encoder"},
    {"name": "vision position table ((336/14)^2 + 1 rows)", "kind": "vector", "dim": 1408, "count": 577, "part": "encoder"},
    {"name": "vision layernorm_pre/post", "kind": "norm", "dim": 1408, "count": 2, "part": "encoder"},
    {"name": "vision encoder layers", "kind": "vit", "hidden": 1408, "layers": 34, "heads": 16, "intermediate": 5632, "attn_bias": True, "part": "encoder"},
    {"name": "vision adapter fc1 (pixel shuffle 0.5: 1408/0.25 in)", "kind": "linear", "in": 5632, "out": 4096, "part": "fusion"},
    {"name": "vision adapter fc2", "kind": "linear", "in": 4096, "out": 4096, "part": "fusion"},
    {"name": "multimodal projector", "kind": "linear", "in": 4096, "out": 5120, "part": "fusion"},
]
L4_SRC = (TT_L4 + " (%s: vocab 202048, 48 layers, 40 heads, 8 kv, head_dim 5120/40, embed 5120, expert hidden_dim 8192, %s, shared expert, "
          "router nn.Linear without bias, GroupedExperts gate/up/down, untied output, %s; vision clip_embed_dim 1408, 34 layers, 16 heads, "
          "patch 14, image 336, attn_bias True, no tile position tables, projection 5632->4096->4096->5120 without bias); layout checked against "
          + TF + "llama4/modeling_llama4.py (transformers 5.23.0: Llama4TextExperts, Llama4TextMoe shared_expert, Llama4Router bias=False, "
          "qk L2Norm without weights, Llama4VisionModel, Llama4VisionPixelShuffleMLP, Llama4MultiModalProjector bias=False)")
add("meta-llama/Llama-4-Scout-17B-16E", 5120, 48, 40, 8, 8192, 202048, 10485760,
    L4_SRC % ("llama4_scout_17b_16e", "16 experts top-1 in every layer", "max_seq_len 10485760"),
    arch="llama4", hd=128, aliases=["meta-llama/Llama-4-Scout-17B-16E-Instruct", "unsloth/Llama-4-Scout-17B-16E-Instruct", "Llama-4-Scout-17B-16E-Instruct"],
    torchtune=["torchtune.models.llama4.llama4_scout_17b_16e", "torchtune.models.llama4.lora_llama4_scout_17b_16e"],
    extra={"moe": {"experts": 16, "active": 1, "expert_intermediate_size": 8192, "shared_experts": 1, "shared_intermediate_size": 8192},
           "components": L4_VISION})
add("meta-llama/Llama-4-Maverick-17B-128E", 5120, 48, 40, 8, 16384, 202048, 1048576,
    L4_SRC % ("llama4_maverick_17b_128e", "128 experts top-1 in every 2nd layer (moe_every_n_layers 2), the other 24 layers a dense MLP of "
              "mlp_hidden_dim 16384 (intermediate_size here)", "use_qk_norm False, max_seq_len 1048576"),
    arch="llama4", hd=128, aliases=["meta-llama/Llama-4-Maverick-17B-128E-Instruct", "Llama-4-Maverick-17B-128E-Instruct"],
    torchtune=["torchtune.models.llama4.llama4_maverick_17b_128e", "torchtune.models.llama4.lora_llama4_maverick_17b_128e"],
    extra={"moe": {"experts": 128, "active": 1, "expert_intermediate_size": 8192, "shared_experts": 1, "shared_intermediate_size": 8192,
                   "dense_layers": 24}, "components": L4_VISION})

# ---------------------------------------------------------------- gpt-oss (transformers GptOss; OpenAI checkpoints store the MoE experts in MXFP4)
GPTOSS = (TF + "gpt_oss/configuration_gpt_oss.py and modeling_gpt_oss.py (transformers 5.23.0 on PyPI: GptOssConfig defaults = the 120b "
          "layout: vocab 201088, hidden 2880, expert intermediate 2880, head_dim 64, 64 heads, 8 kv heads, attention_bias True, 36 layers, "
          "128 local experts, 4 per token, tie_word_embeddings False, max_position_embeddings 131072; GptOssExperts gate_up_proj/down_proj "
          "with biases, GptOssTopKRouter weight + bias, per-head attention sinks)")
GPTOSS_Q = ("; stored_quantization mxfp4: the MoE expert weights ship as MXFP4 (transformers Mxfp4Config; the corpus loads them with "
            "model_quantization_config: Mxfp4Config, dequantize: true in axolotl-ai-cloud__axolotl/examples/gpt-oss/*.yaml); attention, router, "
            "embeddings and lm_head are bf16")
for gid, L, E, extra_src in [("openai/gpt-oss-120b", 36, 128, "the class defaults"),
                              ("openai/gpt-oss-20b", 24, 32, "the defaults with num_hidden_layers 24 and num_local_experts 32 from "
                               "vllm-project/vime scripts/models/gpt-oss-20B.sh @96e0e22e7dc74328bf1e7d9908c219c9abd1e731 (--num-layers 24, --num-experts 32, --hidden-size 2880, "
                               "--ffn-hidden-size 2880, --kv-channels 64, --num-query-groups 8, --vocab-size 201088)")]:
    add(gid, 2880, L, 64, 8, 2880, 201088, 131072, GPTOSS + "; this entry: " + extra_src + GPTOSS_Q,
        arch="gpt_oss", hd=64, qkv_bias=True, o_bias=True, stored_quantization="mxfp4",
        extra={"attention_sinks": True, "moe": {"experts": E, "active": 4, "expert_intermediate_size": 2880, "expert_bias": True,
                                                "router_bias": True}})
quant("axolotl-ai-co/gpt-oss-120b-dequantized", "openai/gpt-oss-120b", None,
      "bf16 (dequantized) upload of openai/gpt-oss-120b: ../shared/corpus/axolotl-ai-cloud__axolotl/examples/gpt-oss/gpt-oss-20b-fft-fsdp2-offload.yaml "
      "('a dequantized model like axolotl-ai-co/gpt-oss-120b-dequantized')")

# ---------------------------------------------------------------- Qwen3-VL (transformers qwen3_vl / qwen3_vl_moe layout; torchtitan Qwen3-VL flavors)
TTN_Q3VL = "pytorch/torchtitan torchtitan/experiments/qwen3_vl/__init__.py @0375bb6789fa55559e7bb58d81e8cca47cb418a1 (qwen3_vl_configs)"
Q3VL_LAYOUT = (TF + "qwen3_vl/modeling_qwen3_vl.py and qwen3_vl_moe/modeling_qwen3_vl_moe.py (transformers 5.23.0): Conv3d patch embedding "
               "(temporal 2 x 16 x 16, bias), learned position table num_position_embeddings x hidden, blocks with fused qkv + proj (bias), "
               "GELU MLP fc1/fc2 (bias), 2 LayerNorms; merger LayerNorm(hidden) + fc1 (4*hidden)^2 + fc2 4*hidden -> text hidden; one "
               "deepstack merger per deepstack index with a LayerNorm over 4*hidden; MoE router weight without bias")


def qwen_vl_vision(E, I, L, out, deepstack, heads=16, pos=2304):
    m = 4 * E  # spatial_merge_size 2 -> 2 x 2 patches concatenated
    comps = [
        {"name": "vision patch embedding (Conv3d 2x16x16)", "kind": "conv", "in_channels": 3, "kernel": [2, 16, 16], "out": E, "bias": True},
        {"name": "vision position table", "kind": "vector", "dim": E, "count": pos},
        {"name": "vision blocks", "kind": "vit", "hidden": E, "layers": L, "heads": heads, "intermediate": I, "attn_bias": True},
        {"name": "vision merger norm", "kind": "norm", "dim": E},
        {"name": "vision merger fc1", "kind": "linear", "in": m, "out": m, "bias": True},
        {"name": "vision merger fc2", "kind": "linear", "in": m, "out": out, "bias": True},
    ]
    if deepstack:
        comps += [
            {"name": "deepstack merger norms", "kind": "norm", "dim": m, "count": deepstack},
            {"name": "deepstack merger fc1", "kind": "linear", "in": m, "out": m, "bias": True, "count": deepstack},
            {"name": "deepstack merger fc2", "kind": "linear", "in": m, "out": out, "bias": True, "count": deepstack},
        ]
    return comps


add("Qwen/Qwen3-VL-30B-A3B-Instruct", 2048, 48, 32, 4, 6144, 151936, 128000,
    TTN_Q3VL + " ('30B-A3B': vocab 151936, dim 2048, 48 layers, 32 heads, 4 kv heads, head_dim 128, qk_norm, MoE 128 experts top-8 of "
    "hidden 768, no shared expert, no weight tying; vision dim 1152, ffn 4304, 27 layers, 16 heads, patch 16, temporal 2, merge 2, "
    "out_hidden_size 2048, 2304 position embeddings, deepstack indices [8, 16, 24]); " + Q3VL_LAYOUT + "; max_positions: "
    + TF + "qwen3_vl_moe/configuration_qwen3_vl_moe.py max_position_embeddings default 128000",
    arch="qwen3_vl_moe", hd=128, aliases=["Qwen/Qwen3-VL-30B-A3B-Thinking", "Qwen3-VL-30B-A3B-Instruct"],
    extra={"qk_norm": "head", "moe": {"experts": 128, "active": 8, "expert_intermediate_size": 768, "shared_experts": 0},
           "components": qwen_vl_vision(1152, 4304, 27, 2048, 3)})
add("Qwen/Qwen3-VL-4B-Instruct", 2560, 36, 32, 8, 9728, 151936, 128000,
    "no config.json of this checkpoint was read. Text decoder: the Qwen/Qwen3-4B fields of this catalog (litgpt/torchtune, tied "
    "embeddings); vision tower: the torchtitan Qwen3-VL '2B' encoder (" + TTN_Q3VL + ": dim 1024, ffn 4096, 24 layers, 16 heads, patch 16, "
    "2304 position embeddings, deepstack [5, 11, 17]) with out_hidden_size = the text hidden size 2560. This combination is confirmed by "
    "the exact total 4,437,815,808 that public code reports for Qwen3-VL-4B-Instruct (sum of named parameters; see check_catalog.py "
    "CORROBORATED). " + Q3VL_LAYOUT + "; max_positions: " + TF + "qwen3_vl/configuration_qwen3_vl.py default 128000",
    arch="qwen3_vl", hd=128, tie=True, aliases=["Qwen/Qwen3-VL-4B-Thinking", "Qwen3-VL-4B-Instruct"],
    extra={"qk_norm": "head", "components": qwen_vl_vision(1024, 4096, 24, 2560, 3)})

# ---------------------------------------------------------------- Qwen2-VL / Qwen2.5-VL 7B (text decoder = Qwen2-7B fields; vision tower from transformers)
Q2VL_TEXT = ("text decoder: the Qwen/Qwen2-7B-Instruct fields of this catalog (" + TT_QWEN2 + " qwen2_7b: 3584 hidden, 28 layers, 28 heads, "
             "4 kv heads, intermediate 18944, vocab 152064, q/k/v bias, untied)")


def qwen2_vl_vision(I, gated_mlp):
    E, out = 1280, 3584
    norm = "rmsnorm" if gated_mlp else "layernorm"
    return [
        {"name": "vision patch embedding (Conv3d 2x14x14, no bias)", "kind": "conv", "in_channels": 3, "kernel": [2, 14, 14], "out": E},
        {"name": "vision blocks", "kind": "vit", "hidden": E, "layers": 32, "heads": 16, "intermediate": I, "attn_bias": True,
         "mlp": "gated" if gated_mlp else "plain", "mlp_bias": True, "norm": norm},
        {"name": "merger ln_q", "kind": "norm", "dim": E, "norm": norm},
        {"name": "merger fc1", "kind": "linear", "in": 4 * E, "out": 4 * E, "bias": True},
        {"name": "merger fc2", "kind": "linear", "in": 4 * E, "out": out, "bias": True},
    ]


add("Qwen/Qwen2-VL-7B-Instruct", 3584, 28, 28, 4, 18944, 152064, 32768,
    Q2VL_TEXT + "; vision: " + TF + "qwen2_vl/configuration_qwen2_vl.py Qwen2VLVisionConfig defaults (declared for Qwen/Qwen2-VL-7B-Instruct: "
    "depth 32, embed_dim 1280, mlp_ratio 4, 16 heads, patch 14, temporal 2, merge 2, hidden_size (out) 3584) and modeling_qwen2_vl.py "
    "(Conv3d without bias, LayerNorm blocks, fused qkv with bias, fc1/fc2 with bias, merger ln_q LayerNorm + 2 linears) (transformers 5.23.0); "
    "max_positions: Qwen2VLTextConfig default 32768",
    arch="qwen2_vl", qkv_bias=True, aliases=["Qwen/Qwen2-VL-7B", "Qwen2-VL-7B-Instruct"],
    extra={"components": qwen2_vl_vision(5120, False)})
add("Qwen/Qwen2.5-VL-7B-Instruct", 3584, 28, 28, 4, 18944, 152064, 32768,
    Q2VL_TEXT + "; vision: " + TF + "qwen2_5_vl/configuration_qwen2_5_vl.py Qwen2_5_VLVisionConfig defaults (depth 32, intermediate 3420, 16 heads, "
    "patch 14, temporal 2, merge 2, out_hidden_size 3584) and modeling_qwen2_5_vl.py (RMSNorm blocks, gated MLP with bias, merger ln_q RMSNorm) "
    "(transformers 5.23.0); vision width 1280 = Qwen2-VL's embed_dim default (the class's own hidden_size default 3584 is not the 7B's: "
    "public code prints 676,550,144 visual parameters for this checkpoint, which 1280 reproduces exactly); max_positions: text default 32768",
    arch="qwen2_5_vl", qkv_bias=True, aliases=["Qwen/Qwen2.5-VL-7B", "Qwen2.5-VL-7B-Instruct"],
    extra={"components": qwen2_vl_vision(3420, True)})

# ---------------------------------------------------------------- Qwen3.5 (hybrid Gated DeltaNet / gated full attention, vision tower; transformers qwen3_5)
Q35_LAYOUT = (TF + "qwen3_5/modeling_qwen3_5.py and configuration_qwen3_5.py (transformers 5.23.0): every 4th layer full attention "
              "(full_attention_interval default 4) with q_proj emitting query + output gate, q/k RMSNorm over head_dim 256; the other layers "
              "Qwen3_5GatedDeltaNet (conv kernel 4); Qwen3_5VisionModel = Conv3d 2x16x16 (bias), 2304-row position table, LayerNorm blocks "
              "with fused qkv and GELU MLP (bias), merger LayerNorm + 2 linears, no deepstack; the checkpoints' mtp.* block is ignored at load")
Q35_CTX = "; max_positions 262144: xorbitsai/inference doc/source/models/builtin/llm/qwen3.5.rst ('Context Length: 262144')"
Q35_FIT = ("; %s derived, not read: the only choice among those tried that makes text + vision + the stored MTP block equal the checkpoint "
           "total published for this id (check_catalog.py CORROBORATED, '+mtp')")
MILES = "radixark/miles scripts/models/"
SLIME = "THUDM/slime scripts/models/"


def q35(id, H, L, nh, nkv, I, tie, text_src, lin, vis, fit, aliases=(), moe=None):
    k, v = lin
    extra = {"qk_norm": "head", "attn_output_gate": True,
             "linear_attention": {"full_attention_interval": 4, "key_heads": k, "value_heads": v, "key_head_dim": 128,
                                  "value_head_dim": 128, "conv_kernel": 4},
             "components": qwen_vl_vision(*vis, H, 0)}
    if moe:
        extra["moe"] = moe
    add(id, H, L, nh, nkv, I, 248320, 262144, text_src + "; " + Q35_LAYOUT + Q35_CTX + (Q35_FIT % fit if fit else ""),
        arch="qwen3_5_moe" if moe else "qwen3_5", hd=256, tie=tie, aliases=aliases, extra=extra)


q35("Qwen/Qwen3.5-0.8B", 1024, 24, 8, 2, 3584, True,
    SLIME + "qwen3.5-0.8B.sh @f8879db2b7a9587e60d767faf5b2c8bd56d710d8 (hidden 1024, 24 layers, 8 heads, 2 query groups, kv-channels 256, "
    "ffn 3584, vocab 248320, embeddings tied: no --untie-embeddings-and-output-weights)",
    (16, 16), (768, 3072, 12), "linear-attention heads (16 key, 16 value, dims 128) and the vision tower (width 768, MLP 3072, 12 blocks) are")
q35("Qwen/Qwen3.5-4B", 2560, 32, 16, 4, 9216, True,
    MILES + "qwen3.5-4B.sh @51b148c7c09036d7ea32eb8f77c3c56b4e32983f (hidden 2560, 32 layers, 16 heads, 4 query groups, kv-channels 256, "
    "ffn 9216, vocab 248320, tied: no --untie-embeddings-and-output-weights)",
    (16, 32), (1024, 4096, 24), "linear-attention heads (16 key, 32 value, as stated for 35B-A3B) and the vision tower (width 1024, MLP 4096, 24 blocks, "
    "the Qwen3-VL 2B tower of " + TTN_Q3VL + ") are")
q35("Qwen/Qwen3.5-9B", 4096, 32, 16, 4, 12288, False,
    MILES + "qwen3.5-9B.py @ad4a662fe1ce938ae45dbc75dff36c87b4a00b42 (hidden 4096, 32 layers, 16 heads, 4 query groups, kv-channels 256, "
    "ffn 12288, vocab 248320, --untie-embeddings-and-output-weights); vision: Qwen3_5VisionConfig defaults (depth 27, 1152, 4304) with "
    "out_hidden_size 4096", (16, 32), (1152, 4304, 27), "linear-attention heads (16 key, 32 value) are")
q35("Qwen/Qwen3.5-27B", 5120, 64, 24, 4, 17408, False,
    MILES + "qwen3.5-27B.sh @51b148c7c09036d7ea32eb8f77c3c56b4e32983f (hidden 5120, 64 layers, 24 heads, 4 query groups, kv-channels 256, "
    "ffn 17408, vocab 248320, untied); vision: Qwen3_5VisionConfig defaults (depth 27, 1152, 4304) with out_hidden_size 5120",
    (16, 48), (1152, 4304, 27), "linear-attention heads (16 key, 48 value) are")
q35("Qwen/Qwen3.5-35B-A3B", 2048, 40, 16, 2, 512, False,
    SLIME + "qwen3.5-35B-A3B.sh @10cefc3b91ba5db960c74037390f4e2596f5773d (hidden 2048, 40 layers all MoE, 16 heads, 2 query groups, "
    "kv-channels 256, 256 experts top-8 of ffn 512, shared expert 512 with gate, untied, vocab 248320, linear-attention-freq 4, "
    "16 key / 32 value heads of dim 128, conv kernel 4); vision: Qwen3_5VisionConfig defaults (depth 27, 1152, 4304) with out_hidden_size 2048; "
    "intermediate_size here = the expert size (no dense MLP layer)", (16, 32), (1152, 4304, 27), None,
    aliases=["Qwen/Qwen3.5-35B-A3B-Base"],
    moe={"experts": 256, "active": 8, "expert_intermediate_size": 512, "shared_experts": 1, "shared_intermediate_size": 512, "shared_gate": True})

# ---------------------------------------------------------------- GLM-4.7-Flash (transformers glm4_moe_lite: MLA + DeepSeek-style MoE)
add("zai-org/GLM-4.7-Flash", 2048, 47, 20, 20, 10240, 154880, 202752,
    MILES + "glm4.7-flash.sh @86202a26e383f4ab840161a68eaa1d015ef32056 (hidden 2048, 1 dense layer of ffn 10240 + 46 MoE layers, 64 routed "
    "experts top-4 of ffn 1536, 1 shared expert 1536, 20 heads, MLA q_lora_rank 768, kv_lora_rank 512, qk head 192 + rope 64, v head 256, "
    "vocab 154880, untied, router expert bias; its 1 MTP layer is not part of the transformers model) = the defaults of "
    + TF + "glm4_moe_lite/configuration_glm4_moe_lite.py (transformers 5.23.0; max_position_embeddings 202752) with the layout of "
    "modeling_glm4_moe_lite.py (q_a/q_b, kv_a_proj_with_mqa, kv_b, o_proj; Glm4MoeLiteTopkRouter weight + e_score_correction_bias, "
    "counted here as the stored tensor it is although transformers registers it as a buffer)",
    arch="glm4_moe_lite", hd=256,
    extra={"mla": {"q_lora_rank": 768, "kv_lora_rank": 512, "qk_nope_head_dim": 192, "qk_rope_head_dim": 64, "v_head_dim": 256},
           "moe": {"experts": 64, "active": 4, "expert_intermediate_size": 1536, "shared_experts": 1, "shared_intermediate_size": 1536,
                   "dense_layers": 1, "router_bias": True}})

# ---------------------------------------------------------------- DeepSeek-V2 / V2-Lite (MaxText model configs; transformers deepseek_v2 layout)
MAXTEXT = "AI-Hypercomputer/maxtext MaxText/configs/models/"
DSV2_LAYOUT = (TF + "deepseek_v2/modeling_deepseek_v2.py (transformers 5.23.0): MLA (q_proj when q_lora_rank is null, else q_a/q_a_layernorm/q_b; "
               "kv_a_proj_with_mqa, kv_a_layernorm, kv_b, o_proj), first_k_dense_replace dense layers, routed + shared experts, router "
               "weight without bias, untied lm_head (config tie_word_embeddings default False)")
add("deepseek-ai/DeepSeek-V2-Lite", 2048, 27, 16, 16, 10944, 102400, 163840,
    MAXTEXT + "deepseek2-16b.yml @0ed7bd529b9d690570473c3525d1efeda6b6c944 ('model config for DeepSeek V2-Lite - 16B': emb 2048, 16 heads, "
    "mlp 10944, moe mlp 1408, 27 layers, 1 dense, vocab 102400, 64 experts top-6, 2 shared, q_lora_rank 0, kv_lora_rank 512, qk_nope 128, "
    "qk_rope 64, v_head 128, routed_bias False, max_position_embeddings 163840); " + DSV2_LAYOUT,
    arch="deepseek_v2", hd=192, aliases=["deepseek-ai/DeepSeek-V2-Lite-Chat", "DeepSeek-V2-Lite"],
    extra={"mla": {"q_lora_rank": 0, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128},
           "moe": {"experts": 64, "active": 6, "expert_intermediate_size": 1408, "shared_experts": 2, "shared_intermediate_size": 1408,
                   "dense_layers": 1}})
add("deepseek-ai/DeepSeek-V2", 5120, 60, 128, 128, 12288, 102400, 163840,
    MAXTEXT + "deepseek2-236b.yml @202191eca1e539ff3fa6106cc2dbe08354156f25 ('model config for DeepSeek V2 - 236B': emb 5120, 128 heads, "
    "mlp 12288, moe mlp 1536, 60 layers, 1 dense, vocab 102400, 160 experts top-6, 2 shared, q_lora_rank 1536, kv_lora_rank 512, "
    "qk_nope 128, qk_rope 64, v_head 128, routed_bias False); " + DSV2_LAYOUT + "; DeepSeek-V2.5 aliased: public Hub metadata gives it the "
    "same total (235,741,434,880) as V2, V2-Chat and Coder-V2-Instruct",
    arch="deepseek_v2", hd=192, aliases=["deepseek-ai/DeepSeek-V2-Chat", "deepseek-ai/DeepSeek-V2-Chat-0628", "deepseek-ai/DeepSeek-V2.5"],
    extra={"mla": {"q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128},
           "moe": {"experts": 160, "active": 6, "expert_intermediate_size": 1536, "shared_experts": 2, "shared_intermediate_size": 1536,
                   "dense_layers": 1}})
quant("axolotl-quants/DeepSeek-V2.5-bnb-nf4-bf16", "deepseek-ai/DeepSeek-V2", "nf4",
      QC + "axolotl-ai-cloud__axolotl/examples/deepseek-v2/qlora-fsdp-2_5.yaml (load_in_4bit: true, adapter: qlora); base DeepSeek-V2.5 (alias of deepseek-ai/DeepSeek-V2)")
quant("deepseek-ai/DeepSeek-V3-0324-BF16", "deepseek-ai/DeepSeek-V3", None,
      "a BF16 conversion of deepseek-ai/DeepSeek-V3-0324 (../shared/corpus/hiyouga__LLaMA-Factory/examples/ktransformers/train_lora/"
      "deepseek_v3_lora_sft_kt.yaml: 'need to convert to BF16 checkpoint first'); V3-0324 is a checkpoint update of DeepSeek-V3 (same "
      "architecture by name; its config.json not read)")
quant("neuralmagic/Sparse-Llama-3.1-8B-2of4", "meta-llama/Llama-3.1-8B", None,
      "2:4-sparse pruning of Llama-3.1-8B stored as dense bf16 tensors (the zeros are stored): ../shared/corpus/axolotl-ai-cloud__axolotl/"
      "examples/llama-3/sparse-finetuning.yaml (llm_compressor plugin); base by repository id, its config.json not read")

# ---------------------------------------------------------------- SmolLM3 (transformers smollm3 defaults = SmolLM3-3B)
add("HuggingFaceTB/SmolLM3-3B", 2048, 36, 16, 4, 11008, 128256, 32768,
    TF + "smollm3/configuration_smollm3.py (transformers 5.23.0; declared for HuggingFaceTB/SmolLM3-3B: vocab 128256, hidden 2048, "
    "intermediate 11008, 36 layers, 16 heads, 4 kv heads, no bias, tie_word_embeddings True, max_position_embeddings 32768; NoPE every 4th "
    "layer has no parameters); SmolLM3-3B-Base and the SmolLM3-3B-checkpoints revisions (alignment-handbook recipes/smollm3) share it",
    arch="smollm3", tie=True, aliases=["HuggingFaceTB/SmolLM3-3B-Base", "HuggingFaceTB/SmolLM3-3B-checkpoints", "SmolLM3-3B"])

# ---------------------------------------------------------------- Mistral Small 3.x 24B (transformers mistral3 defaults; keras-hub presets)
MS3_TEXT = (TF + "mistral3/configuration_mistral3.py sub_configs_defaults (transformers 5.23.0; declared for "
            "mistralai/Mistral-Small-3.1-24B-Instruct-2503): text hidden 5120, 40 layers, 32 heads, 8 kv heads, head_dim 128, intermediate "
            "32768, vocab 131072, max_position_embeddings 131072; MistralConfig tie_word_embeddings False")
add("mistralai/Mistral-Small-3.1-24B-Instruct-2503", 5120, 40, 32, 8, 32768, 131072, 131072,
    MS3_TEXT + "; vision (Pixtral): hidden 1024, intermediate 4096, 24 layers, 16 heads, patch 14; layout of pixtral/modeling_pixtral.py "
    "(Conv2d without bias, ln_pre RMSNorm, RMSNorm blocks, q/k/v/o and gated MLP without bias) and mistral3/modeling_mistral3.py "
    "(projector RMSNorm, patch merger 4*1024 -> 1024, linear_1 1024 -> 5120, linear_2, multimodal_projector_bias False)",
    arch="mistral3", hd=128,
    aliases=["mistralai/Mistral-Small-3.1-24B-Base-2503", "mistralai/Mistral-Small-3.2-24B-Instruct-2506", "Mistral-Small-3.1-24B-Instruct-2503"],
    extra={"components": [
        {"name": "Pixtral patch_conv (14x14, no bias)", "kind": "conv", "in_channels": 3, "kernel": [14, 14], "out": 1024},
        {"name": "Pixtral ln_pre", "kind": "norm", "dim": 1024, "norm": "rmsnorm"},
        {"name": "Pixtral transformer", "kind": "vit", "hidden": 1024, "layers": 24, "heads": 16, "intermediate": 4096, "attn_bias": False,
         "mlp": "gated", "mlp_bias": False, "norm": "rmsnorm"},
        {"name": "projector norm", "kind": "norm", "dim": 1024, "norm": "rmsnorm"},
        {"name": "patch merger", "kind": "linear", "in": 4096, "out": 1024},
        {"name": "projector linear_1", "kind": "linear", "in": 1024, "out": 5120},
        {"name": "projector linear_2", "kind": "linear", "in": 5120, "out": 5120}]})
# Devstral Small 1.0 (2505): the same text-only Mistral Small 3.1 decoder as Devstral Small 1.1 (2507), aliased here.
DEVSTRAL_2505_SRC = (
    "; alias mistralai/Devstral-Small-2505 (Devstral Small 1.0): its model card (README.md of mistralai/Devstral-Small-2505 as mirrored "
    "on model.aibase.com, model 1927650041783390208: \"fine-tuned from Mistral-Small-3.1 ... Devstral is text-only, and the vision "
    "encoder was removed before fine-tuning\", Tekken tokenizer with a 131k vocabulary, 128k context) and a public OpenVINO GGUF "
    "frontend note that compares the published config.json files of Devstral-Small-2505 and -2507 (code index file id 67340720967, "
    "\"Devstral Small 2505 | llama | Same decoder configuration as 2507\"); no exact total for 2505 itself was found, so the "
    "23,572,403,200 above is checked against 2506/2507/Devstral 1.1 only")
add("mistralai/Magistral-Small-2506", 5120, 40, 32, 8, 32768, 131072, 131072,
    MS3_TEXT + " (the text decoder alone: Magistral Small 2506/2507 and Devstral Small 1.1 ship without the vision tower, as the keras-hub "
    "presets magistral_small_2506_en, magistral_small_2507_en and devstral_small_1_1 (Devstral-Small-2507) state 23,572,403,200 params, "
    "which this text-only count reproduces)" + DEVSTRAL_2505_SRC,
    arch="mistral", hd=128, aliases=["mistralai/Magistral-Small-2507", "mistralai/Devstral-Small-2507", "Magistral-Small-2506",
                                     "mistralai/Devstral-Small-2505", "Devstral-Small-2505"])

# ---------------------------------------------------------------- Qwen3-Next-80B-A3B (transformers qwen3_next defaults; same hybrid stack as Qwen3.5, text only)
add("Qwen/Qwen3-Next-80B-A3B-Instruct", 2048, 48, 16, 2, 512, 151936, 32768,
    TF + "qwen3_next/configuration_qwen3_next.py (transformers 5.23.0; declared for Qwen/Qwen3-Next-80B-A3B-Instruct: vocab 151936, hidden "
    "2048, 48 layers, 16 heads, 2 kv heads, head_dim 256, linear attention 16 key / 32 value heads of 128, conv kernel 4, 512 experts top-10 "
    "of 512, shared expert 512 (gated), untied, max_position_embeddings 32768; intermediate_size 5632 is unused because every layer is MoE, "
    "so intermediate_size here = the expert size) = " + SLIME + "qwen3-next-80B-A3B.sh @af61a8ec4cfee817767630623187c4b5edbd5dd8; layout "
    "of modeling_qwen3_next.py (in_proj_qkvz/in_proj_ba fused, same parameter count as Qwen3.5's split projections; gated full attention "
    "every 4th layer); the checkpoint's mtp.* block is not loaded by transformers",
    arch="qwen3_next", hd=256, aliases=["Qwen/Qwen3-Next-80B-A3B-Thinking", "Qwen3-Next-80B-A3B-Instruct"],
    extra={"qk_norm": "head", "attn_output_gate": True,
           "linear_attention": {"full_attention_interval": 4, "key_heads": 16, "value_heads": 32, "key_head_dim": 128, "value_head_dim": 128,
                                "conv_kernel": 4},
           "moe": {"experts": 512, "active": 10, "expert_intermediate_size": 512, "shared_experts": 1, "shared_intermediate_size": 512,
                   "shared_gate": True}})
quant("nvidia/Qwen3-Next-80B-A3B-Instruct-NVFP4", "Qwen/Qwen3-Next-80B-A3B-Instruct", "nvfp4",
      QC + "axolotl-ai-cloud__axolotl/examples/qwen3-next/qwen3-next-80b-a3b-nvfp4-lora.yaml (LoRA on the NVFP4 checkpoint)")

# ---------------------------------------------------------------- fine-tunes whose base the corpus itself (or a published total) establishes
quant("loubnabnl/smollm2-1.7B-sft", "HuggingFaceTB/SmolLM2-1.7B", None,
      "full SFT output of ../shared/corpus/huggingface__alignment-handbook/recipes/smollm2/sft/config.yaml (model_name_or_path "
      "HuggingFaceTB/SmolLM2-1.7B, hub_model_id smollm2-1.7B-sft); recipes/smollm2/dpo/config.yaml loads it as loubnabnl/smollm2-1.7B-sft")
quant("loubnabnl/smollm2-360M-sft", "HuggingFaceTB/SmolLM2-360M", None,
      "full SFT output of ../shared/corpus/huggingface__alignment-handbook/recipes/smollm2/sft/config_smol.yaml (model_name_or_path "
      "HuggingFaceTB/SmolLM2-360M, hub_model_id smollm2-360M-sft); recipes/smollm2/dpo/config_smol.yaml loads it as loubnabnl/smollm2-360M-sft")
quant("alignment-handbook/zephyr-7b-sft-qlora", "mistralai/Mistral-7B-v0.1", None,
      "a PEFT (QLoRA) adapter repository: ../shared/corpus/huggingface__alignment-handbook/recipes/zephyr-7b-beta/sft/config_qlora.yaml "
      "trains it on mistralai/Mistral-7B-v0.1; loading it loads that base plus the small adapter (the adapter's own tensors are not counted)")
quant("agentica-org/DeepCoder-14B-Preview", "Qwen/Qwen2.5-14B", None,
      "RL fine-tune of deepseek-ai/DeepSeek-R1-Distill-Qwen-14B (model card, quoted in public docs); that distill reports "
      "14,770,033,664 parameters (ollama deepseek-r1:14b, public code), the Qwen/Qwen2.5-14B count of this catalog")

# ---------------------------------------------------------------- Ministral 3 3B (Megatron-Bridge provider; transformers mistral3 + pixtral layout)
def pixtral_components(text_hidden):
    return [
        {"name": "Pixtral patch_conv (14x14, no bias)", "kind": "conv", "in_channels": 3, "kernel": [14, 14], "out": 1024},
        {"name": "Pixtral ln_pre", "kind": "norm", "dim": 1024, "norm": "rmsnorm"},
        {"name": "Pixtral transformer", "kind": "vit", "hidden": 1024, "layers": 24, "heads": 16, "intermediate": 4096, "attn_bias": False,
         "mlp": "gated", "mlp_bias": False, "norm": "rmsnorm"},
        {"name": "projector norm", "kind": "norm", "dim": 1024, "norm": "rmsnorm"},
        {"name": "patch merger", "kind": "linear", "in": 4096, "out": 1024},
        {"name": "projector linear_1", "kind": "linear", "in": 1024, "out": text_hidden},
        {"name": "projector linear_2", "kind": "linear", "in": text_hidden, "out": text_hidden}]


add("mistralai/Ministral-3-3B-Instruct-2512", 3072, 26, 32, 8, 9216, 131072, 262144,
    "NVIDIA-NeMo/Megatron-Bridge src/megatron/bridge/models/ministral3/ministral3_provider.py @125f30d7d1156d8786407a4d3da76ea43bb7baba "
    "(Ministral3ModelProvider3B: hidden 3072, ffn 9216, 26 layers, 32 heads, 8 query groups, kv_channels 128, gated SiLU MLP without bias, "
    "RMSNorm, share_embeddings_and_output_weights True; the same provider serves the Base, Instruct and Reasoning variants); vocab 131072 "
    "and max_position_embeddings 262144: " + TF + "ministral3/configuration_ministral3.py defaults; vision tower and projector: the Pixtral "
    "defaults of " + TF + "mistral3/configuration_mistral3.py (hidden 1024, 24 layers, intermediate 4096, patch 14) with the projector "
    "into 3072; the total equals the 3,849,090,048 public Hub metadata gives Ministral-3-3B-Instruct-2512",
    arch="mistral3", hd=128, tie=True,
    aliases=["mistralai/Ministral-3-3B-Base-2512", "mistralai/Ministral-3-3B-Reasoning-2512", "Ministral-3-3B-Instruct-2512"],
    extra={"components": pixtral_components(3072)})

# ---------------------------------------------------------------- NVIDIA Nemotron 3 Nano 30B-A3B (hybrid Mamba2 / attention / MoE; Megatron-Bridge provider)
add("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", 2688, 52, 32, 2, 1856, 131072, 262144,
    "NVIDIA-NeMo/Megatron-Bridge src/megatron/bridge/models/nemotronh/nemotron_h_provider.py @160ccccbb49d8eb37d05197a9fd4c4390eb9f88e "
    "(Nemotron3NanoProvider: hybrid_layer_pattern MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME (23 Mamba2, 23 MoE, 6 attention "
    "blocks), hidden 2688, 32 heads, 2 query groups, kv_channels 128, Mamba 64 heads of 64, state 128, 8 groups, 128 experts top-6 of "
    "ffn 1856 with squared-ReLU (up/down only), shared expert 3712, seq_length 262144); vocab 131072, untied, conv kernel 4 with bias: "
    + TF + "nemotron_h/configuration_nemotron_h.py defaults (declared for this checkpoint); layout of modeling_nemotron_h.py "
    "(NemotronHBlock = RMSNorm + one mixer; router e_score_correction_bias is a buffer, not counted); the total equals the "
    "31,577,937,344 public Hub metadata gives this id. num_layers = blocks; intermediate_size = the expert size",
    arch="nemotron_h", hd=128, mlp="plain", aliases=["nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-Base-BF16"],
    extra={"hybrid_pattern": {"pattern": "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME",
                              "mamba": {"heads": 64, "head_dim": 64, "state": 128, "groups": 8, "conv_kernel": 4, "conv_bias": True}},
           "moe": {"experts": 128, "active": 6, "expert_intermediate_size": 1856, "shared_experts": 1, "shared_intermediate_size": 3712}})

# ---------------------------------------------------------------- GLM-4.5-Air (transformers glm4_moe defaults)
add("zai-org/GLM-4.5-Air", 4096, 46, 96, 8, 10944, 151552, 131072,
    TF + "glm4_moe/configuration_glm4_moe.py defaults (transformers 5.23.0: vocab 151552, hidden 4096, intermediate 10944 (1 dense layer, "
    "first_k_dense_replace 1), moe_intermediate 1408, 46 layers, 96 heads, 8 kv heads, head_dim 128, 128 routed experts top-8, 1 shared, "
    "use_qk_norm False, untied, max_position_embeddings 131072, num_mtp_layers 1) and modeling_glm4_moe.py (router weight + "
    "e_score_correction_bias, counted as the stored tensor); attention_bias True (q/k/v bias): the class default False does not "
    "reproduce the published totals, True does: 106,852,251,264 = the Hub total of PrimeIntellect/INTELLECT-3 (the same stack without "
    "MTP) and, with the stored MTP layer (its own embedding and head), the 110,468,824,832 of zai-org/GLM-4.5-Air",
    arch="glm4_moe", hd=128, qkv_bias=True, aliases=["zai-org/GLM-4.5-Air-Base", "GLM-4.5-Air"],
    extra={"moe": {"experts": 128, "active": 8, "expert_intermediate_size": 1408, "shared_experts": 1, "shared_intermediate_size": 1408,
                   "dense_layers": 1, "router_bias": True}})

# ---------------------------------------------------------------- Qwen3.5-397B-A17B, MiniMax-M2, Seed-OSS-36B
q35("Qwen/Qwen3.5-397B-A17B", 4096, 60, 32, 2, 1024, False,
    SLIME + "qwen3.5-397B-A17B.sh @aa84536b351586da7db37f74688d0550f3d333cf (hidden 4096, 60 layers all MoE, 32 heads, 2 query groups, "
    "kv-channels 256, 512 experts top-10 of ffn 1024, shared expert 1024 with gate, untied, vocab 248320); vision: Qwen3_5VisionConfig "
    "defaults (depth 27, 1152, 4304) with out_hidden_size 4096; public notes break the checkpoint into vision 456,010,480 and MTP "
    "6,595,568,128, both equal to this catalog's component and param_count.mtp_layer values",
    (16, 64), (1152, 4304, 27), "linear-attention heads (16 key, 64 value) are",
    moe={"experts": 512, "active": 10, "expert_intermediate_size": 1024, "shared_experts": 1, "shared_intermediate_size": 1024, "shared_gate": True})
add("MiniMaxAI/MiniMax-M2", 3072, 62, 48, 8, 1536, 200064, 196608,
    MILES + "minimax-m2.sh @63bbd9cf08967d0c4f63ca291774972201a0997e (62 layers all MoE, hidden 3072, vocab 200064, 48 heads, 8 query groups, "
    "kv-channels 128, 256 experts top-8 of ffn 1536, no bias, untied, qk-layernorm, router expert bias); layout of " + TF
    + "minimax_m2/modeling_minimax_m2.py (transformers 5.23.0: q_norm/k_norm RMSNorm over all heads x head_dim, router "
    "e_score_correction_bias counted as the stored tensor); the total equals the 228,689,764,864 public Hub metadata gives this id; "
    "max_positions: " + TF + "minimax_m2/configuration_minimax_m2.py max_position_embeddings default 196608",
    arch="minimax_m2", hd=128,
    extra={"qk_norm": "full", "moe": {"experts": 256, "active": 8, "expert_intermediate_size": 1536, "shared_experts": 0, "router_bias": True}})
add("ByteDance-Seed/Seed-OSS-36B-Instruct", 5120, 64, 80, 8, 27648, 155136, 524288,
    "the checkpoint's config.json as quoted in public notes ('Seed-OSS Representative Config Snapshot': hidden 5120, 64 layers, 80 heads, "
    "8 kv heads, head_dim 128, intermediate 27648, vocab 155136, max positions 524288, attention_bias true, attention_out_bias false, "
    "mlp_bias false, tie_word_embeddings false; params index 36,151,104,512 for Instruct and Base) = " + TF + "seed_oss/"
    "configuration_seed_oss.py defaults (declared for this checkpoint) except hidden_size (default 4096)",
    arch="seed_oss", hd=128, qkv_bias=True, aliases=["ByteDance-Seed/Seed-OSS-36B-Base"])

# ---------------------------------------------------------------- Qwen (v1) 7B, LLaVA-1.5-7B
add("Qwen/Qwen-7B", 4096, 32, 32, 32, 11008, 151936, 8192,
    "Qwen/Qwen-7B config.json as quoted in public code (model config table 'qwen1_7b_config', citing "
    "huggingface.co/Qwen/Qwen-7B/blob/main/config.json: hidden 4096, 32 heads, 32 kv heads, 32 layers, intermediate_size 22016, vocab "
    "151936, max_model_len 8192); Qwen v1's remote modeling halves intermediate_size for w1/w2 (11008 each, here intermediate_size) and "
    "gives the fused c_attn a bias and c_proj none; this layout reproduces the 7,721,324,544 parameters public code prints for Qwen-7B "
    "(chatllm.cpp banner, benchmark tables); untied lm_head",
    arch="qwen", qkv_bias=True, aliases=["Qwen/Qwen-7B-Chat"])
# issue 24 item 2 (reported out-of-memory configs naming them): Qwen1.5-7B, DeepSeek-R1-Distill-Qwen-1.5B, ChatGLM3-6B.
add("Qwen/Qwen1.5-7B", 4096, 32, 32, 32, 11008, 151936, 32768,
    "Qwen/Qwen1.5-7B config.json as quoted in public code (model config table 'qwen1_5_7b_config', citing "
    "huggingface.co/Qwen/Qwen1.5-7B/blob/main/config.json: hidden 4096, 32 heads, 32 kv heads, 32 layers, intermediate_size 11008, vocab "
    "151936, max_model_len 32768); Qwen2 layout (model_type qwen2: q/k/v with bias, o_proj without); untied: the Hub total "
    "7,721,324,544 that PiDanShouRouZhouXD/Sakura_Launcher_GUI src/sakura.py records for base_model_hf Qwen/Qwen1.5-7B (config_cache "
    "hidden 4096, 32 heads, 32 kv heads, 32 layers) equals this count only with a separate lm_head",
    arch="qwen2", qkv_bias=True)
add("deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B", 1536, 28, 12, 2, 8960, 151936, 131072,
    "deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B config.json as quoted in public code (a Qwen2Config printout with _name_or_path "
    "deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B, transformers 4.48.3, and a C struct transcribing the file field by field: hidden 1536, "
    "intermediate 8960, 28 layers, 12 heads, 2 kv heads, vocab 151936, max_position_embeddings 131072, rope_theta 10000, "
    "tie_word_embeddings false); the Qwen2.5-Math-1.5B shape but UNTIED (so not an alias of Qwen/Qwen2.5-1.5B, which ties): "
    "1,777,088,000 parameters as llama.cpp n_params and public pruning scripts print for it (check_catalog.py CORROBORATED)",
    arch="qwen2", qkv_bias=True)
add("THUDM/chatglm3-6b", 4096, 28, 32, 2, 13696, 65024, 8192,
    "THUDM/chatglm3-6b config.json as quoted in public code and load logs (ChatGLMConfig: hidden_size 4096, num_layers 28, "
    "num_attention_heads 32, multi_query_attention true with multi_query_group_num 2, kv_channels 128, ffn_hidden_size 13696 "
    "(dense_h_to_4h emits 2 x 13696 for SwiGLU: the gated layout), padded_vocab_size 65024, add_qkv_bias true, add_bias_linear false, "
    "rmsnorm true, post_layer_norm true, seq_length 8192, tie_word_embeddings false: output_layer separate); rotary on half of each "
    "head has no parameters; 6,243,584,000 parameters as model.num_parameters() prints after loading chatglm3-6b (public code; the "
    "same total as ChatGLM2-6B, same architecture) (check_catalog.py CORROBORATED)",
    arch="chatglm", qkv_bias=True)
# Baichuan 2 (remote BaichuanForCausalLM; reported out-of-memory configs load local folders named Baichuan2-13B-Chat): Llama
# block with a fused bias-free W_pack (q, k, v) and o_proj, gate/up/down MLP, RMSNorm, untied NormHead lm_head (the head
# normalises its weight rows in forward; the parameter is a plain vocab x hidden matrix). 7B uses RoPE, 13B ALiBi (no
# parameters in either). Base and Chat share one config shape in every source read; no exact published total was found.
BAICHUAN2_LAYOUT = ("layout: vllm-project/vllm vllm/model_executor/models/baichuan.py @6b06599499a6f9d6f140ae26ff95b3cbd2e7e75c "
                    "(W_pack QKV and o_proj bias=False, gate_up/down bias=False, input_layernorm and post_attention_layernorm RMSNorm, "
                    "final norm, separate lm_head whose loaded weight Baichuan2 (vocab 125696) normalises; BaichuanForCausalLM: hidden "
                    "4096 = Baichuan2-7B uses ROPE, Baichuan2-13B ALIBI) and the remote modeling_baichuan.py as copied in public code "
                    "(BaichuanAttention W_pack = Linear(H, 3H, bias=False), MLP gate/up/down bias=False, RMSNorm weight only); "
                    "NVIDIA/NeMo nemo/collections/llm/gpt/model/baichuan.py @81c322970eefed301196de5cc7b921ad32e9ceeb (Baichuan2Config: "
                    "RMSNorm, gated SiLU, add_bias_linear False, share_embeddings_and_output_weights False, seq_length 4096)")
BAICHUAN2_ALIBI_NOT_PRICED = (
    "; not priced by the memory model (the entry format has no field for it): Baichuan2-13B's remote modeling_baichuan.py "
    "builds an ALiBi bias of n_heads x seq x seq (get_alibi_mask), merges it with the padding mask into a per-batch float "
    "additive mask and hands that to attention, so the s x s mask tensor and an attention kernel that accepts a float mask "
    "(not flash attention) are what actually run; the estimate prices attention as the stated or assumed implementation")
add("baichuan-inc/Baichuan2-13B-Chat", 5120, 40, 40, 40, 13696, 125696, 4096,
    "dims: inclusionAI/Ling mindie_config/atb_models/build/lib/atb_llm/models/baichuan/v2_13b/config_baichuan.py "
    "@314dc6c50adf2a00e25d0f3d00659259974035d2 (Huawei MindIE ATB BaichuanConfig for Baichuan2-13B: vocab_size 125696, hidden_size "
    "5120, intermediate_size 13696, num_hidden_layers 40, num_attention_heads 40 with num_key_value_heads = num_attention_heads, "
    "max_position_embeddings 4096, tie_word_embeddings False) and mindspore-lab/mindformers research/baichuan2/"
    "predict_baichuan2_13b.yaml @13fee78dc5bc3a34670abac9f9cb1d250efc74a5 (Baichuan13BV2ForCausalLM for baichuan2-13B-Chat: "
    "hidden_size 5120, num_layers 40, num_heads 40, vocab_size 125696); ALiBi for the 13B: NVIDIA NeMo Framework user guide, "
    "Baichuan 2 page (\"the 7B model uses RoPE; while the 13B model uses Attention with Linear Biases\"). " + BAICHUAN2_LAYOUT +
    ". Baichuan2-13B-Base has the same config shape (both listed together in the same sources; LLaMA-Factory registers them "
    "in one model group with lora target W_pack). Computed 13,896,668,160; the model card's \"13B\" is rounded and no exact "
    "total was found" + BAICHUAN2_ALIBI_NOT_PRICED,
    arch="baichuan", tie=False,
    aliases=["baichuan-inc/Baichuan2-13B-Base", "Baichuan2-13B-Chat", "Baichuan2-13B-Base"])
add("baichuan-inc/Baichuan2-7B-Chat", 4096, 32, 32, 32, 11008, 125696, 4096,
    "dims: NVIDIA/NeMo nemo/collections/llm/gpt/model/baichuan.py @81c322970eefed301196de5cc7b921ad32e9ceeb (Baichuan2Config7B: "
    "num_layers 32, hidden_size 4096, num_attention_heads 32, num_query_groups 32, ffn_hidden_size 11008, position_embedding_type "
    "rope, seq_length 4096, untied) and mindspore-lab/mindformers research/baichuan2/predict_baichuan2_7b.yaml "
    "@ce5f2bc715f75eb2764a29e46f81b96ea5426c33 (Baichuan7BV2ForCausalLM for baichuan2-7B-Chat: hidden_size 4096, num_layers 32, "
    "num_heads 32, vocab_size 125696, seq_length 4096). " + BAICHUAN2_LAYOUT + ". Baichuan2-7B-Base has the same config shape. "
    "Computed 7,505,973,248; the model card's \"7B\" is rounded and no exact total was found",
    arch="baichuan", tie=False,
    aliases=["baichuan-inc/Baichuan2-7B-Base", "Baichuan2-7B-Chat", "Baichuan2-7B-Base"])
add("llava-hf/llava-1.5-7b-hf", 4096, 32, 32, 32, 11008, 32064, 4096,
    TF + "llava/configuration_llava.py (transformers 5.23.0; declared for llava-hf/llava-1.5-7b-hf: vision CLIP hidden 1024, intermediate "
    "4096, patch 14, image 336, 24 layers; text AutoConfig llama = LlamaConfig defaults 4096/32 layers/32 heads/11008, untied; "
    "multimodal_projector_bias True) and clip/modeling_clip.py (class embedding, Conv2d without bias, 577-row position table, "
    "pre_layrnorm, LayerNorm blocks with biases, post_layernorm) + LlavaMultiModalProjector (1024 -> 4096 -> 4096 with bias); 32064 "
    "embedding rows (the checkpoint's padded vocabulary: with 32000 the count is 524,288 short of the 7,063,427,072 that public code "
    "asserts for LlavaForConditionalGeneration(config of llava-hf/llava-1.5-7b-hf))",
    arch="llava", aliases=["llava-1.5-7b-hf"],
    extra={"components": [
        {"name": "CLIP class embedding", "kind": "vector", "dim": 1024},
        {"name": "CLIP patch embedding (14x14, no bias)", "kind": "conv", "in_channels": 3, "kernel": [14, 14], "out": 1024},
        {"name": "CLIP position table (336/14)^2 + 1 rows", "kind": "vector", "dim": 1024, "count": 577},
        {"name": "CLIP pre_layrnorm + post_layernorm", "kind": "norm", "dim": 1024, "count": 2},
        {"name": "CLIP encoder layers", "kind": "vit", "hidden": 1024, "layers": 24, "heads": 16, "intermediate": 4096, "attn_bias": True},
        {"name": "projector linear_1", "kind": "linear", "in": 1024, "out": 4096, "bias": True},
        {"name": "projector linear_2", "kind": "linear", "in": 4096, "out": 4096, "bias": True}]})

# ---------------------------------------------------------------- Mistral Small 4 119B (transformers mistral4 defaults + Pixtral tower)
add("mistralai/Mistral-Small-4-119B-2603", 4096, 36, 32, 32, 2048, 131072, 1048576,
    TF + "mistral4/configuration_mistral4.py defaults (transformers 5.23.0; declared for mistralai/Mistral-Small-4-119B-2603: vocab 131072, "
    "hidden 4096, 36 layers, 32 heads, MLA q_lora_rank 1024, kv_lora_rank 256, qk_nope 64, qk_rope 64, v_head 128, 128 routed experts "
    "top-4 of 2048, 1 shared expert 2048, first_k_dense_replace 0, untied, max_position_embeddings 1048576) with the layout of "
    "modeling_mistral4.py (router weight only); vision tower and projector: the Pixtral defaults of " + TF + "mistral3/configuration_mistral3.py "
    "(1024, 24 layers, 4096, patch 14; the checkpoint is Mistral3ForConditionalGeneration, the corpus trains it with AutoProcessor) "
    "projected into 4096. Count not confirmed: a public listing of Hub totals gives 119,401,317,952, 19,008 more than this count "
    "(unexplained; the same listing is 560 above the keras-hub total for Mistral-Small-3.2). intermediate_size here = the expert size",
    arch="mistral4", hd=128, aliases=["axolotl-ai-co/Mistral-Small-4-119B-2603-BF16"],
    extra={"mla": {"q_lora_rank": 1024, "kv_lora_rank": 256, "qk_nope_head_dim": 64, "qk_rope_head_dim": 64, "v_head_dim": 128},
           "moe": {"experts": 128, "active": 4, "expert_intermediate_size": 2048, "shared_experts": 1, "shared_intermediate_size": 2048},
           "components": pixtral_components(4096)})
q35("Qwen/Qwen3.5-122B-A10B", 3072, 48, 32, 2, 1024, False,
    "config.json values as read and tabulated in public notes ('Findings 2 - Model architecture', read 2026-09-30: 48 layers = 12 full / "
    "36 linear, 2 kv heads, head_dim 256, hidden 3072, 256 experts with 8 routed + 1 shared, linear-attention heads 16 K / 64 V, "
    "context 262144, safetensors.total 125,086,497,008); vocab 248320, untied, gated shared expert as the other Qwen3.5 MoE entries; "
    "vision: Qwen3_5VisionConfig defaults (depth 27, 1152, 4304) with out_hidden_size 3072",
    (16, 64), (1152, 4304, 27), "the 32 attention heads and the expert (and shared-expert) size 1024 are",
    moe={"experts": 256, "active": 8, "expert_intermediate_size": 1024, "shared_experts": 1, "shared_intermediate_size": 1024, "shared_gate": True})

# ---------------------------------------------------------------- GLM-4.6V-Flash (transformers glm4v defaults = the GLM-4.1V-9B layout)
add("zai-org/GLM-4.6V-Flash", 4096, 40, 32, 2, 13696, 151552, 32768,
    TF + "glm4v/configuration_glm4v.py defaults (transformers 5.23.0; declared for zai-org/GLM-4.1V-9B-Thinking: text vocab 151552, hidden "
    "4096, intermediate 13696, 40 layers, 32 heads, 2 kv heads, max_position_embeddings 32768; vision depth 24, hidden 1536, 12 heads, "
    "image 336, patch 14, temporal 2, merge 2, out_hidden_size 4096, intermediate 13696, attention_bias False; untied) and "
    "modeling_glm4v.py (text: q/k/v bias, 4 RMSNorms per layer, fused gate_up; vision: Conv3d with bias, 576-row position table, "
    "RMSNorm blocks whose gated MLP is out_hidden_size wide, post_conv_layernorm, Conv2d downsample 1536 -> 4096, post_layernorm, "
    "merger proj + LayerNorm + gated 13696 MLP); GLM-4.6V-Flash is this layout: public notes give it 40 layers, 2 kv heads, hidden 4096, "
    "dense, vision, and safetensors.total 10,292,777,472, which this count reproduces exactly",
    arch="glm4v", hd=128, qkv_bias=True, aliases=["GLM-4.6V-Flash"],
    extra={"norms_per_layer": 4, "components": [
        {"name": "vision patch embedding (Conv3d 2x14x14, bias)", "kind": "conv", "in_channels": 3, "kernel": [2, 14, 14], "out": 1536, "bias": True},
        {"name": "vision position table (336/14)^2 rows", "kind": "vector", "dim": 1536, "count": 576},
        {"name": "vision blocks (gated MLP of out_hidden_size)", "kind": "vit", "hidden": 1536, "layers": 24, "heads": 12, "intermediate": 4096,
         "attn_bias": False, "mlp": "gated", "mlp_bias": False, "norm": "rmsnorm"},
        {"name": "post_conv_layernorm + post_layernorm", "kind": "norm", "dim": 1536, "norm": "rmsnorm", "count": 2},
        {"name": "downsample Conv2d 2x2", "kind": "conv", "in_channels": 1536, "kernel": [2, 2], "out": 4096, "bias": True},
        {"name": "merger proj", "kind": "linear", "in": 4096, "out": 4096},
        {"name": "merger post_projection_norm", "kind": "norm", "dim": 4096},
        {"name": "merger gate/up", "kind": "linear", "in": 4096, "out": 13696, "count": 2},
        {"name": "merger down", "kind": "linear", "in": 13696, "out": 4096}]})


# ---------------------------------------------------------------- third pass (issue 14 corpus coverage)
# LLaMA-1 7B as converted to transformers (huggyllama/llama-7b): LlamaConfig's defaults are documented as the llama-7b configuration.
add("huggyllama/llama-7b", 4096, 32, 32, 32, 11008, 32000, 2048,
    TF + "llama/configuration_llama.py @008e574391258935f3ecc3035c882e73bbcac419 (class defaults, documented as 'a LLaMA llama-7b style "
    "configuration': vocab_size 32000, hidden_size 4096, intermediate_size 11008, num_hidden_layers 32, num_attention_heads 32, "
    "num_key_value_heads None = heads, max_position_embeddings 2048, tie_word_embeddings False, attention_bias/mlp_bias False)")
# GPT-J-6B: GPTJConfig defaults = EleutherAI/gpt-j-6B; layout from modeling_gptj.py (q/k/v/out_proj without bias, fc_in/fc_out with
# bias, one ln_1 per block feeding attention and MLP in parallel, ln_f, untied lm_head with bias).
add("EleutherAI/gpt-j-6b", 4096, 28, 16, 16, 16384, 50400, 2048,
    TF + "gptj/configuration_gptj.py @0bedd3309fc97281835ab2f1a8e967a9d1a27c9e (defaults = EleutherAI/gpt-j-6B: vocab_size 50400, "
    "n_positions 2048, n_embd 4096, n_layer 28, n_head 16, rotary_dim 64, n_inner None = 4*n_embd); " + TF + "gptj/modeling_gptj.py "
    "(GPTJAttention q/k/v/out_proj bias=False, GPTJMLP fc_in/fc_out with bias, GPTJBlock one ln_1 for the parallel attention+MLP, "
    "lm_head Linear with bias, not tied). The model card's 6,053,381,344 is 2,498,560 more than this module count: not explained, not used",
    arch="gptj", mlp="plain", norm="layernorm", mlp_bias=True, extra={"norms_per_layer": 1, "lm_head_bias": True},
    aliases=["EleutherAI/gpt-j-6B"])

# OpenLLaMA 3B v2: trained with EasyLM (openlm-research/open_llama README: "We train the models ... using EasyLM"); EasyLM's '3b'
# standard config is the OpenLLaMA 3B shape (the same numbers litgpt states for open_llama_3b v1).
add("openlm-research/open_llama_3b_v2", 3200, 26, 32, 32, 8640, 32000, 2048,
    "young-geng/EasyLM EasyLM/models/llama/llama_model.py @134105f0f9740c08c3a9e1880bfbf2635409b4d5 (LLAMA_STANDARD_CONFIGS['3b']: "
    "vocab_size 32000, hidden_size 3200, intermediate_size 8640, num_hidden_layers 26, num_attention_heads 32, max_sequence_length 2048, "
    "tie_word_embeddings False; q/k/v/o and MLP without bias, RMSNorm); openlm-research/open_llama README.md @070f479c (OpenLLaMA is "
    "trained with EasyLM); the v2 config.json as re-published with '_name_or_path: openlm-research/open_llama_3b_v2' in "
    "huggingface.co/pratik689/cp0-test/blob/main/config.json has the same fields (LlamaForCausalLM, 3200/8640/26 layers/32 heads/"
    "32 kv heads, 2048 positions, untied, vocab 32000); equals litgpt's open_llama_3b (v1) dims",
    aliases=["open_llama_3b_v2"])
# DBRX: the released config.json (mlx-community/dbrx-instruct-4bit, a 4-bit conversion that keeps the architecture block) as quoted
# verbatim in public test code; base and instruct share the architecture (databricks/dbrx MODEL_CARD_dbrx_base.md @7cbcf4ec: one
# MoE architecture, 132B total / 36B active, 16 experts choose 4, 32768 context). Layout: transformers dbrx/modeling_dbrx.py (fused
# Wqkv and out_proj without bias, norm_1/norm_2/norm_f LayerNorm(bias=False), router Linear(d_model, 16, bias=False), experts
# w1/v1/w2 = gated MLP, untied lm_head).
add("databricks/dbrx-base", 6144, 40, 48, 8, 10752, 100352, 32768,
    "config.json of databricks/dbrx-instruct as re-published in mlx-community/dbrx-instruct-4bit, quoted in public code (code index "
    "file id 61021081746; repository not resolvable with the tools): d_model 6144, n_heads 48, n_layers 40, max_seq_len 32768, "
    "vocab_size 100352, attn_config.kv_n_heads 8, ffn_config.ffn_hidden_size 10752, moe_num_experts 16, moe_top_k 4, "
    "tie_word_embeddings false; databricks/dbrx MODEL_CARD_dbrx_base.md @7cbcf4ece536ed6621b573ed2ce21afbdba76464 (132B total, "
    "36B active, 16 experts choose 4, 32K context: base and instruct); layout from " + TF + "dbrx/modeling_dbrx.py. "
    "intermediate_size here = the expert size",
    arch="dbrx", norm="layernorm", extra={"norm_bias": False, "moe": {"experts": 16, "active": 4, "expert_intermediate_size": 10752}},
    aliases=["databricks/dbrx-instruct"])
quant("LnL-AI/dbrx-base-converted-v2", "databricks/dbrx-base", None,
      "databricks/dbrx-base with its fused experts rewritten as per-expert nn.Linear layers (same tensors, same count): "
      "axolotl-ai-cloud/axolotl examples/dbrx/README.md @1d93235f ('we are using the converted base models ... tested using "
      "LnL-AI/dbrx-base-converted-v2'); the repository's config.json was not read")

# StableLM 2 1.6B: model card table (hidden 2048, 24 layers, 32 heads, 4096 context; LayerNorm; partial rotary) and the
# remaining config.json values as quoted in public test code. Layout: transformers stablelm/modeling_stablelm.py (q/k/v with bias
# when use_qkv_bias, o_proj without, gated MLP without bias, input_layernorm + post_attention_layernorm LayerNorm with bias, untied).
add("stabilityai/stablelm-2-1_6b", 2048, 24, 32, 32, 5632, 100352, 4096,
    "huggingface.co/stabilityai/stablelm-2-1_6b model card (Model Architecture table: parameters 1,644,417,024, hidden size 2048, "
    "layers 24, heads 32, sequence length 4096; LayerNorm; rotary on 25 % of head dims); "
    "vocab_size 100352, intermediate_size 5632, num_key_value_heads 32, use_qkv_bias true, tie_word_embeddings false: its config.json "
    "as quoted in public test code (code index file id 58699753477, test_stablelm_2_1_6b_*); layout " + TF + "stablelm/modeling_stablelm.py. "
    "The card's 1,644,417,024 is 98,304 (= 24 layers x 2 LayerNorm biases x 2048) below this module count: not explained, not used",
    arch="stablelm", norm="layernorm", qkv_bias=True)

# StarCoder2: layout from transformers starcoder2/modeling_starcoder2.py (q/k/v/o and mlp c_fc/c_proj with bias when use_bias,
# plain gelu MLP, LayerNorm with bias); config.json values from the Hub pages named in each source.
SC2_CFG = TF + "starcoder2/configuration_starcoder2.py @008e574391258935f3ecc3035c882e73bbcac419 (tie_word_embeddings default True)"
SC2 = dict(arch="starcoder2", mlp="plain", norm="layernorm", qkv_bias=True, o_bias=True, mlp_bias=True)
add("bigcode/starcoder2-3b", 3072, 30, 24, 2, 12288, 49152, 16384,
    "config.json of bigcode/starcoder2-3b as re-published with '_name_or_path: bigcode/starcoder2-3b' in "
    "huggingface.co/OpenVINO/starcoder2-3b-int8-ov/blame/c1cc7147d839e0d240c5e7ed994f494f38ef7cb2/config.json and "
    "huggingface.co/m-a-p/OpenCodeInterpreter-SC2-3B/blame/83de4e4c/config.json (hidden_size 3072, intermediate_size 12288, "
    "num_hidden_layers 30, num_attention_heads 24, num_key_value_heads 2, max_position_embeddings 16384, use_bias true, "
    "norm_type layer_norm, vocab_size 49152, no tie_word_embeddings key); " + SC2_CFG, tie=True, **SC2)
add("bigcode/starcoder2-15b", 6144, 40, 48, 4, 24576, 49152, 16384,
    "config.json of bigcode/starcoder2-15b as re-published with '_name_or_path: bigcode/starcoder2-15b' in "
    "huggingface.co/OpenVINO/starcoder2-15b-int8-ov/blame/main/config.json and huggingface.co/TokenBender/starcoder2_15B_OCI/blob/"
    "c00b96eb/config.json (hidden_size 6144, intermediate_size 24576, num_hidden_layers 40, num_attention_heads 48, "
    "num_key_value_heads 4, max_position_embeddings 16384, use_bias true, layer_norm, tie_word_embeddings false, vocab_size 49152); "
    "layout " + TF + "starcoder2/modeling_starcoder2.py", **SC2)
add("HuggingFaceH4/starchat2-15b-sft-v0.1", 6144, 40, 48, 4, 24576, 49154, 16384,
    "huggingface.co/HuggingFaceH4/starchat2-15b-sft-v0.1/blame/main/config.json (_name_or_path bigcode/starcoder2-15b; the "
    "starcoder2-15b shape with vocab_size 49154: two added chat tokens; tie_word_embeddings false)", **SC2)

add("01-ai/Yi-34B", 7168, 60, 56, 8, 20480, 64000, 4096,
    "huggingface.co/01-ai/Yi-34B/blob/3ace5f03eee58aa00438b15ea3f0d535f3a81e46/config.json (LlamaForCausalLM: hidden_size 7168, "
    "intermediate_size 20480, num_hidden_layers 60, num_attention_heads 56, num_key_value_heads 8, max_position_embeddings 4096, "
    "tie_word_embeddings false, vocab_size 64000); Yi-34B-Chat has the same shape: huggingface.co/Minami-su/Yi_34B_Chat_2bit/blame/"
    "main/config.json (_name_or_path Yi-34B-Chat/, same fields, vocab_size 64000); 01-ai/Yi-34B-Chat's own config.json not read",
    aliases=["01-ai/Yi-34B-Chat"])

# Voxtral Mini 3B: VoxtralConfig defaults (documented as Voxtral-Mini-3B-2507): the Llama text decoder of _default_text_config_kwargs
# (num_attention_heads and tie_word_embeddings not overridden: LlamaConfig defaults 32 and False), the Whisper-style audio encoder of
# VoxtralEncoderConfig, and VoxtralMultiModalProjector (linear_1 audio intermediate_size -> text hidden, linear_2 hidden -> hidden,
# both without bias). Encoder layout (Qwen2AudioEncoder = Whisper encoder): conv1 (mel bins -> d_model, kernel 3) and conv2 (kernel 3)
# with bias, learned positions (max_source_positions x d_model, an nn.Embedding), per layer q/v/out_proj with bias and k_proj without,
# self_attn_layer_norm, fc1/fc2 with bias, final_layer_norm; encoder layer_norm.
VOX_D, VOX_L, VOX_I = 1280, 32, 5120


def whisper_encoder_components(mel, d, layers, ffn, positions):
    return [
        {"name": "audio conv1 (kernel 3)", "kind": "conv", "in_channels": mel, "kernel": [3], "out": d, "bias": True},
        {"name": "audio conv2 (kernel 3)", "kind": "conv", "in_channels": d, "kernel": [3], "out": d, "bias": True},
        {"name": "audio embed_positions", "kind": "vector", "dim": d, "count": positions},
        {"name": "audio q_proj", "kind": "linear", "in": d, "out": d, "bias": True, "count": layers},
        {"name": "audio k_proj (no bias)", "kind": "linear", "in": d, "out": d, "count": layers},
        {"name": "audio v_proj", "kind": "linear", "in": d, "out": d, "bias": True, "count": layers},
        {"name": "audio out_proj", "kind": "linear", "in": d, "out": d, "bias": True, "count": layers},
        {"name": "audio fc1", "kind": "linear", "in": d, "out": ffn, "bias": True, "count": layers},
        {"name": "audio fc2", "kind": "linear", "in": ffn, "out": d, "bias": True, "count": layers},
        {"name": "audio layer norms (2 per layer + final)", "kind": "norm", "dim": d, "count": 2 * layers + 1}]


add("mistralai/Voxtral-Mini-3B-2507", 3072, 30, 32, 8, 8192, 131072, 131072,
    TF + "voxtral/configuration_voxtral.py @06053b84c14d72e9789fbf27844a75aa89b3ded7 (VoxtralConfig, 'defaults will yield a similar "
    "configuration to that of the Voxtral-Mini-3B', e.g. mistralai/Voxtral-Mini-3B-2507: text _default_text_config_kwargs vocab 131072, "
    "hidden 3072, intermediate 8192, 30 layers, 8 kv heads, head_dim 128, max_position_embeddings 131072 on LlamaConfig (32 heads, "
    "untied by default); VoxtralEncoderConfig defaults hidden 1280, intermediate 5120, 32 layers, 20 heads, 128 mel bins, "
    "max_source_positions 1500); " + TF + "voxtral/modeling_voxtral.py (VoxtralMultiModalProjector linear_1 audio intermediate_size -> "
    "text hidden, linear_2, no bias; encoder = Qwen2AudioEncoder/WhisperEncoder). The checkpoint's own config.json was not read",
    arch="voxtral", hd=128,
    extra={"components": whisper_encoder_components(128, VOX_D, VOX_L, VOX_I, 1500) + [
        {"name": "projector linear_1", "kind": "linear", "in": VOX_I, "out": 3072},
        {"name": "projector linear_2", "kind": "linear", "in": 3072, "out": 3072}]})

add("HuggingFaceTB/SmolLM-360M", 960, 32, 15, 5, 2560, 49152, 2048,
    "huggingface.co/HuggingFaceTB/SmolLM-360M/blob/refs%2Fpr%2F4/config.json (LlamaForCausalLM: hidden_size 960, intermediate_size "
    "2560, num_hidden_layers 32, num_attention_heads 15, num_key_value_heads 5, max_position_embeddings 2048, tie_word_embeddings "
    "true, vocab_size 49152); SmolLM-360M-Instruct: huggingface.co/HuggingFaceTB/SmolLM-360M-Instruct/blob/main/config.json (same fields)",
    tie=True, aliases=["HuggingFaceTB/SmolLM-360M-Instruct"])
add("mistralai/Ministral-8B-Instruct-2410", 4096, 36, 32, 8, 12288, 131072, 32768,
    "config.json of mistralai/Ministral-8B-Instruct-2410 as re-published in huggingface.co/stan-hua/Ministral-8B-Instruct-2410-AWQ-W4A16/"
    "blob/main/config.json (_name_or_path: the Hub cache snapshot models--mistralai--Ministral-8B-Instruct-2410/snapshots/4847e87e) and "
    "huggingface.co/rivaon/sydney/blob/main/config.json (_name_or_path mistralai/Ministral-8B-Instruct-2410): MistralForCausalLM, "
    "hidden_size 4096, intermediate_size 12288, num_hidden_layers 36, num_attention_heads 32, num_key_value_heads 8, head_dim 128, "
    "max_position_embeddings 32768, tie_word_embeddings false, vocab_size 131072; the count equals the 8,019,808,256 that public Hub "
    "metadata gives (noted by the previous coverage pass)",
    arch="mistral", hd=128)

# Pixtral 12B in the transformers LLaVA layout (mistral-community/pixtral-12b): Mistral text decoder + PixtralVisionModel (patch_conv
# without bias, ln_pre RMSNorm, 24 blocks with RMSNorm, q/k/v/o and gated MLP without bias) + LlavaMultiModalProjector (linear_1 vision
# hidden -> text hidden, linear_2 text hidden -> text hidden, both with bias: multimodal_projector_bias default True).
add("mistral-community/pixtral-12b", 5120, 40, 32, 8, 14336, 131072, 1024000,
    "huggingface.co/mistralai/Pixtral-12B-2409/blob/a9da202d8e3192195835f077c43435c8b22545ab/params.json (dim 5120, n_layers 40, "
    "head_dim 128, hidden_dim 14336, n_heads 32, n_kv_heads 8, vocab_size 131072; vision_encoder hidden_size 1024, intermediate_size "
    "4096, num_hidden_layers 24, num_attention_heads 16, patch_size 16, num_channels 3); huggingface.co/mistral-community/pixtral-12b/"
    "blame/77ed10f29328bc5e18a1f532e59152b4dbbf78e8/config.json (LlavaForConditionalGeneration, text_config max_position_embeddings "
    "1024000, same dims; no tie flag: MistralConfig default untied); layout " + TF + "pixtral/modeling_pixtral.py, llava/modeling_llava.py",
    arch="llava", hd=128,
    extra={"components": [
        {"name": "Pixtral patch_conv (16x16, no bias)", "kind": "conv", "in_channels": 3, "kernel": [16, 16], "out": 1024},
        {"name": "Pixtral ln_pre", "kind": "norm", "dim": 1024, "norm": "rmsnorm"},
        {"name": "Pixtral transformer", "kind": "vit", "hidden": 1024, "layers": 24, "heads": 16, "intermediate": 4096, "attn_bias": False,
         "mlp": "gated", "mlp_bias": False, "norm": "rmsnorm"},
        {"name": "projector linear_1", "kind": "linear", "in": 1024, "out": 5120, "bias": True},
        {"name": "projector linear_2", "kind": "linear", "in": 5120, "out": 5120, "bias": True}]})

add("CohereForAI/c4ai-command-r7b-12-2024", 4096, 32, 32, 8, 14336, 256000, 8192,
    "config.json of CohereForAI/c4ai-command-r7b-12-2024 as re-published with that _name_or_path in huggingface.co/huihui-ai/"
    "c4ai-command-r7b-12-2024-abliterated/blob/main/config.json (Cohere2ForCausalLM: hidden_size 4096, intermediate_size 14336, "
    "num_hidden_layers 32, num_attention_heads 32, num_key_value_heads 8, head_dim 128, max_position_embeddings 8192, vocab_size "
    "256000, use_parallel_block true, use_embedding_sharing true, attention_bias false); layout " + TF + "cohere2/modeling_cohere2.py "
    "(one input_layernorm per layer feeding attention and MLP in parallel, LayerNorm weight without bias, gated MLP, lm_head tied "
    "to the embedding); the count (8,028,033,024) matches the 8.028 B the open-llm-leaderboard request file states for this model",
    arch="cohere2", hd=128, tie=True, norm="layernorm", extra={"norms_per_layer": 1, "norm_bias": False},
    aliases=["CohereLabs/c4ai-command-r7b-12-2024"])

add("teknium/OpenHermes-2.5-Mistral-7B", 4096, 32, 32, 8, 14336, 32002, 32768,
    "config.json of teknium/OpenHermes-2.5-Mistral-7B as re-published with that _name_or_path in huggingface.co/neuralmagic/"
    "OpenHermes-2.5-Mistral-7B-pruned50/blame/main/config.json and huggingface.co/vicky4s4s/mistral-2-7B/blob/main/config.json "
    "(MistralForCausalLM: the Mistral-7B shape, hidden 4096, intermediate 14336, 32 layers, 32 heads, 8 kv heads, untied, with "
    "vocab_size 32002: two added ChatML tokens)", arch="mistral")

add("togethercomputer/RedPajama-INCITE-Chat-3B-v1", 2560, 32, 32, 32, 10240, 50432, 2048,
    "config.json of togethercomputer/RedPajama-INCITE-Chat-3B-v1 as re-published with that _name_or_path in huggingface.co/randomb0tt/"
    "kewl-model/blame/4f47292e729e8b5d1731ca66178e0f41cd8973e8/config.json and huggingface.co/Fredithefish/Guanaco-3B-Uncensored-v2/"
    "commit/d99e0c64 (GPTNeoXForCausalLM: hidden_size 2560, intermediate_size 10240, 32 layers, 32 heads, max_position_embeddings 2048, "
    "vocab_size 50432, tie_word_embeddings false, use_parallel_residual false); layout as the Pythia entries (" + TF + "gpt_neox/"
    "modeling_gpt_neox.py: fused query_key_value and dense with bias, plain MLP with bias, two LayerNorms per layer)",
    arch="gpt_neox", mlp="plain", norm="layernorm", qkv_bias=True, o_bias=True, mlp_bias=True)

add("cerebras/Cerebras-GPT-1.3B", 2048, 24, 16, 16, 8192, 50257, 2048,
    "huggingface.co/cerebras/Cerebras-GPT-Intermediate/blob/5dcf3484adbd3f033a5d663681f51400bec7b8c5/CerebrasGPT-1.3B_SP/"
    "params_train_to_hf.json (Cerebras' own GPT-2 config for the 1.3B: n_embd 2048, n_layer 24, n_head 16, n_inner 8192, n_positions "
    "2048, tie_word_embeddings true, vocab_size 50257); the Cerebras-GPT model card table (1.3B: 24 layers, d_model 2048, 16 heads, "
    "d_ffn 8192; huggingface.co/cerebras/Cerebras-GPT-13B/commit/0600d825); GPT-2 layout as openai-community/gpt2 (" + TF +
    "gpt2/modeling_gpt2.py: Conv1D layers with bias, learned position table n_positions x n_embd, tied lm_head)",
    arch="gpt2", mlp="plain", norm="layernorm", tie=True, qkv_bias=True, o_bias=True, mlp_bias=True, learned_positions=2048)

add("Salesforce/xgen-7b-8k-base", 4096, 32, 32, 32, 11008, 51200, 8192,
    "config.json of Salesforce/xgen-7b-8k-base as re-published with that _name_or_path in huggingface.co/alvynabranches/ft-x-gen/"
    "blame/main/config.json (LlamaForCausalLM: hidden_size 4096, intermediate_size 11008, 32 layers, 32 heads, 32 kv heads, "
    "max_position_embeddings 8192, tie_word_embeddings false, vocab_size 51200)")

add("mosaicml/mpt-7b", 4096, 32, 32, 32, 16384, 50432, 2048,
    "config.json of mosaicml/mpt-7b as re-published with that _name_or_path in huggingface.co/OpenVINO/mpt-7b-int8-ov/blob/"
    "e34e53b8f7d13eeddf6b7b85a0060fb8ffc3b83a/config.json and huggingface.co/ybelkada/mpt-7b-bf16-sharded/blob/main/config.json "
    "(_commit_hash 72e5f594): d_model 4096, n_heads 32, n_layers 32, expansion_ratio 4 (MLP 4 x d_model), max_seq_len 2048, "
    "vocab_size 50432, no_bias true, attn_config.alibi true (no position table); layout " + TF + "mpt/modeling_mpt.py (fused Wqkv and "
    "out_proj, up_proj/down_proj, all without bias; norm_1/norm_2/norm_f LayerNorm with bias set to None; lm_head tied to wte, "
    "MptConfig tie_word_embeddings default True)",
    arch="mpt", mlp="plain", norm="layernorm", tie=True, extra={"norm_bias": False})

add("nvidia/Nemotron-Mini-4B-Instruct", 3072, 32, 24, 8, 9216, 256000, 4096,
    "huggingface.co/nvidia/Nemotron-Mini-4B-Instruct/blob/refs%2Fpr%2F4/config.json @b4d4a52 (NemotronForCausalLM: hidden_size 3072, "
    "intermediate_size 9216, num_hidden_layers 32, num_attention_heads 24, num_key_value_heads 8, kv_channels 128, hidden_act relu2, "
    "max_position_embeddings 4096, partial_rotary_factor 0.5, tie_word_embeddings false, vocab_size 256000); layout " + TF +
    "nemotron/modeling_nemotron.py (NemotronLayerNorm1P = LayerNorm with weight and bias, two per layer; q/k/v/o without bias; "
    "plain up_proj/down_proj MLP without bias; untied lm_head)",
    arch="nemotron", hd=128, mlp="plain", norm="layernorm")

quant("HuggingFaceH4/zephyr-7b-gemma-sft-v0.1", "google/gemma-7b", None,
      "full SFT of google/gemma-7b (alignment-handbook recipes/zephyr-7b-gemma/sft/config_full.yaml, in the corpus); its config.json as "
      "re-published with '_name_or_path: HuggingFaceH4/zephyr-7b-gemma-sft-v0.1' in huggingface.co/SakanaAI/DiscoPOP-zephyr-7b-gemma/"
      "blob/2a22bc1f2b0278e89ce63378ae18fa15812cfe3e/config.json and huggingface.co/chrlu/zephyr-7b-gemma-kto-2/blob/main/config.json: "
      "the gemma-7b shape (hidden 3072, intermediate 24576, 28 layers, 16 heads, 16 kv heads, head_dim 256, vocab 256000)")

add("deepcogito/cogito-v1-preview-qwen-14B", 5120, 48, 40, 8, 13824, 151665, 131072,
    "config.json of deepcogito/cogito-v1-preview-qwen-14B as re-published in huggingface.co/kopens/aura-14b/blob/main/config.json "
    "(_name_or_path: the Hub cache snapshot models--deepcogito--cogito-v1-preview-qwen-14B/snapshots/b5a6c9ab; an AWQ copy, which "
    "keeps every shape field): Qwen2ForCausalLM, hidden_size 5120, intermediate_size 13824, 48 layers, 40 heads, 8 kv heads, "
    "max_position_embeddings 131072, tie_word_embeddings false, vocab_size 151665 (embedding resized from Qwen2.5-14B's 152064); "
    "q/k/v bias as every Qwen2 checkpoint (" + TF + "qwen2/modeling_qwen2.py)",
    arch="qwen2", qkv_bias=True)


# ---------------------------------------------------------------- fifth pass (corpus names still unknown after the fourth pass)
# Gemma 3 270M: text-only Gemma3ForCausalLM (gemma3_text), the gemma-3-1b-it layout (4 norms per layer, q/k RMSNorm over head_dim,
# GeGLU MLP, tied head) with its own dims; the keras-hub total is checked in check_catalog.py PUBLISHED.
add("google/gemma-3-270m-it", 640, 18, 4, 1, 2048, 262144, 32768,
    "ollama.com/sam860/gemma3:270m/blobs/29005e200100 (GGUF metadata and tensor listing of the Gemma 3 270M checkpoint: gemma3."
    "embedding_length 640, block_count 18, attention.head_count 4, head_count_kv 1, key_length/value_length 256, feed_forward_length "
    "2048, context_length 32768; token_embd.weight [640, 262144], blk.0.attn_q.weight [640, 1024], attn_k/attn_v [640, 256], "
    "attn_q_norm/attn_k_norm [256], ffn_gate/ffn_up [640, 2048], ffn_down [2048, 640], attn_norm, post_attention_norm, ffn_norm, "
    "post_ffw_norm [640]); layout as google/gemma-3-1b-it (" + LIT + " gemma3: norm_qk, post_attention_norm, post_mlp_norm; tied "
    "lm_head); the count equals keras-team/keras-hub keras_hub/src/models/gemma3/gemma3_presets.py @46f3b4a0 gemma3_270m / "
    "gemma3_instruct_270m params 268,098,176 ('18-layer, text-only'), which also confirms the tied head and the 262144 rows; "
    "google/gemma-3-270m (pretrained) shares the preset total",
    hd=256, tie=True, arch="gemma3_text", extra=dict(G3X), aliases=["google/gemma-3-270m", "gemma-3-270m-it"])
# Olmo 3 7B: the OLMo 2 layout (post-norms only, q/k RMSNorm over the full projections, untied) with sliding-window attention in
# 3 of 4 layers (no parameters).
add("allenai/Olmo-3-7B-Instruct", 4096, 32, 32, 32, 11008, 100278, 65536,
    "rasbt/LLMs-from-scratch ch05/13_olmo3/standalone-olmo3.ipynb @12658feef4c0303da2abd6bd29c1a3ebff369561 (OLMO3_CONFIG_7B for "
    "USE_MODEL 'Olmo-3-7B-Instruct': vocab_size 100278, context_length 65536, emb_dim 4096, n_heads 32, n_kv_heads 32, n_layers 32, "
    "hidden_dim 11008, head_dim 128, attention_bias False; q_norm/k_norm RMSNorm over the flattened q and k projections, "
    "post_attention_layernorm and post_feedforward_layernorm, final norm; the notebook loads the Hub safetensors into these shapes "
    "with a shape check per tensor and a separate lm_head.weight (its run prints no 'Model uses weight tying'); 'the intermediate "
    "checkpoints listed [in the Olmo 3 post-training collection] ... all have the same architecture', which covers "
    "Olmo-3-7B-Instruct-SFT, and the same OLMO3_CONFIG_7B serves Olmo-3-1025-7B and Olmo-3-7B-Think); = " + TF + "olmo3/"
    "configuration_olmo3.py (declared for allenai/Olmo-3-7B-Instruct: hidden 4096, intermediate 11008, 32 layers, 32 heads, "
    "tie_word_embeddings False; its vocab_size default 50304 is not the checkpoint's)",
    arch="olmo3", hd=128, extra={"norms_per_layer": 2, "qk_norm": "full"},
    aliases=["allenai/Olmo-3-7B-Instruct-SFT", "allenai/Olmo-3-7B-Instruct-DPO", "allenai/Olmo-3-1025-7B", "allenai/Olmo-3-7B-Think",
             "Olmo-3-7B-Instruct"])

# ---------------------------------------------------------------- sixth pass: MiMo-7B-RL (Qwen2 layout + the remote code's MTP layer)
# MiMoForCausalLM (trust_remote_code) = Qwen2ForCausalLM whose model also holds model.mtp_layers, num_nextn_predict_layers
# MiMoMTPLayers built in __init__, so they are nn.Module parameters of the loaded model: each is input_proj Linear(2H -> H, no bias),
# one Qwen2Attention (q/k/v with bias, o without), one Qwen2MLP (gate/up/down, no bias) and five Qwen2RMSNorms (token_layernorm,
# hidden_layernorm, input_layernorm, post_attention_layernorm, final_layernorm). Expressed as components so param_count counts them.
MIMO_H, MIMO_I = 4096, 11008
add("XiaomiMiMo/MiMo-7B-RL", MIMO_H, 36, 32, 8, MIMO_I, 151680, 32768,
    SLIME + "mimo-7B-rl.sh @c3729ccd9e3d16f4ec3bf77a41b353b37b759216 (swiglu, 36 layers, hidden 4096, ffn 11008, 32 heads, 8 query "
    "groups, --disable-bias-linear with --add-qkv-bias, RMSNorm, vocab 151680, --untie-embeddings-and-output-weights, max positions "
    "32768; its commented '--mtp-num-layers 1' gives the checkpoint's one MTP layer); one MTP layer also in NVIDIA-NeMo/Megatron-Bridge "
    "tests (MimoBridge fixture config: the same 7B dims, head_dim 128 implied, num_nextn_predict_layers 1; code index file id 19621192300) and the "
    "XiaomiMiMo/MiMo README ('With one MTP layer for speculative decoding'); MTP layer structure: modeling_mimo.py MiMoMTPLayers and "
    "MiMoModel.__init__ (self.mtp_layers = ModuleList(MiMoMTPLayers(config) for _ in range(config.num_nextn_predict_layers))), "
    "XiaomiMiMo/MiMo modeling_mimo.py @051d98d073eee95ada84581d5a9ca55249bf45e2 (the same class as the remote code copies, code index "
    "file id 15035413402); caveat: the config.json stored for XiaomiMiMo/MiMo @43be2d82 says num_nextn_predict_layers 2 in a commit "
    "whose modeling comments describe raising the MTP layer count, so it is not taken as the released value; no published total found",
    arch="mimo", hd=128, qkv_bias=True, aliases=["MiMo-7B-RL"],
    extra={"components": [
        {"name": "MTP input_proj (2H -> H, no bias)", "kind": "linear", "in": 2 * MIMO_H, "out": MIMO_H},
        {"name": "MTP decoder block (Qwen2Attention without bias here, Qwen2MLP, input/post_attention RMSNorm)", "kind": "vit",
         "hidden": MIMO_H, "layers": 1, "heads": 32, "kv_heads": 8, "head_dim": 128, "intermediate": MIMO_I, "attn_bias": False,
         "mlp": "gated", "mlp_bias": False, "norm": "rmsnorm"},
        {"name": "MTP q_proj bias", "kind": "vector", "dim": 32 * 128},
        {"name": "MTP k_proj and v_proj biases", "kind": "vector", "dim": 8 * 128, "count": 2},
        {"name": "MTP token_layernorm, hidden_layernorm, final_layernorm", "kind": "norm", "dim": MIMO_H, "norm": "rmsnorm", "count": 3}]})

# ---------------------------------------------------------------- seventh pass: Apertus-8B, PaddleOCR-VL-1.6
# Apertus-8B: a Llama-style decoder with an up/down MLP (no gate) activated by xIELU, whose two learned scalars per layer
# (`alpha_p`, `alpha_n`) are parameters; q/k RMSNorm over head_dim. The class default intermediate_size (14336) is not the
# checkpoint's: the checkpoint's config.json fields below say 21504.
add("swiss-ai/Apertus-8B-Instruct-2509", 4096, 32, 32, 8, 21504, 131072, 65536,
    "ollama/ollama x/mlxrunner/model/apertus (Go test TestParseConfigApertus8B, the Apertus-8B config.json fields: architectures "
    "ApertusForCausalLM, hidden_size 4096, intermediate_size 21504, num_hidden_layers 32, num_attention_heads 32, num_key_value_heads 8, "
    "max_position_embeddings 65536, hidden_act xielu, qk_norm true, attention_bias false, mlp_bias false, tie_word_embeddings false, "
    "vocab_size 131072; HeadDim 128); structure: " + TF + "apertus/modeling_apertus.py @0205eec (ApertusMLP up_proj/down_proj without "
    "gate or bias; ApertusAttention q_norm/k_norm over head_dim; attention_layernorm and feedforward_layernorm) and "
    "transformers activations.py XIELUActivation (alpha_p, alpha_n: nn.Parameter of shape (1,) each; beta and eps are buffers); "
    "configuration_apertus.py declares checkpoint swiss-ai/Apertus-8B-Instruct-2509 but its intermediate_size default 14336 is not "
    "this checkpoint's",
    arch="apertus", hd=128, mlp="plain", extra={"qk_norm": "head", "components": [
        {"name": "xIELU alpha_p and alpha_n, per layer", "kind": "vector", "dim": 2, "count": 32}]},
    aliases=["swiss-ai/Apertus-8B-2509"])
# PaddleOCR-VL: a SigLIP-style NaViT encoder (Conv2d 14x14 patch with bias, 729-row learned position table interpolated per
# image, 27 LayerNorm blocks of 1152 with q/k/v/out and fc1/fc2 biases, post_layernorm), a projector (LayerNorm 1152, Linear
# 4608 -> 4608 and 4608 -> 1024, both with bias) and an ERNIE-4.5-0.3B decoder (no biases, gated MLP, tied head). The
# checkpoint's `packing_position_embedding` and `vision_model.head` are ignored at load (not allocated, not counted).
PADDLE_VL = [
    {"name": "vision patch embedding (Conv2d 14x14, bias)", "kind": "conv", "in_channels": 3, "kernel": [14, 14], "out": 1152, "bias": True},
    {"name": "vision position table (384/14)^2 rows", "kind": "vector", "dim": 1152, "count": 729},
    {"name": "vision encoder layers", "kind": "vit", "hidden": 1152, "layers": 27, "heads": 16, "intermediate": 4304, "attn_bias": True},
    {"name": "vision post_layernorm", "kind": "norm", "dim": 1152},
    {"name": "projector pre_norm", "kind": "norm", "dim": 1152},
    {"name": "projector linear_1 (4 merged patches)", "kind": "linear", "in": 4608, "out": 4608, "bias": True},
    {"name": "projector linear_2", "kind": "linear", "in": 4608, "out": 1024, "bias": True},
]
add("PaddlePaddle/PaddleOCR-VL-1.6", 1024, 18, 16, 2, 3072, 103424, 131072,
    TF + "paddleocr_vl/configuration_paddleocr_vl.py @008e574 (@auto_docstring checkpoint PaddlePaddle/PaddleOCR-VL: vision hidden 1152, "
    "intermediate 4304, 27 layers, 16 heads, image_size 384, patch 14, spatial_merge_size 2; text vocab 103424, hidden 1024, "
    "intermediate 3072, 18 layers, 16 heads, 2 kv heads, head_dim 128, max_position_embeddings 131072, use_bias False, "
    "tie_word_embeddings True) and modular_paddleocr_vl.py @059101b (module structure above; _keys_to_ignore_on_load_unexpected "
    "packing_position_embedding, vision_model.head); 1.5 and 1.6 keep that architecture: recipes.vllm.ai PaddlePaddle/PaddleOCR-VL-1.5 "
    "('Architecture is identical to PaddleOCR-VL') and the PaddleOCR-VL-1.6 model card ('The model architecture is fully compatible "
    "with PaddleOCR-VL-1.5'); paddleocr.ai PaddleOCR-VL-1.6 docs ('follows the compact 0.9B architecture of the PaddleOCR-VL series')",
    arch="paddleocr_vl", hd=128, tie=True, extra={"components": PADDLE_VL},
    aliases=["PaddlePaddle/PaddleOCR-VL", "PaddlePaddle/PaddleOCR-VL-1.5"])


# ================================================================ issue 24 item 2: the models the published rows name
# (data/published_models.txt: data/published_peaks.json and litgpt config_hub/finetune). Each total is checked in check_catalog.py.
# ---------------------------------------------------------------- Qwen (v1) 1.8B, 14B, 72B: the Qwen-7B layout (remote QWenConfig/QWenModel)
QWEN1_TABLE = ("Qwen v1 config.json values as quoted in public code (model config table, code index file id 228514887, entries "
               "'qwen1_8b_config', 'qwen1_14b_config', 'qwen1_72b_config' each citing huggingface.co/Qwen/<id>/blob/main/config.json: %s)")
QWEN1_LAYOUT = ("; the remote QWenConfig (Alibaba's configuration_qwen.py as quoted in public code, code index file id 11512490962) has no "
                "key/value-head field: c_attn projects hidden -> 3 x hidden (multi-head attention) with a bias, c_proj none; w1/w2 are "
                "intermediate_size/2 each; untied lm_head (tie_word_embeddings=False default), as for Qwen/Qwen-7B")
add("Qwen/Qwen-1_8B", 2048, 24, 16, 16, 5504, 151936, 8192,
    QWEN1_TABLE % "hidden 2048, 16 heads, 24 layers, intermediate_size 11008, vocab 151936, max_model_len 8192" + QWEN1_LAYOUT,
    arch="qwen", qkv_bias=True, aliases=["Qwen/Qwen-1_8B-Chat"])
add("Qwen/Qwen-14B", 5120, 40, 40, 40, 13696, 152064, 2048,
    QWEN1_TABLE % "hidden 5120, 40 heads, 40 layers, intermediate_size 27392, vocab 152064, max_model_len 2048" + QWEN1_LAYOUT,
    arch="qwen", qkv_bias=True, aliases=["Qwen/Qwen-14B-Chat"])
add("Qwen/Qwen-72B", 8192, 80, 64, 64, 24576, 152064, 32768,
    QWEN1_TABLE % "hidden 8192, 64 heads, 80 layers, intermediate_size 49152, vocab 152064, max_model_len 32768; the table's "
    "num_key_value_heads=40 is not a field of the Qwen v1 config and is not used" + QWEN1_LAYOUT,
    arch="qwen", qkv_bias=True, aliases=["Qwen/Qwen-72B-Chat"])

# ---------------------------------------------------------------- BERT-large, GPT-2 medium/large/xl (keras-hub presets; transformers layouts)
add("google-bert/bert-large-uncased", 1024, 24, 16, 16, 4096, 30522, 512,
    "keras-team/keras-hub bert presets (code index file id 34058716845, 'bert_large_en_uncased' backbone: vocabulary_size 30522, "
    "hidden_dim 1024, intermediate_dim 4096, num_layers 24, num_heads 16, max_sequence_length 512, num_segments 2); layout as "
    "google-bert/bert-base-uncased (" + TF + "bert/configuration_bert.py @008f5c8c29be84d4721dc6d1e0fcd72300580be4), counted as BertModel "
    "(embeddings + LayerNorm, encoder, pooler; no MLM head)",
    arch="bert", mlp="plain", norm="layernorm", tie=True, qkv_bias=True, o_bias=True, mlp_bias=True, learned_positions=512,
    extra={"token_type_vocab": 2, "embedding_norm": True, "final_norm": False, "pooler": True, "encoder_only": True},
    aliases=["bert-large-uncased"])
GPT2_DIMS = ("GPT-2 checkpoint dims as a public download script lists them (code index file id 55660176852: openai-community/gpt2-medium "
             "n_layer 24, n_head 16, n_embd 1024; gpt2-large 36, 20, 1280; gpt2-xl 48, 25, 1600; n_ctx 1024, n_vocab 50257 each); layout as "
             "openai-community/gpt2 (" + TF + "gpt2/configuration_gpt2.py @01ae98ae2414210efd0d9ac1ffe78ff21588f1f7: n_inner 4*n_embd, Conv1D "
             "layers with bias, tied lm_head)")
for name, H, L, nh in [("gpt2-medium", 1024, 24, 16), ("gpt2-large", 1280, 36, 20), ("gpt2-xl", 1600, 48, 25)]:
    add(f"openai-community/{name}", H, L, nh, nh, 4 * H, 50257, 1024, GPT2_DIMS,
        arch="gpt2", mlp="plain", norm="layernorm", tie=True, qkv_bias=True, o_bias=True, mlp_bias=True, learned_positions=1024, aliases=[name])

# ---------------------------------------------------------------- T5 v1.1 family: Flan-T5 XL/XXL, T0 3B, mT0-XXL (gated-GELU, untied)
T511 = ("T5 v1.1 layout (huggingface/transformers issue 6285: GEGLU feed-forward, no parameter sharing between embedding and "
        "classifier; T5DenseGatedActDense wi_0/wi_1/wo without bias, T5LayerNorm weight only)")
T511_XXL = ("google/t5-v1_1-xxl config as quoted in public code (code index file id 53752979171: d_ff 10240, d_kv 64, d_model 4096, "
            "is_gated_act, num_heads 64, num_layers 24, vocab_size 32128)")
add("google/flan-t5-xl", 2048, 24, 32, 32, 5120, 32128, 0,
    "the keras-hub t5_1.1_xl preset total 2,849,757,184 (code index file id 610160901), which public code also states as the Hugging Face "
    "safetensors count of google/flan-t5-xl (code index file id 71058521579); dims d_model 2048, d_ff 5120, 32 heads x d_kv 64, 24+24 layers, "
    "vocab 32128 (the Flan-T5 XL config; only these dims give that total with the " + T511 + "); bigscience/T0_3B starts from the "
    "T5-LM XL checkpoint (T0 model card as summarised on openllmlist.com/t0-3b-by-bigscience; 2.85B parameters listed on "
    "promptlayer.com/models/t03b); max_positions 0: relative buckets",
    arch="t5", tie=False, hd=64, extra={"encoder_decoder": {"encoder_layers": 24, "decoder_layers": 24, "relative_attention_buckets": 32}},
    aliases=["flan-t5-xl", "google/t5-v1_1-xl", "bigscience/T0_3B"])
add("google/flan-t5-xxl", 4096, 24, 64, 64, 10240, 32128, 0,
    T511_XXL + "; Flan-T5 XXL is the T5 v1.1 XXL checkpoint instruction-tuned (google/flan-t5-xxl model card: same number of parameters); "
    + T511 + "; max_positions 0: relative buckets",
    arch="t5", tie=False, hd=64, extra={"encoder_decoder": {"encoder_layers": 24, "decoder_layers": 24, "relative_attention_buckets": 32}},
    aliases=["flan-t5-xxl", "google/t5-v1_1-xxl"])
add("bigscience/mt0-xxl", 4096, 24, 64, 64, 10240, 250112, 0,
    "mT0-XXL is google/mt5-xxl fine-tuned (bigscience/mt0-xxl model card); mT5 uses the T5 v1.1 architecture with a 250112-row vocabulary "
    "(" + TF + "mt5/configuration_mt5.py default vocab_size 250112, feed_forward_proj gated-gelu, tie_word_embeddings False) and the XXL "
    "dims of " + T511_XXL + "; " + T511 + "; computed 12,921,057,280, the mT5 paper's '13B' for mT5-XXL; no exact published total found",
    arch="t5", tie=False, hd=64, extra={"encoder_decoder": {"encoder_layers": 24, "decoder_layers": 24, "relative_attention_buckets": 32}},
    aliases=["mt0-xxl", "google/mt5-xxl"])

# ---------------------------------------------------------------- BLOOM 7B1 (and its BLOOMZ fine-tune)
add("bigscience/bloom-7b1", 4096, 30, 32, 32, 16384, 250880, 2048,
    "bigscience/bloom-7b1 config.json values as quoted in public code (code index file id 1641150485, 'bloom_7b_config' citing the Hub "
    "config: hidden 4096, 32 heads, 30 layers, intermediate 4 x 4096, vocab 250880, max_model_len 2048); layout " + TF +
    "bloom/modeling_bloom.py (ALiBi, no position table; word_embeddings_layernorm; query_key_value and dense with bias; dense_h_to_4h/"
    "dense_4h_to_h with bias; LayerNorms with bias; lm_head tied); computed 7,069,016,064 = the 7069016064 public FLOPs tables list "
    "for bloom-7b1 (code index file id 35026545526)",
    arch="bloom", mlp="plain", norm="layernorm", tie=True, qkv_bias=True, o_bias=True, mlp_bias=True, extra={"embedding_norm": True},
    aliases=["bigscience/bloomz-7b1", "bigscience/bloomz-7b1-mt", "bloom-7b1", "bloomz-7b1"])

# ---------------------------------------------------------------- StableLM-Alpha 3B (litgpt Config defaults)
add("stabilityai/stablelm-base-alpha-3b", 4096, 16, 32, 32, 16384, 50688, 4096,
    "Lightning-AI/litgpt litgpt/config.py @31e5fcaf8486d08001a2eda2579c45fea307c529 ('stablelm-base-alpha-3b' takes the Config defaults: "
    "block_size 4096, n_layer 16, n_embd 4096, n_head 32, vocab 50254 padded to a multiple of 512 = 50688, GptNeoxMLP 4 x n_embd with "
    "bias, LayerNorm, parallel residual, rotary_percentage 0.25); " + NEOX_CFG,
    arch="gpt_neox", mlp="plain", norm="layernorm", qkv_bias=True, o_bias=True, mlp_bias=True,
    aliases=["stabilityai/stablelm-tuned-alpha-3b"], litgpt=["stablelm-base-alpha-3b", "stablelm-tuned-alpha-3b"])


# ---------------------------------------------------------------- gpt-oss-safeguard-20b (issue 24 item 2): the gpt-oss-20b architecture
quant("openai/gpt-oss-safeguard-20b", "openai/gpt-oss-20b", "mxfp4",
      "Hugging Face Hub safetensors totals as listed in public code (code index file id 71142266638, HF Hub API 2026-09-25: "
      "openai/gpt-oss-safeguard-20b 21,511,953,984; openai/gpt-oss-20b 20,914,757,184, the count of this entry, which the BF16 copy "
      "huihui-ai/Huihui-gpt-oss-20b-BF16-abliterated also lists, code index file id 69468411049, where safeguard is listed as OpenAI's "
      "official fine-tune). The difference 597,196,800 is exactly one MXFP4 block scale per 32 expert weights of gpt-oss-20b "
      "(24 layers x 32 experts x (2880 x 5760 + 2880 x 2880) / 32): the same tensors with their scales counted, so the same "
      "architecture (derived, not read from its config.json)")


# ---------------------------------------------------------------- ninth pass (issue 24, corpus names): replit-code-v1-3b, BTLM-3B-8K
# replit-code-v1-3b: a MosaicGPT (MPT) fork; config.json as replit publishes it next to its modelling code.
add("replit/replit-code-v1-3b", 2560, 32, 32, 32, 10240, 32768, 2048,
    "replit/ReplitLM replit-code-v1-3b/config.json @1a421995 (_name_or_path replit/replit-code-v1-3b: d_model 2560, n_layers 32, "
    "n_heads 32, mlp_ratio 4, vocab_size 32768, max_seq_len 2048, alibi true, no_bias true, low_precision_layernorm true); layout "
    "replit/ReplitLM replit-code-v1-3b/replit_lm.py @7832e21f (wte only, no wpe under alibi; ln_f; logits = F.linear(x, wte.weight): "
    "tied; with no_bias every module's bias, LayerNorms' included, is removed) and gpt_blocks.py @918e5ecf (ln_1, fused Wqkv + out_proj, "
    "ln_2, mlp_up d -> 4d, GELU, mlp_down); the model card (replit-code-v1-3b/README.md @1a421995) calls it \"a 2.7B model\", a rounded "
    "figure the computed count does not reach (2.60 B), so no published total is used",
    arch="mpt", mlp="plain", norm="layernorm", tie=True, extra={"norm_bias": False})
# BTLM-3B-8K: GPT-2 layout with SwiGLU (c_fc, c_fc2, c_proj, all with bias), ALiBi (no position table; the slopes are an
# nn.Parameter with requires_grad=False, so model.parameters() counts them), muP scalars (floats, not parameters).
add("cerebras/btlm-3b-8k-base", 2560, 32, 32, 32, 6826, 50257, 8192,
    "Cerebras/modelzoo src/cerebras/modelzoo/models/nlp/btlm/configs/params_btlm_2p7b_8k.yaml @a0c06166 (\"the configurations used "
    "to train BTLM\", README.md there; 2nd stage, 8k: hidden_size 2560, num_hidden_layers 32, num_heads 32, filter_size 6826, "
    "nonlinearity swiglu, use_ffn_bias true, use_projection_bias_in_attention true, use_ffn_bias_in_attention true, "
    "position_embedding_type alibi, share_embedding_weights true, vocab_size 50257, max_position_embeddings 8192); the Hub "
    "checkpoint's module layout from the BTLM port of the remote code in a text-generation-inference fork (code index file id "
    "33128250796, \"PyTorch BTLM model\", Opentensor and Cerebras: wte, no wpe under alibi, ln_1/ln_2 LayerNorm, c_attn and c_proj "
    "with bias, c_fc/c_fc2/c_proj with bias, ln_f, AlibiPositionEmbeddingLayer.slopes = nn.Parameter of num_heads x 1)",
    arch="btlm", mlp="gated", norm="layernorm", qkv_bias=True, o_bias=True, mlp_bias=True, tie=True,
    extra={"components": [{"name": "ALiBi slopes (nn.Parameter, requires_grad=False)", "kind": "vector", "dim": 1, "count": 32}]})
# GLM-4-32B-0414 (Glm4ForCausalLM): the 0414 series' base, chat (post-trained from that base) and Z1 (RL from the chat model)
# share one shape in every source read; each source names which checkpoint it read.
add("THUDM/GLM-4-32B-0414", 6144, 61, 48, 2, 23040, 151552, 32768,
    "dims: Ascend/MindSpeed-LLM GLM-4-32B-Base-0414 inference script (code index file id 2407523722, logs/generate_glm4_32b_base_0414.log: "
    "--num-layers 61 --hidden-size 6144 --ffn-hidden-size 23040 --num-attention-heads 48 --group-query-attention "
    "--num-query-groups 2 --padded-vocab-size 151552 --disable-bias-linear --swiglu --normalization RMSNorm --post-norm "
    "(gemma2 sandwich spec) --untie-embeddings-and-output-weights) and the same values in its GLM-Z1-32B-0414 fine-tuning "
    "script (code index file id 2805906673, tokenizer ./model_from_hf/GLM-Z1-32B-0414/); the GGUF of GLM-Z1-32B-0414 as loaded in "
    "ikawrakow/ik_llama.cpp pull request 344 (glm4.block_count 61, embedding_length 6144, feed_forward_length 23040, head_count 48, "
    "head_count_kv 2, key_length 128, context_length 32768, n_vocab 151552, model params 32.57 B) and its hf-to-gguf tensor listing "
    "in pull request 333 (attn_q/k/v/output weights without bias tensors, ffn_up 6144 x 46080 = fused gate+up, post_attention_norm "
    "and post_ffw_norm per layer, a separate output.weight); ollama/ollama issue 10424 (\"GLM-4-0414 32B\": key_length 128, "
    "vocab 151552). Relation: THUDM/GLM-4 README.md (GLM-4-32B-Base-0414 pre-trained, GLM-4-32B-0414 its post-trained model, "
    "GLM-Z1-32B-0414 \"developed based on GLM-4-32B-0414\"). Layout: " + TF + "glm4/modeling_glm4.py (Glm4DecoderLayer: input_layernorm, "
    "post_self_attn_layernorm, post_attention_layernorm, post_mlp_layernorm; gate_up_proj + down_proj; o_proj without bias). "
    "Computed 32,566,081,536 = llama.cpp's 32.57 B (rounded; one MindSpeed evaluation script's --num-query-groups 8 disagrees with "
    "the GGUF's head_count_kv 2 and is not used)",
    arch="glm4", tie=False, extra={"norms_per_layer": 4},
    aliases=["THUDM/GLM-4-32B-Base-0414", "THUDM/GLM-Z1-32B-0414", "zai-org/GLM-4-32B-0414", "zai-org/GLM-4-32B-Base-0414",
             "zai-org/GLM-Z1-32B-0414", "GLM-4-32B-0414", "GLM-Z1-32B-0414"])
# Hunyuan-0.5B (HunYuanDenseV1ForCausalLM): Llama block with per-head q/k RMSNorm; the family note gives every field but the
# widths; the widths are those of HunyuanOCR's text decoder, which is Hunyuan-0.5B, and the count equals the listed total.
add("tencent/Hunyuan-0.5B-Instruct", 1024, 24, 16, 8, 3584, 120818, 262144,
    "layout and all fields but hidden/intermediate: the hunyuan_v1_dense family module of a public interpretability notes repository "
    "(code index file id 71289480038; REFERENCE tencent/Hunyuan-0.5B-Pretrain, config read with a meta build; the same module serves "
    "the -Instruct checkpoint): 24 blocks, 16 query heads over 8 key/value heads, head_dim 128, query_layernorm/key_layernorm RMSNorms "
    "head_dim wide, SwiGLU MLP, 120818-token vocabulary, lm_head tied to embed_tokens on every checkpoint. hidden_size 1024 and "
    "intermediate_size 3584: HunyuanOCR's text_config (code index file id 71125665966: hunyuan_vl_text, hidden_size 1024, "
    "intermediate_size 3584, num_hidden_layers 24, num_attention_heads 16, num_key_value_heads 8, head_dim 128, vocab_size 120818, "
    "tie_word_embeddings true), whose language model is Hunyuan-0.5B (HunyuanOCR architecture walkthrough, code index file id "
    "59043723776: \"Hunyuan-ViT, Adaptive MLP and Hunyuan-0.5B\"); check: the computed 539,010,048 is the 539M a Hugging Face registry "
    "listing gives for tencent/Hunyuan-0.5B-Pretrain (code index file id 68300799120). max_positions: the dense series' native 256K "
    "window (hiyouga/LlamaFactory pull request 9749, quoting the model card); layout " + TF + "hunyuan_v1_dense/modeling_hunyuan_v1_dense.py",
    arch="hunyuan_v1_dense", hd=128, tie=True, extra={"qk_norm": "head"},
    aliases=["tencent/Hunyuan-0.5B-Pretrain", "Hunyuan-0.5B-Instruct", "Hunyuan-0.5B-Pretrain"])
# SmolVLM2-2.2B-Instruct (SmolVLMForConditionalGeneration, Idefics3 layout): SigLIP encoder, pixel-shuffle connector (x3), a
# SmolLM2-1.7B-shaped Llama decoder with an untied head; every dim from Google's re-authoring that loads and verifies this checkpoint.
AIET = "google-ai-edge/ai-edge-torch ai_edge_torch/generative/examples/smolvlm2/"
SMOLVLM2 = [
    {"name": "vision patch embedding (Conv2d 14x14, bias)", "kind": "conv", "in_channels": 3, "kernel": [14, 14], "out": 1152, "bias": True},
    {"name": "vision position table ((image_size // 14)^2 = 729 rows)", "kind": "vector", "dim": 1152, "count": 729},
    {"name": "vision encoder layers", "kind": "vit", "hidden": 1152, "layers": 27, "heads": 16, "intermediate": 4304, "attn_bias": True},
    {"name": "vision post_layernorm", "kind": "norm", "dim": 1152},
    {"name": "connector modality_projection (pixel shuffle x3: 1152 x 9 -> 2048, no bias)", "kind": "linear", "in": 10368, "out": 2048},
]
add("HuggingFaceTB/SmolVLM2-2.2B-Instruct", 2048, 24, 32, 32, 8192, 49280, 8192,
    AIET + "decoder.py @62ed2c07 (get_decoder_config: vocab_size 49280, num_layers 24, embedding_dim 2048, 32 heads x 64 with 32 "
    "query groups, gated SiLU MLP 8192, RMSNorm pre/post attention and final, lm_head_share_weight_with_embedding False, max_seq_len "
    "8192; tensor names model.text_model.* and lm_head), vision_encoder.py @2aa3a1ff (SigLIP: image_size 378 / patch 14, hidden 1152, "
    "27 layers, 16 heads x 72, q/k/v/out biases, GELU-tanh MLP 4304 with bias, LayerNorm, post_layernorm, patch embedding with bias; "
    "connector scale_factor 3, vision 1152 -> text 2048, nn.Linear(1152 x 9, 2048, bias=False) = model.connector.modality_projection.proj) "
    "and smolvlm2.py @95a848ac (build_model loads those tensors from the checkpoint); verify.py there checks the re-authored model "
    "against the Hugging Face one with _CHECKPOINT default HuggingFaceTB/SmolVLM2-2.2B-Instruct. Layout " + TF + "smolvlm/modeling_smolvlm.py "
    "(vision embeddings' position_embedding has (image_size // patch_size)^2 rows; connector SmolVLMSimpleMLP proj without bias)",
    arch="smolvlm", hd=64, tie=False, extra={"components": SMOLVLM2})
# AFM-4.5B (ArceeForCausalLM): Llama block whose MLP is up_proj -> relu^2 -> down_proj (no gate), untied head.
add("arcee-ai/AFM-4.5B", 2560, 36, 20, 4, 18432, 128005, 65536,
    "all fields but the layer count: the arcee family module of a public interpretability notes repository (code index file id "
    "71251910890, config read off the AFM-4.5B checkpoints): hidden_size 2560, intermediate_size 18432 (up_proj and down_proj, no "
    "gate_proj, relu2), 20 query heads over 4 key/value heads x 128, attention_bias and mlp_bias false, lm_head its own weight "
    "(tie_word_embeddings false), 128005 vocabulary rows on AFM-4.5B (128004 Base, 128064 Preview), YaRN to 65536 positions. "
    "num_hidden_layers 36: yieldthought/ttnn_models models/arcee-ai/AFM-4.5B/n150/functional/demo.log @3527dd08 (\"Loading 36 "
    "layers...\", printed by model.py from hf_config.num_hidden_layers of arcee-ai/AFM-4.5B, which also loads lm_head.weight, "
    "q/k/v/o, up/down and two RMSNorms per layer). Layout " + TF + "arcee/modeling_arcee.py. Computed 4,619,189,760, the 4.6B the "
    "Hub listing gives (onlylabs.fyi capture of arcee-ai/AFM-4.5B: params 4.6B)",
    arch="arcee", hd=128, mlp="plain", tie=False, aliases=["AFM-4.5B"])
# cogito-v1-preview-llama-3B: the Llama-3.2-3B shape with its own output matrix (untied). Derived, stated as such: no config.json
# was read; the GGUF quants of this checkpoint carry a separate output tensor and llama.cpp counts the untied total.
add("deepcogito/cogito-v1-preview-llama-3B", 3072, 28, 24, 8, 8192, 128256, 131072,
    "derived (no config.json read): dims of meta-llama/Llama-3.2-3B (" + (L3 % "Llama-3.2-3B{}") + "), the only 3B Llama 3 "
    "checkpoint; Deep Cogito's v1 preview models are built on Llama and Qwen bases (iafeed.com.br report of the release). Untied: "
    "ikawrakow/ik_llama.cpp issue 345 runs llama-bench on bartowski's GGUFs of deepcogito_cogito-v1-preview-llama-3B (IQ4_NL, Q4_0, "
    "Q4_K_M, Q4_K_S): params 3.61 B (Llama-3.2-3B, whose GGUF has no output tensor, counts 3.21 B), and \"Repacked 197 tensors\" = "
    "28 layers x 7 weight matrices + a separate output.weight; the same run gives 8.03 B for cogito-v1-preview-llama-8B, the "
    "Llama-3.1-8B count with its 128256-row vocabulary. Computed 3,606,752,256 = Llama-3.2-3B's 3,212,749,824 + a 128256 x 3072 "
    "lm_head; a public listing's 3.61 B matches it",
    tie=False)

# ---------------------------------------------------------------- known, not supported (data/unsupported.json)
# Models the corpus names whose architecture the entry format cannot describe (no layer type for it in
# param_count.py / src/model/params.rs). They get no entry, because any entry would be a fake; they are listed here
# so that trainlint says "known architecture, not supported by the memory model" instead of "not in the catalog".
# Each reason states what the architecture has that the formula lacks (no number in it is used for a count). Only ids the
# corpus names are listed (data/corpus_models.txt); the reasons are the ones the third pass recorded in map_corpus.py.
UNSUPPORTED = []


def unsupported(id, family, reason, aliases=()):
    UNSUPPORTED.append({"id": id, "aliases": sorted(set(aliases)), "family": family, "reason": reason})


FALCON_H1 = ("attention and Mamba2 mixers run in parallel in every layer (transformers falcon_h1/modeling_falcon_h1.py); "
             "the entry format's hybrid_pattern describes sequential (Nemotron-H) blocks only")
for size in ("0.5B-Instruct", "1.5B-Base", "1.5B-Deep-Base", "3B-Base", "7B-Base", "34B-Base"):
    unsupported(f"tiiuae/Falcon-H1-{size}", "Falcon-H1", FALCON_H1)
GEMMA4 = ("Gemma 4: global layers share K and V with their own head_dim and kv-head count, and the checkpoints carry vision "
          "(and for E2B/E4B audio and per-layer input embeddings) towers; no layer type for them in the entry format")
for name in ("gemma-4-12B-it", "gemma-4-26B-A4B", "gemma-4-31B", "gemma-4-E2B-it"):
    unsupported(f"google/{name}", "Gemma 4", GEMMA4)
unsupported("nvidia/Gemma-4-26B-A4B-NVFP4", "Gemma 4", "NVFP4 upload of google/gemma-4-26B-A4B; " + GEMMA4)
GEMMA3N = "Gemma 3n: per-layer embeddings, AltUp/LAuReL blocks, audio and vision towers; no layer type for them in the entry format"
unsupported("google/gemma-3n-E2B-it", "Gemma 3n", GEMMA3N)
JAMBA = "Jamba: Mamba-1 mixers interleaved with attention and MoE layers; the entry format has no Mamba-1 layer type"
for name in ("Jamba-v0.1", "AI21-Jamba-1.5-Large"):
    unsupported(f"ai21labs/{name}", "Jamba", JAMBA)
unsupported("state-spaces/mamba-2.8b", "Mamba", "Mamba-1 blocks (selective state space, no attention): no layer type in the entry format")
LFM2 = "LFM2: gated short-convolution blocks interleaved with attention; no layer type in the entry format"
unsupported("LiquidAI/LFM2-350M", "LFM2", LFM2)
unsupported("LiquidAI/LFM2-8B-A1B", "LFM2", LFM2 + " (with MoE feed-forward layers)")
unsupported("LiquidAI/LFM2-VL-450M", "LFM2", LFM2 + " (with a vision tower)")
unsupported("ibm-granite/granite-4.0-tiny-preview", "Granite 4.0 hybrid",
            "Mamba2/attention hybrid with MoE experts in every layer: not expressible with hybrid_pattern (Nemotron-H blocks)")
unsupported("moonshotai/Kimi-Linear-48B-A3B-Instruct", "Kimi-Linear",
            "Kimi Delta Attention layers interleaved with MLA layers: no layer type for Kimi Delta Attention in the entry format")
FALCON_E = "BitNet 1.58-bit (ternary) prequantized checkpoint: no layer type or stored format for it"
unsupported("tiiuae/Falcon-E-3B-Base-prequantized", "Falcon-E (BitNet)", FALCON_E)
unsupported("axolotl-ai-co/Falcon-E-1.2-3B-Exp-prequantized", "Falcon-E (BitNet)", FALCON_E)
# issue 24 item 2 (the corpus names still unresolved; each reason names the source that shows the layer type).
unsupported("nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16", "Nemotron 3 Super (LatentMoE)",
            "Nemotron-H hybrid whose routed experts run on a 1024-wide latent with fc1/fc2 latent projections per MoE layer "
            "(radixark/miles scripts/models/nemotron-3-super-120b-a12b.py @31f1ca96: --moe-latent-size 1024); hybrid_pattern's MoE "
            "blocks have no latent projection")
unsupported("nvidia/DeepSeek-V4-Flash-NVFP4", "DeepSeek-V4",
            "NVFP4 upload of DeepSeek-V4-Flash; DeepSeek-V4 attention (compressed KV layers, grouped low-rank output projection, "
            "hyper-connections, a DSA indexer and hash layers: radixark/miles scripts/models/deepseek-v4-flash.py @31f1ca96, "
            "--experimental-attention-variant dsv4); no layer type for them in the entry format")
unsupported("Mapika/GLM-5.2-NVFP4", "GLM-5 (DSA)",
            "NVFP4 upload of GLM-5.2 (744B-A40B): MLA with a DeepSeek sparse-attention indexer on every fourth layer and indices "
            "shared across layers (THUDM/slime scripts/models/glm5.2-744B-A40B.sh @624b824a); no layer type for the indexer in the "
            "entry format")
unsupported("Skywork/Skywork-Reward-V2-Qwen3-8B", "reward model (sequence classification)",
            "a Qwen/Qwen3-8B backbone (its model card's base_model, pipeline_tag text-classification; the corpus recipe loads it "
            "with AutoModelForSequenceClassification, num_labels 1) whose lm_head is replaced by a num_labels x hidden score head: "
            "the entry format has no score head, and its config.json was not read")


def main():
    ids = set()
    names = {}
    ENTRIES.extend([_quantized_entry(*q) for q in QUANTIZED])
    for e in ENTRIES:
        e["parameters"] = count(e)
        if e.get("same_architecture_as"):
            pass
        elif e["id"] in PUBLISHED:
            e["parameters_source"] = "equals published total: " + "; ".join(
                f"{t:,} ({src})" + (f" + {d:,} explained" if d else "") for t, src, d in PUBLISHED[e["id"]])
        elif e["id"] in CORROBORATED:
            v = CORROBORATED[e["id"]]
            e["parameters_source"] = (f"computed; equals {corroborated_total(v):,} quoted from Hugging Face safetensors metadata or numel() in public code (see README)"
                                      if not isinstance(v, tuple) else
                                      f"computed; the checkpoint total {v[0]:,} quoted from Hugging Face safetensors metadata in public code equals this "
                                      f"count + the stored multi-token-prediction block ({v[1]}) that transformers does not load (see README)")
        assert e["id"] not in ids, e["id"]
        ids.add(e["id"])
        for n in [e["id"]] + e["aliases"] + e["builders"] + ["litgpt:" + x for x in e["litgpt"]]:
            key = n.lower()
            if key in names and names[key] != e["id"]:
                raise SystemExit(f"name {n!r} maps to both {names[key]} and {e['id']}")
            names[key] = e["id"]
    unsupported_names = set()
    for u in UNSUPPORTED:
        for n in [u["id"]] + u["aliases"]:
            if n.lower() in names or n.lower() in unsupported_names:
                raise SystemExit(f"unsupported name {n!r} is also a catalog name or listed twice")
            unsupported_names.add(n.lower())
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "unsupported.json"), "w") as f:
        rows = sorted(UNSUPPORTED, key=lambda u: u["id"].lower())
        f.write("[\n" + ",\n".join("  " + json.dumps(u, separators=(", ", ": ")) for u in rows) + "\n]\n")
    out = sorted(ENTRIES, key=lambda e: e["id"].lower())
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models.json")
    with open(path, "w") as f:
        f.write("[\n" + ",\n".join("  " + json.dumps(e, separators=(", ", ": ")) for e in out) + "\n]\n")
    print(f"wrote {len(out)} entries, {len(names)} names to {path}; {len(UNSUPPORTED)} known-unsupported ids to unsupported.json")


if __name__ == "__main__":
    main()
