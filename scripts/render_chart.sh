#!/usr/bin/env bash
# Renders `trainlint estimate --output-format html` for the seed 004 fixture in
# headless Chromium (Debian's `chromium`) and writes a PNG screenshot.
# Usage: scripts/render_chart.sh [trainlint binary] [output.png]
set -euo pipefail
binary="${1:-target/release/trainlint}"
png="${2:-target/seed004-estimate.png}"
if ! command -v chromium >/dev/null 2>&1; then
    echo "chromium not found: apt-get install chromium" >&2
    exit 1
fi
html="$(mktemp -d)/estimate.html"
"$binary" estimate fixtures/seeds/004_naics_embedder/config.yaml --gpu quadro-rtx-6000 --gpu a100-80gb --output-format html > "$html" || true
profile="$(mktemp -d)"
# Flags as the machine notes require for a closed network.
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --window-size=1500,820 --screenshot="$png" "file://$html" 2>/dev/null
echo "wrote $png"
