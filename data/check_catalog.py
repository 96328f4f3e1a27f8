#!/usr/bin/env python3
"""Check data/models.json: shape, internal consistency, exact parameter counts, published totals.

Exit status 0 only if every check passes. Run: python3 data/check_catalog.py
1. every entry has exactly the catalog fields with the right types, then only the OPTIONAL fields in order
   (counts, same_architecture_as, stored_quantization); the array is sorted by id; an entry with same_architecture_as
   has every architecture field of that entry; stored_quantization is one of QUANT_KINDS;
2. no name (id, alias, torchtune builder, litgpt name) maps to two entries (case-insensitive);
3. head/kv-head divisibility, MoE active <= experts, a source for every entry;
4. `parameters` equals data/param_count.py recomputed from the fields (no stale numbers);
5. every total in PUBLISHED below equals the recomputed count exactly (or differs by the stated,
   explained amount), every CORROBORATED total too (a "+mtp" one after adding the computed MTP block),
   and the three totals required by issue 14 are present.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from param_count import count, mtp_layer  # noqa: E402

KH = "keras-team/keras-hub keras_hub/src/models/"
PUBLISHED = {
    # id: [(total, source, explained_delta)], total compared with count(entry) - explained_delta
    "meta-llama/Llama-2-7b-hf": [(6738415616, "issue 14; " + KH + "llama/llama_presets.py @5d163cac (llama2_7b_en params)", 0)],
    "meta-llama/Meta-Llama-3-8B": [(8030261248, KH + "llama3/llama3_presets.py @2f5dce1e (llama3_8b_en params)", 0)],
    "meta-llama/Llama-3.1-8B": [(8030261248, "issue 14 (Llama-3.1-8B 8,030,261,248)", 0)],
    "meta-llama/Llama-3.2-1B": [(1235814400, "ModelCloud/GPTQModel tests/test_parameter_count.py @fdbd5b69 (LLAMA_3_2_1B_PARAMETER_COUNT)", 0)],
    "mistralai/Mistral-7B-v0.1": [(7241732096, "issue 14; " + KH + "mistral/mistral_presets.py @0e1444fd (mistral_7b_en params)", 0)],
    "mistralai/Mistral-7B-Instruct-v0.2": [(7241732096, KH + "mistral/mistral_presets.py @0e1444fd (mistral_0.2_instruct_7b_en params)", 0)],
    "mistralai/Mixtral-8x7B-v0.1": [(46702792704, KH + "mixtral/mixtral_presets.py @36ad74e3 (mixtral_8_7b_en params)", 0)],
    "google/gemma-2b": [(2506172416, KH + "gemma/gemma_presets.py @02aeee5f (gemma_2b_en params)", 0)],
    "google/gemma-7b": [(8537680896, KH + "gemma/gemma_presets.py @02aeee5f (gemma_7b_en params)", 0)],
    "google/codegemma-7b-it": [(8537680896, KH + "gemma/gemma_presets.py @02aeee5f (code_gemma_instruct_7b_en params)", 0)],
    "google/gemma-2-2b": [(2614341888, KH + "gemma/gemma_presets.py @02aeee5f (gemma2_2b_en params)", 0)],
    "google/gemma-2-9b": [(9241705984, KH + "gemma/gemma_presets.py @02aeee5f (gemma2_9b_en params)", 0)],
    "google/gemma-2-27b": [(27227128320, KH + "gemma/gemma_presets.py @02aeee5f (gemma2_27b_en params)", 0)],
    "google/gemma-3-1b-it": [(999885952, KH + "gemma3/gemma3_presets.py @00d9f10a (gemma3_instruct_1b params)", 0)],
    "google/gemma-3-270m-it": [(268098176, KH + "gemma3/gemma3_presets.py @46f3b4a0 (gemma3_instruct_270m params)", 0)],
    "google/gemma-3-4b-it": [(4299915632, KH + "gemma3/gemma3_presets.py @00d9f10a (gemma3_instruct_4b params: vision+text; Keras keeps 262144 embedding rows, Hugging Face 262208: explained delta 64 x 2560)", 64 * 2560)],
    "google/gemma-3-12b-it": [(12187079280, KH + "gemma3/gemma3_presets.py @00d9f10a (gemma3_instruct_12b params: vision+text; Keras keeps 262144 embedding rows, Hugging Face 262208: explained delta 64 x 3840)", 64 * 3840)],
    "google/gemma-3-27b-it": [(27432062576, KH + "gemma3/gemma3_presets.py @00d9f10a (gemma3_instruct_27b params: vision+text; Keras keeps 262144 embedding rows, Hugging Face 262208: explained delta 64 x 5376)", 64 * 5376)],
    "Qwen/Qwen2.5-0.5B": [(494032768, KH + "qwen/qwen_presets.py @12870d27 (qwen2.5_0.5b_en params)", 0)],
    "Qwen/Qwen2.5-1.5B": [(1543714304, KH + "qwen/qwen_presets.py @12870d27 (qwen2.5_math_1.5b_en params; Qwen2.5-Math-1.5B has the same litgpt dims)", 0)],
    "Qwen/Qwen2.5-3B": [(3085938688, KH + "qwen/qwen_presets.py @12870d27 (qwen2.5_3b_en params)", 0)],
    "Qwen/Qwen2.5-7B": [(7615616512, KH + "qwen/qwen_presets.py @12870d27 (qwen2.5_math_7b_en params; Qwen2.5-Math-7B has the same litgpt dims)", 0)],
    "Qwen/Qwen2.5-32B": [(32763876352, KH + "qwen/qwen_presets.py @12870d27 (qwen2.5_instruct_32b_en params)", 0)],
    "Qwen/Qwen2.5-72B": [(72706203648, KH + "qwen/qwen_presets.py @12870d27 (qwen2.5_instruct_72b_en params)", 0)],
    "Qwen/Qwen3-0.6B": [(596049920, KH + "qwen3/qwen3_presets.py @1df65dab (qwen3_0.6b_en params)", 0)],
    "Qwen/Qwen3-1.7B": [(1720574976, KH + "qwen3/qwen3_presets.py @1df65dab (qwen3_1.7b_en params)", 0)],
    "Qwen/Qwen3-4B": [(4022468096, KH + "qwen3/qwen3_presets.py @1df65dab (qwen3_4b_en params)", 0)],
    "Qwen/Qwen3-8B": [(8190735360, KH + "qwen3/qwen3_presets.py @1df65dab (qwen3_8b_en params)", 0)],
    "Qwen/Qwen3-14B": [(14768307200, KH + "qwen3/qwen3_presets.py @1df65dab (qwen3_14b_en params)", 0)],
    "Qwen/Qwen3-32B": [(32762123264, KH + "qwen3/qwen3_presets.py @1df65dab (qwen3_32b_en params)", 0)],
    "Qwen/Qwen3-30B-A3B": [(30532122624, KH + "qwen3_moe/qwen3_moe_presets.py @79c5664a (qwen3_moe_30b_a3b_en params)", 0)],
    "Qwen/Qwen3-235B-A22B": [(235093634560, KH + "qwen3_moe/qwen3_moe_presets.py @79c5664a (qwen3_moe_235b_a22b_en params)", 0)],
    "Qwen/Qwen1.5-MoE-A2.7B": [(14315784192, KH + "qwen_moe/qwen_moe_presets.py @41e055be (qwen1.5_moe_2.7b_en params)", 0)],
    "microsoft/Phi-3-mini-4k-instruct": [(3821079552, KH + "phi3/phi3_presets.py @40358b49 (phi3_mini_4k_instruct_en params)", 0)],
    "microsoft/Phi-3-mini-128k-instruct": [(3821079552, KH + "phi3/phi3_presets.py @40358b49 (phi3_mini_128k_instruct_en params)", 0)],
    "openai-community/gpt2": [(124439808, KH + "gpt2/gpt2_presets.py @0e1444fd (gpt2_base_en params)", 0)],
    "facebook/opt-125m": [(125237760, KH + "opt/opt_presets.py @0cb64f62 (opt_125m_en params); Keras keeps a 2048-row position table, "
                           "HF OPTLearnedPositionalEmbedding has 2050 rows (offset 2): explained delta 2 x 768", 2 * 768)],
    "mistralai/Mistral-Small-3.1-24B-Instruct-2503": [(24011361280, KH + "mistral3/mistral3_presets.py @961f8f7cce912360aca34bbf171fc9c3e0aa50ae (mistral_small_3.1_24b_instruct_2503_en params)", 0)],
    "google-bert/bert-base-uncased": [(109482240, KH + "bert/bert_presets.py @0b8b7aff (bert_base_en_uncased params)", 0)],
    # issue 24 item 2 (the published rows' models): keras-hub preset totals as quoted in public copies of the preset files
    "google-bert/bert-large-uncased": [(335141888, KH + "bert/bert_presets.py (bert_large_en_uncased params; code index file id 949755640)", 0)],
    "openai-community/gpt2-medium": [(354823168, KH + "gpt2/gpt2_presets.py (gpt2_medium_en params; code index file id 330605117)", 0)],
    "openai-community/gpt2-large": [(774030080, KH + "gpt2/gpt2_presets.py (gpt2_large_en params; code index file id 330605117)", 0)],
    "openai-community/gpt2-xl": [(1557611200, KH + "gpt2/gpt2_presets.py (gpt2_extra_large_en params; code index file id 330605117)", 0)],
    "google/flan-t5-xl": [(2849757184, KH + "t5/t5_presets.py (t5_1.1_xl params; code index file id 610160901)", 0)],
    "google/flan-t5-xxl": [(11135332352, KH + "t5/t5_presets.py (t5_1.1_xxl params; code index file id 610160901)", 0)],
    # Pythia: EleutherAI model card table 'Naming convention and parameter count' (total params column), the same
    # table as in the Pythia README; non-embedding params match Biderman et al. 2023 Table 1.
    **{f"EleutherAI/pythia-{k}": [(v, "EleutherAI Pythia model card, 'Naming convention and parameter count' table (total params)", 0)]
       for k, v in {"70m": 70426624, "160m": 162322944, "410m": 405334016, "1b": 1011781632, "1.4b": 1414647808,
                    "2.8b": 2775208960, "6.9b": 6857302016, "12b": 11846072320}.items()},
}
# Totals that public code quotes from the Hugging Face API (safetensors metadata) or from sum(p.numel());
# found with full-text search, repository not resolvable with the tools, so kept apart as corroboration.
CORROBORATED = {
    "meta-llama/Llama-3.1-70B": 70553706496, "meta-llama/Llama-3.1-405B": 405853388800, "meta-llama/Llama-3.3-70B-Instruct": 70553706496,
    # issue 24 item 2: Hub total / numel() / llama.cpp n_params quoted in public code (see the entries' source)
    "Qwen/Qwen1.5-7B": 7721324544, "deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B": 1777088000, "THUDM/chatglm3-6b": 6243584000,
    "meta-llama/Llama-3.2-3B": 3212749824, "google/gemma-3-4b-it": 4300079472, "meta-llama/Llama-3.2-11B-Vision-Instruct": 10670220835,
    "meta-llama/Llama-4-Scout-17B-16E": 108641793536, "meta-llama/Llama-4-Maverick-17B-128E": 401583781376,
    "Qwen/Qwen3-VL-30B-A3B-Instruct": 31070754032, "Qwen/Qwen3-VL-4B-Instruct": 4437815808,
    "Qwen/Qwen2-VL-7B-Instruct": 8291375616, "Qwen/Qwen2.5-VL-7B-Instruct": 8292166656,
    # Qwen3.5: the Hub totals (HfApi safetensors) include one stored MTP block
    "Qwen/Qwen3.5-0.8B": (873438784, "+mtp"), "Qwen/Qwen3.5-4B": (4659865088, "+mtp"), "Qwen/Qwen3.5-9B": (9653104368, "+mtp"),
    "Qwen/Qwen3.5-27B": (27781427952, "+mtp"), "Qwen/Qwen3.5-35B-A3B": (35951822704, "+mtp"),
    "zai-org/GLM-4.7-Flash": 29943393920,  # llama.cpp n_params of the GGUF (no MTP layer)
    "deepseek-ai/DeepSeek-V2-Lite": 15706484224, "deepseek-ai/DeepSeek-V2": 235741434880, "HuggingFaceTB/SmolLM3-3B": 3075098624,
    "mistralai/Magistral-Small-2506": 23572403200,  # keras-hub magistral_small_2506_en / devstral_small_1_1 presets (fork copies)
    "Qwen/Qwen3-Next-80B-A3B-Instruct": (81324862720, "+mtp"),
    "mistralai/Ministral-3-3B-Instruct-2512": 3849090048,
    "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16": 31577937344,
    "zai-org/GLM-4.5-Air": (110468824832, "+mtp+embed+head"),
    "Qwen/Qwen3.5-397B-A17B": (403397928944, "+mtp"), "Qwen/Qwen3.5-122B-A10B": (125086497008, "+mtp"), "MiniMaxAI/MiniMax-M2": 228689764864,
    "ByteDance-Seed/Seed-OSS-36B-Instruct": 36151104512,
    "Qwen/Qwen-7B": 7721324544, "llava-hf/llava-1.5-7b-hf": 7063427072,
    "bigscience/bloom-7b1": 7069016064,  # FLOPs/params tables in public code (code index file id 35026545526)
    "zai-org/GLM-4.6V-Flash": 10292777472,
    "openai/gpt-oss-20b": 20914757184, "openai/gpt-oss-120b": 116829156672, "TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T": 1100048384, "microsoft/phi-2": 2779683840,
    "HuggingFaceTB/SmolLM2-135M": 134515008, "google-t5/t5-small": 60506624, "google-t5/t5-base": 222903552, "deepseek-ai/DeepSeek-V3": 671026419200, "allenai/OLMo-2-1124-7B": 7298617344, "allenai/OLMo-2-1124-13B": 13716198400,
}
# A corroborated value may be (total, "+mtp"): the checkpoint also stores one multi-token-prediction block (`mtp.*`) that
# transformers does not load; it is computed from the entry by param_count.mtp_layer, never typed. "+mtp+embed+head": the
# stored MTP layer also carries its own embedding and output matrices (GLM-4.5 family, vocab x hidden each).


def corroborated_total(v):
    return v[0] if isinstance(v, tuple) else v


def corroborated_count(e, v):
    if not isinstance(v, tuple):
        return count(e)
    extra = mtp_layer(e)
    if v[1] == "+mtp+embed+head":  # GLM-4.5 family: the stored MTP layer carries its own embed_tokens and shared_head.head
        extra += 2 * e["vocab_size"] * e["hidden_size"]
    return count(e) + extra


REQUIRED = {"meta-llama/Llama-2-7b-hf": 6738415616, "meta-llama/Llama-3.1-8B": 8030261248, "mistralai/Mistral-7B-v0.1": 7241732096}

FIELDS = {"id": str, "aliases": list, "builders": list, "litgpt": list, "architecture": str, "hidden_size": int, "num_layers": int,
          "num_heads": int, "num_kv_heads": int, "head_dim": int, "intermediate_size": int, "vocab_size": int, "tie_embeddings": bool,
          "mlp": str, "norm": str, "qkv_bias": bool, "o_bias": bool, "mlp_bias": bool, "learned_positions": int, "extra": dict,
          "max_positions": int, "parameters": int, "parameters_source": str, "source": str}


# Optional fields, after the required ones and in this order (README "Optional fields").
OPTIONAL = {"counts": str, "same_architecture_as": str, "stored_quantization": str}
# same_architecture_as: a re-upload (quantized, dequantized, mirror) whose architecture fields are copied from that entry;
# stored_quantization: what this id's checkpoint stores for its quantized weights (absent: 16-bit weights).
QUANT_KINDS = {"nf4", "int8", "gptq-int4", "gptq", "awq-int4", "aqlm-2bit-1x16", "nvfp4", "mxfp4", "fp8"}
# fields a quantized upload must share with its base entry (everything that describes the architecture)
ARCH_FIELDS = [k for k in FIELDS if k not in ("id", "aliases", "builders", "litgpt", "parameters_source", "source")]


def main(path):
    entries = json.load(open(path))
    errors = []
    ids = [e["id"] for e in entries]
    if ids != sorted(ids, key=str.lower):
        errors.append("entries are not sorted by id")
    names = {}
    for e in entries:
        eid = e.get("id", "?")
        keys = list(e.keys())
        if keys[:len(FIELDS)] != list(FIELDS) or [k for k in OPTIONAL if k in keys] != keys[len(FIELDS):]:
            errors.append(f"{eid}: fields differ from the catalog shape: {keys}")
            continue
        for k, t in OPTIONAL.items():
            if k in e and not (isinstance(e[k], t) and e[k].strip()):
                errors.append(f"{eid}: optional {k} is not a non-empty {t.__name__}")
        if e.get("stored_quantization") and e["stored_quantization"] not in QUANT_KINDS:
            errors.append(f"{eid}: stored_quantization {e['stored_quantization']!r} not one of {sorted(QUANT_KINDS)}")
        for k, t in FIELDS.items():
            if not isinstance(e[k], t) or (t is int and isinstance(e[k], bool)):
                errors.append(f"{eid}: {k} is not {t.__name__}")
        if e["mlp"] not in ("gated", "plain") or e["norm"] not in ("rmsnorm", "layernorm"):
            errors.append(f"{eid}: mlp/norm value")
        if e["num_heads"] % e["num_kv_heads"]:
            errors.append(f"{eid}: num_heads not a multiple of num_kv_heads")
        moe = e["extra"].get("moe")
        if moe and not 0 < moe["active"] <= moe["experts"]:
            errors.append(f"{eid}: moe active/experts")
        if not e["source"].strip():
            errors.append(f"{eid}: no source")
        for n in [eid] + e["aliases"] + e["builders"] + ["litgpt:" + x for x in e["litgpt"]]:
            prev = names.setdefault(n.lower(), eid)
            if prev != eid:
                errors.append(f"name {n!r} maps to {prev} and {eid}")
        parts = [c.get("part") for c in e["extra"].get("components", [])]
        if any(parts) and not all(p in ("encoder", "fusion", "decoder") for p in parts):
            errors.append(f"{eid}: a component has a `part` but not every one is encoder, fusion or decoder: {parts}")
        c = count(e)
        if c != e["parameters"]:
            errors.append(f"{eid}: parameters {e['parameters']:,} but the fields give {c:,}")
    by_id = {e["id"]: e for e in entries}
    for e in entries:
        b = by_id.get(e.get("same_architecture_as", ""), None)
        if "same_architecture_as" in e and b is None:
            errors.append(f"{e['id']}: same_architecture_as {e['same_architecture_as']} is not a catalog entry")
        elif b is not None:
            diff = [k for k in ARCH_FIELDS if e[k] != b[k]] + [k for k in ("counts",) if e.get(k) != b.get(k)]
            if diff:
                errors.append(f"{e['id']}: architecture differs from its base {b['id']} in {diff}")
    # data/unsupported.json: known architectures without an entry; none may shadow a catalog name
    unsupported_path = os.path.join(os.path.dirname(os.path.abspath(path)), "unsupported.json")
    for u in json.load(open(unsupported_path)) if os.path.exists(unsupported_path) else []:
        if list(u) != ["id", "aliases", "family", "reason"] or not all(str(u[k]).strip() for k in ("id", "family", "reason")):
            errors.append(f"unsupported.json: {u.get('id', '?')}: fields differ from id, aliases, family, reason (non-empty)")
        for n in [u["id"]] + u["aliases"]:
            if n.lower() in names:
                errors.append(f"unsupported.json: {n!r} is also the catalog name of {names[n.lower()]}")
    matched = 0
    for eid, rows in PUBLISHED.items():
        if eid not in by_id:
            errors.append(f"published total for {eid} but no entry")
            continue
        for total, src, delta in rows:
            got = count(by_id[eid]) - delta
            ok = got == total
            matched += ok
            print(f"{'OK  ' if ok else 'FAIL'} {eid:52s} computed {count(by_id[eid]):>16,d}  published {total:>16,d}"
                  + (f" (+{delta:,} explained)" if delta else "") + f"  [{src}]")
            if not ok:
                errors.append(f"{eid}: published {total:,} != computed {got:,}")
    for eid, total in CORROBORATED.items():
        got = corroborated_count(by_id[eid], total)
        total = corroborated_total(total)
        print(f"{'ok  ' if got == total else 'FAIL'} {eid:52s} computed {got:>16,d}  corroborated {total:>13,d}  [published total quoted in public code: Hub metadata, numel(), llama.cpp/ollama]")
        if got != total:
            errors.append(f"{eid}: corroborated {total:,} != computed {got:,}")
    for eid, total in REQUIRED.items():
        if by_id.get(eid, {}).get("parameters") != total:
            errors.append(f"required total for {eid} not reproduced")
    print(f"\n{len(entries)} entries, {len(names)} names; {matched} published totals matched exactly, "
          f"{sum(corroborated_count(by_id[k], v) == corroborated_total(v) for k, v in CORROBORATED.items())} corroborated; {len(errors)} errors")
    for err in errors:
        print("ERROR", err)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "models.json")))
