#!/usr/bin/env python3
"""Times trainlint against yamllint and check-jsonschema on the same corpus files.

Installs nothing itself: run it with a Python that has yamllint and
check-jsonschema (scripts/bench_peers.sh makes that virtual environment).
Each tool gets the same explicit file list, is run 3 times, and the best wall
time counts; the ratios are printed. These 2-core machines are noisy: compare
the ratios of one run, not absolute times across runs.

Usage: bench_peers.py TRAINLINT CORPUS_DIR VENV_BIN
"""

import json
import os
import subprocess
import sys
import tempfile
import time


def best_of(command, runs=3):
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - start)
    return best


def main():
    trainlint, corpus, venv_bin = sys.argv[1], sys.argv[2], sys.argv[3]
    yaml_files, json_files = [], []
    for root, _, names in os.walk(corpus):
        for name in sorted(names):
            path = os.path.join(root, name)
            if name.endswith((".yaml", ".yml")):
                yaml_files.append(path)
            elif name.endswith(".json"):
                json_files.append(path)
    all_files = yaml_files + json_files
    schema = os.path.join(tempfile.mkdtemp(), "any.json")
    with open(schema, "w") as f:
        json.dump({"$schema": "http://json-schema.org/draft-07/schema#"}, f)

    ours_yaml = best_of([trainlint, "check", "--exit-zero", "--output-format", "concise", *yaml_files])
    ours_all = best_of([trainlint, "check", "--exit-zero", "--output-format", "concise", *all_files])
    yamllint = best_of([os.path.join(venv_bin, "yamllint"), "-f", "parsable", "-d", "relaxed", *yaml_files])
    cjs = best_of([os.path.join(venv_bin, "check-jsonschema"), "--schemafile", schema, *all_files])

    print(f"files: {len(yaml_files)} YAML + {len(json_files)} JSON = {len(all_files)}")
    print(f"trainlint check (YAML files):        {ours_yaml * 1e3:8.1f} ms")
    print(f"yamllint (YAML files):               {yamllint * 1e3:8.1f} ms   trainlint is {yamllint / ours_yaml:6.1f}x faster")
    print(f"trainlint check (all files):         {ours_all * 1e3:8.1f} ms")
    print(f"check-jsonschema (all files):        {cjs * 1e3:8.1f} ms   trainlint is {cjs / ours_all:6.1f}x faster")


if __name__ == "__main__":
    main()
