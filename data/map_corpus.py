#!/usr/bin/env python3
"""Map every model name in the corpus to a catalog entry; write data/corpus_models.txt.

Usage: python3 data/map_corpus.py [../shared/corpus]
A file's model is its primary name from extract_corpus_models.py (torchtune builder first, then
base_model / model_name_or_path / model / pretrained_model_name_or_path / model_id / checkpoint_dir).
Lookup is case-insensitive on id, aliases, torchtune builders and litgpt names; a path is tried by its
last component (checkpoint_dir: /tmp/Meta-Llama-3.1-8B-Instruct/ -> Meta-Llama-3.1-8B-Instruct).
Names that do not map get a reason: local path, placeholder, quantized checkpoint, architecture stated
inline, or "no source read" (listed with what it is where known).
"""
import json
import os
import re
import sys
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from extract_corpus_models import main as _unused, names_in  # noqa: E402,F401

# Why a name does not map (only facts visible in the name or in the corpus file itself).
KNOWN = {
    "torchtune.models.llama2.llama2": "inline: torchtune llama2() component builder; the file states every architecture argument",
    "mistralai/Magistral-Small-2509": "Magistral Small 1.2 adds a vision encoder to the Mistral Small 3.2 base (model card), and its config loads as transformers' Mistral3Config (the VLM class: GitHub issues p-e-w/heretic#62 and modelscope/evalscope#884 quote it), but no config.json and no exact Hub total were found to show its dims equal the Mistral-Small-3.1/3.2 entry (24,011,361,280), so it is not aliased",
    "OpenMOSS-Team/MOSS-VL-Instruct-0708": "its layer types are expressible (OpenMOSS/MOSS-VL sglang/python/sglang/srt/models/moss_vl.py @913ce869: Qwen3-VL-style vision with one deepstack merger MLP, Mllama-style gated cross-attention decoder layers between Qwen3 self-attention layers; third_party/realtime-demo/docs/vlm_memory_capacity.md: 12 cross-attention + 36 self-attention layers, 8 KV heads x 128), but no source read gives the widths, vocabulary or vision dims of MOSS-VL-Instruct-0708",
    "axolotl-ai-co/Mistral-Medium-3.5-128B-BF16": "no config.json for Mistral Medium 3.5 found in the stored pages or transformers sources",
    "canopylabs/orpheus-3b-0.1-pretrained": "no config.json of the pretrained checkpoint read. canopyai/Orpheus-TTS @835ac7cd finetune/train.py loads the pretrained model with no resize_token_embeddings, so the -ft checkpoint has its shape; but the -ft sources disagree on the one field that matters: its config as copied (huggingface.co/bemer12/awq_orpheus; mlx-audio's Llama TTS test config: Llama-3.2-3B shape, vocab 156940) says tie_word_embeddings true (3,300,867,072 parameters), while the Hub safetensors total quoted for canopylabs/orpheus-3b-0.1-ft in public code (code index file id 71142266638: 3,782,986,752) is exactly the untied count; with the tie flag unresolved no entry is made (the Kubeflow guide's 32 layers x 4096 is contradicted by both)",
    "katanemo/Plano-Orchestrator-4B": "config.json not read (none found in the stored pages or code): its model card (dev.modelhub.org.cn mirror of README.md @41f77a59) names base_model Qwen/Qwen3-4B-Instruct-2507, which alone does not show the config equals the base's (a listing gives it a 40960-token context, the base has 262144), so it is not aliased",
    "OpenGVLab/InternVL3_5-8B-HF": "InternViT-300M + Qwen3-8B (model card: 0.3B + 8.2B = 8.5B, rounded); the HF-format config was not read and transformers' InternVL defaults are declared for InternVL3-1B-hf, so the vision tower and projector dims of this checkpoint are not sourced",
    "arcee-ai/Trinity-Nano-Preview": "AFMoE (gated attention, q/k norm, four norms per block, shared-expert MoE with sigmoid routing after dense layers: expressible in the entry format); the Trinity technical report (arXiv 2602.17004, table as quoted on glennklockwood.com/garden/Trinity) gives Trinity Nano 56 layers (2 dense), d_model 1024, FFN 3072, 8 heads x 128, 2 KV heads, 128 routed experts of 256 + 1 shared, 8 active (the GGUF header of arcee-ai/Trinity-Nano-Preview-GGUF @2aa08593 agrees on 56 blocks, 2 KV heads x 128), but no source read gives its vocabulary size or tie flag (transformers' AfmoeConfig defaults are declared for arcee-ai/Trinity-Mini), so no count is made",
}
QUANT = re.compile(r"gptq|awq|bnb|nf4|nvfp4|fp8|aqlm|prequantized|int4|int8|gguf", re.I)


PARTIAL = {}  # catalog id -> what its count leaves out (entries with an optional "counts" field): not counted as mapped


def load_names(models_path):
    names = {}
    for e in json.load(open(models_path)):
        if e.get("counts"):
            PARTIAL[e["id"]] = e["counts"]
        for n in [e["id"]] + e["aliases"] + e["builders"] + e["litgpt"]:
            names.setdefault(n.lower(), e["id"])
    return names


def resolve(name, names):
    n = name.strip().rstrip("/")
    if n.lower() in names:
        if names[n.lower()] in PARTIAL:  # e.g. "text decoder only": the whole checkpoint's weights are not known
            return None, None
        return names[n.lower()], "catalog"
    if "/" in n and (n.startswith(("/", "./", "../", "~")) or n.count("/") > 1):
        base = n.rsplit("/", 1)[-1]
        if base.lower() in names and names[base.lower()] not in PARTIAL:
            return names[base.lower()], "catalog (by path basename)"
    return None, None


