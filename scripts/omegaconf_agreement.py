#!/usr/bin/env python3
"""Compare trainlint's resolved tree with OmegaConf's own resolution.

For every single-file OmegaConf config of ../shared/corpus (the YAML files that
trainlint reads as torchtune, Hydra, Lightning or unknown-dialect configs),
load it with OmegaConf, resolve every leaf one by one, and compare with the
`resolved` tree of `trainlint show --output-format json FILE`.

Documented, expected differences (counted, not failures):
- leaves OmegaConf cannot resolve either (missing keys that Hydra composition
  or a launch override supplies, `???`, `oc.env` without a default, custom
  resolvers such as `hydra:`): trainlint keeps the text and reports SCH006;
- `oc.env` with a default: trainlint never reads the environment and always
  takes the default; the comparison runs with those variables unset, where
  OmegaConf takes the default too.

Usage: python scripts/omegaconf_agreement.py [path/to/trainlint] [corpus dir]
Exits 1 on any other difference.
"""

import json
import math
import os
import subprocess
import sys

from omegaconf import OmegaConf
from omegaconf.errors import OmegaConfBaseException

OMEGACONF_DIALECTS = {"torchtune", "hydra", "lightning", "unknown"}


def leaves(node, path=()):
    """(path, value) for every leaf of a plain JSON-like tree."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from leaves(value, path + (str(key),))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from leaves(value, path + (str(i),))
    else:
        yield path, node


def subtree(tree, path):
    node = tree
    for key in path:
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            return "<absent>"
    return node


def omegaconf_leaf(cfg, path):
    """The resolved leaf, or an exception marker when OmegaConf cannot resolve it."""
    node = cfg
    for key in path:
        node = node[int(key)] if OmegaConf.is_list(node) else node[key]
    return node


def same(a, b):
    if isinstance(a, float) or isinstance(b, float):
        try:
            return math.isclose(float(a), float(b), rel_tol=1e-12) and type(a) is not str and type(b) is not str
        except (TypeError, ValueError):
            return False
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


def main():
    trainlint = sys.argv[1] if len(sys.argv) > 1 else "target/release/trainlint"
    corpus = sys.argv[2] if len(sys.argv) > 2 else "../shared/corpus"
    # trainlint never reads the environment: compare with it empty, where
    # OmegaConf cannot resolve `oc.env` without a default either.
    os.environ.clear()
    files = compared = unresolvable = refused_duplicates = 0
    differences = []
    for root, _, names in os.walk(corpus):
        for name in sorted(names):
            if not name.endswith((".yaml", ".yml")):
                continue
            path = os.path.join(root, name)
            shown = subprocess.run([trainlint, "show", "--output-format", "json", path], capture_output=True, text=True)
            try:
                view = json.loads(shown.stdout)
            except json.JSONDecodeError:
                continue
            if view.get("dialect") not in OMEGACONF_DIALECTS or "resolved" not in view:
                continue
            try:
                cfg = OmegaConf.load(path)
            except Exception as error:  # noqa: BLE001 - a file OmegaConf refuses
                checked = subprocess.run([trainlint, "check", "--output-format", "json", path], capture_output=True, text=True)
                codes = {d["code"] for d in json.loads(checked.stdout)["diagnostics"]}
                if "SCH004" in codes:
                    refused_duplicates += 1  # OmegaConf refuses duplicate keys; trainlint reports SCH004
                else:
                    differences.append(f"{path}: OmegaConf refuses the file ({type(error).__name__}) but trainlint reads it")
                continue
            raw = OmegaConf.to_container(cfg, resolve=False)
            if isinstance(raw, dict) and "defaults" in raw:
                continue  # a Hydra primary: composed from several files, not a single-file config
            files += 1
            ours = view["resolved"]
            for leaf_path, _ in leaves(raw):
                try:
                    theirs = omegaconf_leaf(cfg, leaf_path)
                except OmegaConfBaseException:
                    unresolvable += 1
                    continue
                if OmegaConf.is_config(theirs):
                    theirs = OmegaConf.to_container(theirs, resolve=True)
                compared += 1
                mine = subtree(ours, leaf_path)
                if not same(mine, theirs):
                    differences.append(f"{path}: {'.'.join(leaf_path)}: trainlint {mine!r}, OmegaConf {theirs!r}")
    print(f"omegaconf agreement: {files} files, {compared} leaves compared, {unresolvable} leaves OmegaConf cannot resolve alone (trainlint reports SCH006), {refused_duplicates} files with duplicate keys OmegaConf refuses (trainlint reports SCH004), {len(differences)} differences")
    for line in differences[:50]:
        print("  " + line)
    sys.exit(1 if differences else 0)


if __name__ == "__main__":
    main()
