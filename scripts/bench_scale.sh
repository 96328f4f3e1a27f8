#!/usr/bin/env bash
# Scaling: 1,000 / 5,000 / 10,000 generated configs, wall time and peak memory
# of `trainlint check` (release build). Time is linear; memory nearly flat
# (about 1 KiB per file) — see book/src/benchmarks.md.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cargo build --release --quiet --manifest-path "$repo/Cargo.toml"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 - "$work" <<'PY'
import os, sys
work = sys.argv[1]
for i in range(10000):
    d = os.path.join(work, f"d{i // 1000}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"c{i}.yaml"), "w") as f:
        f.write(f"""# generated config {i}
trainlint: 1
name: run-{i}
batch:
  micro_batch: {8 + i % 8}
  accumulation: {1 + i % 4}
parallel:
  devices: 1
precision: bf16-mixed
optimizer: adamw
model:
  parameters: {100_000_000 + i}
settings:
  loss: {{bin_size: 0.1, max_mz: 2000.0}}
""")
PY
for n in 1 5 10; do
    dirs=()
    for ((k = 0; k < n; k++)); do dirs+=("$work/d$k"); done
    /usr/bin/time -f "$((n * 1000)) files: %e s wall, %M KiB peak" "$repo/target/release/trainlint" check --exit-zero --output-format concise "${dirs[@]}" > /dev/null
done

# 100× the corpus (issue 27: peak under 100 MiB): ../shared/corpus copied 100 times,
# `check` in the default human format, which folds infos into counts.
corpus="$repo/../shared/corpus"
if [ -d "$corpus" ]; then
    for ((k = 1; k <= 100; k++)); do cp -r "$corpus" "$work/corpus$k"; done
    /usr/bin/time -f "100x corpus ($(find "$work"/corpus* -type f | wc -l) files): %e s wall, %M KiB peak" \
        "$repo/target/release/trainlint" check --exit-zero "$work"/corpus* > /dev/null
    /usr/bin/time -f "100x corpus, --output-format json: %e s wall, %M KiB peak" \
        "$repo/target/release/trainlint" check --exit-zero --output-format json "$work"/corpus* > /dev/null
fi
