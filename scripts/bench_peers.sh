#!/usr/bin/env bash
# Installs yamllint and check-jsonschema from PyPI in a virtual environment and
# times them against trainlint (release build) on ../shared/corpus.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
venv="${TMPDIR:-/tmp}/trainlint-bench-peers"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet yamllint check-jsonschema
cargo build --release --quiet --manifest-path "$repo/Cargo.toml"
python3 "$repo/scripts/bench_peers.py" "$repo/target/release/trainlint" "$repo/../shared/corpus" "$venv/bin"
