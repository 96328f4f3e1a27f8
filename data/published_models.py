#!/usr/bin/env python3
"""The model names of the published rows and of the framework example configs; writes data/published_models.txt.

Usage: python3 data/published_models.py [MIRROR_ROOT]   (default /work/.mirror; a repository missing there is skipped
and the file keeps its previous rows for it)
Sources, one row per distinct name with its file count:
  - `data/published_peaks.json`: each row's `model` (two rows describe their model instead of naming it: the name the
    description gives is used, see DESCRIBED);
  - Lightning-AI/litgpt `config_hub/finetune/*/*.yaml` `checkpoint_dir` at LITGPT_COMMIT (the configs of litgpt's
    published memory table);
  - pytorch/torchtune `recipes/configs`, axolotl-ai-cloud/axolotl `examples`, hiyouga/LLaMA-Factory `examples`: these
    are in `../shared/corpus` at the same commits (`../shared/corpus/SOURCES.md`), so they are measured there, not here.
Standard library only; git reads the mirrors (`git show COMMIT:PATH`).
"""
import json
import os
import subprocess
import sys
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
LITGPT = ("Lightning-AI/litgpt", "Lightning-AI+litgpt", "26857050fe3ff627cd714fe92f5838f51a3d5efa", "config_hub/finetune/")
# Rows of published_peaks.json whose `model` is a description: the model name the description states.
DESCRIBED = {
    "Mistral-7B-v0.2 base (source gives no hub id)": "Mistral-7B-v0.2",
    "Megatron-LM GPT-2 1.5B (--num-layers 48 --hidden-size 1600 --num-attention-heads 16; same shape as openai-community/gpt2-xl)":
        "openai-community/gpt2-xl",
}
OUT = os.path.join(HERE, "published_models.txt")


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=True).stdout


def litgpt(mirror_root):
    name, folder, commit, under = LITGPT
    repo = os.path.join(mirror_root, folder, "repo")
    if not os.path.isdir(repo):
        return None
    commit = git(repo, "rev-parse", "HEAD").strip() if commit == "HEAD" else commit
    found = Counter()
    for path in git(repo, "ls-tree", "-r", "--name-only", commit, under).split():
        if not path.endswith((".yaml", ".yml")):
            continue
        for line in git(repo, "show", f"{commit}:{path}").splitlines():
            if line.startswith("checkpoint_dir:"):
                found[line.split(":", 1)[1].strip().strip("'\"")] += 1
    return found, f"{name} {under}*/*.yaml checkpoint_dir @{commit[:12]}"


def main(mirror_root):
    rows = defaultdict(lambda: [0, set()])
    for row in json.load(open(os.path.join(HERE, "published_peaks.json"))):
        name = DESCRIBED.get(row["model"], row["model"])
        rows[name][0] += 1
        rows[name][1].add("data/published_peaks.json")
    got = litgpt(mirror_root)
    if got is None:
        sys.exit(f"{mirror_root}: no litgpt mirror (fetch github:Lightning-AI/litgpt)")
    found, where = got
    for name, count in found.items():
        rows[name][0] += count
        rows[name][1].add(where)
    with open(OUT, "w") as fh:
        fh.write("# Model names of the published rows and framework example configs (data/published_models.py)\n")
        fh.write("# columns: rows or files<TAB>name<TAB>where\n")
        for name, (count, where) in sorted(rows.items(), key=lambda kv: (-kv[1][0], kv[0].lower())):
            fh.write(f"{count}\t{name}\t{'; '.join(sorted(where))}\n")
    print(f"{len(rows)} names, {sum(c for c, _ in rows.values())} rows and files; wrote {OUT}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/work/.mirror")
