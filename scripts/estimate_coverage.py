#!/usr/bin/env python3
"""How many corpus files that name a model get a complete memory estimate (issue 14).

For every YAML/JSON file under the corpus (a config that trains nothing, such as an
evaluation or export config, is counted apart): `trainlint show --output-format json`
says whether a model is named (the `model` role); `trainlint estimate --gpu rtx-4090
--output-format json` says whether it is estimated, and complete: weights,
gradients (or ZeRO's model states), optimizer states and activations that cover the
whole model. Prints the counts and the reasons of the rest, most common first.

    python3 scripts/estimate_coverage.py [TRAINLINT] [CORPUS]

The corpus holds each repository's files without its `.git`; a user runs trainlint in a
checkout, whose work tree is the project (a config's `deepspeed: deepspeed_configs/z3.json`
is read from the repository root). So the corpus is copied to a temporary folder and each
repository folder gets an empty `.git` marker: the layout of a checkout, nothing else changed.
"""
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/debug/trainlint")
CORPUS = sys.argv[2] if len(sys.argv) > 2 else "../shared/corpus"


def run(*args):
    out = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=60)
    return out.stdout, out.stderr


def as_checkouts(corpus, into):
    """Copy the corpus, one folder per repository, each marked as a git work tree."""
    copy = os.path.join(into, "corpus")
    shutil.copytree(corpus, copy)
    for repo in os.listdir(copy):
        if os.path.isdir(os.path.join(copy, repo)):
            os.mkdir(os.path.join(copy, repo, ".git"))
    return copy


def main():
    with tempfile.TemporaryDirectory() as tmp:
        count(as_checkouts(CORPUS, tmp))


def count(corpus):
    files = []
    for root, _, names in os.walk(corpus):
        if ".git" in root.split(os.sep):
            continue
        for name in names:
            if name.endswith((".yaml", ".yml", ".json")):
                files.append(os.path.join(root, name))
    files.sort()
    naming, complete, not_training, reasons = 0, 0, 0, collections.Counter()
    # Complete estimates by where their inputs come from: every one stated, or one solved for
    # (the longest sequence that fits, the fewest GPUs a sharded run fits on).
    solved = collections.Counter()
    for path in files:
        stdout, _ = run("show", "--output-format", "json", path)
        try:
            views = json.loads(stdout)
        except json.JSONDecodeError:
            continue
        views = views if isinstance(views, list) else [views]
        if not any("model" in (v.get("roles") or {}) for v in views):
            continue
        naming += 1
        stdout, stderr = run("estimate", "--gpu", "rtx-4090", "--output-format", "json", path)
        if "not a training run" in stderr:
            # An evaluation, generation, inference or export config: no training memory to estimate.
            naming -= 1
            not_training += 1
            continue
        try:
            estimate = json.loads(stdout)
        except json.JSONDecodeError:
            reasons[(stderr.strip().splitlines() or ["no output"])[-1][:110]] += 1
            continue
        estimates = estimate.get("estimates", [estimate]) if isinstance(estimate, dict) else estimate
        # The rows at the peak and at the other moment of the step (`off_peak`).
        names = {c["name"] for e in estimates for c in e["components"] + e.get("off_peak", {}).get("components", [])}
        states = any(n.startswith("weights") or n.startswith("model states") for n in names)
        activations = any(n.startswith("activations") for n in names)
        if states and activations:
            complete += 1
            for e in estimates[:1]:
                solved[(e.get("solved") or {}).get("input", "stated")] += 1
        else:
            reasons["incomplete: " + ", ".join(sorted(names))[:100]] += 1
    print(f"{naming} training configs name a model ({not_training} more name one but train nothing); {complete} get a complete estimate ({100 * complete / max(naming, 1):.1f} %)")
    print("  of which: " + ", ".join(f"{n} {k}" for k, n in sorted(solved.items())) + " (stated: every input in the config; sequence_length / world_size: solved for)")
    for reason, count in reasons.most_common():
        print(f"{count:5}  {reason}")


if __name__ == "__main__":
    main()