def placeholder(name):
    """A local path or a run-time placeholder is not a model name: it is counted apart, outside the denominator.

    `${VAR}` / `$VAR` (interpolated at run time), absolute or relative filesystem paths (`/`, `./`, `../`, `~`),
    and the output folders of other runs (`models/...`, `saves/...`, `output/...`, `checkpoints/...`).
    """
    n = name.strip()
    if "${" in n or n.startswith("$"):
        return "placeholder (interpolated at run time)"
    if n.startswith(("/", "./", "../", "~", "models/", "saves/", "output/", "outputs/", "checkpoints/")):
        return "local path (needs its config.json; not a hub id)"
    return None


# Known architectures the memory model cannot price (written by build_catalog.py from its UNSUPPORTED list).
UNSUPPORTED = {u["id"].lower(): u for u in json.load(open(os.path.join(HERE, "unsupported.json")))}
for _u in list(UNSUPPORTED.values()):
    for _a in _u["aliases"]:
        UNSUPPORTED[_a.lower()] = _u


def reason(name):
    n = name.strip()
    if n.lower() in UNSUPPORTED:
        return "known, not supported by the memory model (data/unsupported.json): " + UNSUPPORTED[n.lower()]["reason"]
    if n in KNOWN and KNOWN[n]:
        return KNOWN[n]
    if n.startswith("${") or "${" in n:
        return "placeholder (interpolated at run time)"
    if n.startswith(("/", "./", "../", "~", "models/", "saves/")):
        return "local path: needs its config.json"
    if QUANT.search(n):
        return "quantized checkpoint whose base architecture is not in the catalog (quantized uploads of catalog models map with stored_quantization)"
    if n.startswith("torchtune.models."):
        return "torchtune builder not in catalog"
    return "no source read for this model (not in litgpt/torchtune/transformers files used)"


def main(root):
    names = load_names(os.path.join(HERE, "models.json"))
    per_name = Counter()
    mapped_to = {}
    why = {}
    files_naming = 0
    files_mapped = 0
    by_source = defaultdict(int)
    mapped_files = Counter()
    excluded = Counter()
    excluded_why = {}
    for dirpath, _, files in sorted(os.walk(root)):
        for f in sorted(files):
            if not f.endswith((".yaml", ".yml", ".json")):
                continue
            found = names_in(os.path.join(dirpath, f))
            if not found:
                continue
            key, primary = found[0]
            hit, how = resolve(primary, names)
            if not hit:  # fall back to the file's other model names (e.g. torchtune checkpoint_dir)
                for k2, other in found[1:]:
                    hit, how = resolve(other, names)
                    if hit:
                        how = f"catalog via {k2}={other}"
                        break
            # a file whose only model names are local paths / placeholders (none resolving) names no model
            ph = placeholder(primary)
            if not hit and ph and all(placeholder(o) for _, o in found[1:]):
                excluded[primary] += 1
                excluded_why[primary] = ph
                continue
            files_naming += 1
            per_name[primary] += 1
            if hit:
                files_mapped += 1
                mapped_files[primary] += 1
                mapped_to.setdefault(primary, set()).add((hit, how))
                by_source[key] += 1
            else:
                why[primary] = reason(primary)
    out = os.path.join(HERE, "corpus_models.txt")
    with open(out, "w") as fh:
        fh.write("# Model names in ../shared/corpus (primary name per file, see data/extract_corpus_models.py)\n")
        fh.write("# columns: files<TAB>name<TAB>catalog id | '-' <TAB>how mapped / why not\n")
        fh.write(f"# files naming a model: {files_naming}; files whose model maps to a catalog entry: {files_mapped} "
                 f"({100.0 * files_mapped / files_naming:.1f} %); distinct names: {len(per_name)}; mapped names: {len(mapped_to)}\n")
        known = [n for n in per_name if n not in mapped_to and n.strip().lower() in UNSUPPORTED]
        known_files = sum(per_name[n] for n in known)
        fh.write(f"# known architectures the memory model does not support (data/unsupported.json): {len(known)} names, {known_files} files; "
                 f"mapped or known: {len(mapped_to) + len(known)} names ({100.0 * (len(mapped_to) + len(known)) / len(per_name):.1f} %), "
                 f"{files_mapped + known_files} files ({100.0 * (files_mapped + known_files) / files_naming:.1f} %)\n")
        fh.write(f"# excluded from the denominator (not a model name: local path or run-time placeholder, and no other model key in the file): "
                 f"{sum(excluded.values())} files, {len(excluded)} names (listed at the end)\n")
        for name, cnt in sorted(per_name.items(), key=lambda kv: (-kv[1], kv[0].lower())):
            if name in mapped_to:
                ids = "; ".join(sorted({h for h, _ in mapped_to[name]}))
                hows = "; ".join(sorted({w for _, w in mapped_to[name]}))
                part = "" if mapped_files[name] == cnt else f" ({mapped_files[name]} of {cnt} files; the rest: {why.get(name, reason(name))})"
                fh.write(f"{cnt}\t{name}\t{ids}\t{hows}{part}\n")
            else:
                fh.write(f"{cnt}\t{name}\t-\t{why[name]}\n")
        fh.write("# excluded (not in the denominator):\n")
        for name, cnt in sorted(excluded.items(), key=lambda kv: (-kv[1], kv[0].lower())):
            fh.write(f"{cnt}\t{name}\texcluded\t{excluded_why[name]}\n")
    print(f"files naming a model: {files_naming}; mapped: {files_mapped} ({100.0 * files_mapped / files_naming:.1f} %); "
          f"distinct names {len(per_name)}, mapped {len(mapped_to)}; excluded placeholders/local paths: {sum(excluded.values())} files; wrote {out}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "shared", "corpus"))
