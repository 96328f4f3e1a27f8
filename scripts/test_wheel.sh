#!/usr/bin/env bash
# Builds the wheel with maturin, installs it in a fresh virtual environment and
# runs `trainlint --version` from it.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/build"
"$work/build/bin/pip" install --quiet "maturin>=1.5,<2.0"
"$work/build/bin/maturin" build --release --quiet -m "$repo/Cargo.toml" -o "$work/dist"
python3 -m venv "$work/env"
"$work/env/bin/pip" install --quiet "$work"/dist/trainlint-*.whl
version="$("$work/env/bin/trainlint" --version)"
echo "installed from the wheel: $version"
[[ "$version" == trainlint\ * ]]
