#!/usr/bin/env python3
"""How many model names trainlint resolves to an architecture (issue 24 item 2), measured with the binary.

Usage: python3 data/resolution_rate.py [TRAINLINT] [../shared/corpus]
For every corpus file it runs `trainlint show FILE` and reads the `model:` line trainlint prints (the model role
its dialect read, resolved as `check` resolves it), and it resolves every name of `data/published_models.txt`
(published rows and framework example configs, written by `published_models.py`) from a one-line config
`base_model: NAME`. Each name is one of:
  catalog      found in the model catalog (directly, as a path, under a re-upload organisation or a stripped suffix)
  unsupported  a known architecture the memory model does not support (`data/unsupported.json`)
  unknown      not in the catalog (the line says what was tried)
Prints the rate per distinct name and per file, corpus and published separately, and the names not in the catalog.
A placeholder or a local path that names no known model is left out (as `tests/models.rs` does).
No network, standard library only.
"""
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = re.compile(r"^  model: (.*)$", re.M)


def classify(line):
    if " is not in the model catalog" in line:
        return "unknown"
    if "a known " in line and "not supported by the memory model" in line:
        return "unsupported"
    return "catalog"


def name_of(line):
    m = re.match(r"`([^`]*)`", line)
    if m:
        return m.group(1)
    return line.split(" is ", 1)[0]


def show(binary, path):
    out = subprocess.run([binary, "show", path], capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"}).stdout
    m = MODEL.search(out)
    return (name_of(m.group(1)), classify(m.group(1)), m.group(1)) if m else None


def placeholder(name):
    """A run-time placeholder or a local path that names no known model (trainlint's `model::is_path`): an output
    folder, not a model name; left out as `tests/models.rs` leaves it out."""
    n = name.strip()
    return ("${" in n or n.startswith(("$", "/", ".", "~")) or "\\" in n or n.count("/") >= 2
            or n[:7].lower() == "models/")


def report(title, per_file):
    """per_file: list of (name, kind, line, weight)."""
    names = {}
    files = Counter()
    left_out = [n for n, kind, _, _ in per_file if kind == "unknown" and placeholder(n)]
    per_file = [row for row in per_file if not (row[1] == "unknown" and placeholder(row[0]))]
    if left_out:
        title += f" ({len(left_out)} files naming only a placeholder or a local path that names no known model left out)"
    for name, kind, line, weight in per_file:
        names.setdefault(name, (kind, line))
        files[kind] += weight
    kinds = Counter(kind for kind, _ in names.values())
    total_n, total_f = len(names), sum(files.values())

    def pct(a, b):
        return f"{100.0 * a / b:.1f} %" if b else "-"

    print(f"## {title}")
    print(f"names: {total_n}; catalog {kinds['catalog']} ({pct(kinds['catalog'], total_n)}); "
          f"catalog + known-unsupported {kinds['catalog'] + kinds['unsupported']} "
          f"({pct(kinds['catalog'] + kinds['unsupported'], total_n)}); unknown {kinds['unknown']}")
    print(f"files: {total_f}; catalog {files['catalog']} ({pct(files['catalog'], total_f)}); "
          f"catalog + known-unsupported {files['catalog'] + files['unsupported']} "
          f"({pct(files['catalog'] + files['unsupported'], total_f)}); unknown {files['unknown']}")
    for name, (kind, line) in sorted(names.items(), key=lambda kv: (kv[1][0], kv[0].lower())):
        if kind != "catalog":
            print(f"  {kind:11} {line}")
    print()


def main(binary, corpus):
    per_file = []
    for dirpath, _, fs in sorted(os.walk(corpus)):
        for f in sorted(fs):
            if f.endswith((".yaml", ".yml", ".json")):
                got = show(binary, os.path.join(dirpath, f))
                if got:
                    per_file.append((*got, 1))
    report("corpus (trainlint show: the model each file names)", per_file)
    published = []
    with tempfile.TemporaryDirectory() as tmp:
        for line in open(os.path.join(HERE, "published_models.txt")):
            if line.startswith("#") or not line.strip():
                continue
            count, name, _sources = line.rstrip("\n").split("\t")
            path = os.path.join(tmp, "c.yml")
            with open(path, "w") as fh:
                fh.write(f"base_model: {name}\nmicro_batch_size: 1\nsequence_len: 512\ndatasets: []\n")
            got = show(binary, path)
            published.append((name, got[1], got[2], int(count)) if got else (name, "unknown", f"`{name}` (no model line)", int(count)))
    report("published rows and framework example configs (data/published_models.txt)", published)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "target", "release", "trainlint"),
         sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "..", "..", "shared", "corpus"))
