#!/usr/bin/env bash
# Renders `trainlint estimate --output-format html` for the seed 004 fixture
# (five curriculum stages on two GPU targets, one stage out of memory on the
# smaller card) in headless Chromium (Debian's `chromium`) and writes a PNG.
# Usage: scripts/render_chart.sh [trainlint binary] [output.png] [width] [height] [config] [gpu ...]
# (config and GPUs default to seed 004 on the Quadro RTX 6000 and the A100 80 GB).
# The book's screenshots (book/src/images/) are:
#   scripts/render_chart.sh target/debug/trainlint book/src/images/estimate-chart-1280.png 1280 1100
#   scripts/render_chart.sh target/debug/trainlint book/src/images/estimate-chart-480.png 480 1680
#   scripts/render_chart.sh target/debug/trainlint book/src/images/estimate-chart-one-stage-1280.png 1280 760 \
#       fixtures/published/litgpt/litgpt-llama2-7b-lora-1xa10g/config_hub/finetune/llama-2-7b/lora.yaml a10g rtx-4090
#   scripts/render_chart.sh target/debug/trainlint book/src/images/estimate-chart-one-stage-480.png 480 1400 \
#       fixtures/published/litgpt/litgpt-llama2-7b-lora-1xa10g/config_hub/finetune/llama-2-7b/lora.yaml a10g rtx-4090
set -euo pipefail
binary="${1:-target/release/trainlint}"
png="${2:-target/seed004-estimate.png}"
width="${3:-1280}"
height="${4:-1180}"
config="${5:-fixtures/seeds/004_naics_embedder/config.yaml}"
shift $(( $# < 5 ? $# : 5 ))
gpus=("$@")
[ ${#gpus[@]} -gt 0 ] || gpus=(quadro-rtx-6000 a100-80gb)
gpu_args=()
for gpu in "${gpus[@]}"; do gpu_args+=(--gpu "$gpu"); done
browser="$(command -v chromium || command -v chromium-headless-shell || true)"
if [ -z "$browser" ]; then
    echo "chromium not found: apt-get install chromium" >&2
    exit 1
fi
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
html="$dir/estimate.html"
# Exit 1 means a stage does not fit: the chart is still written.
"$binary" estimate "$config" "${gpu_args[@]}" --output-format html > "$html" || [ $? -eq 1 ]
# Flags for a closed network: nothing is fetched, no profile is kept.
"$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --hide-scrollbars --force-device-scale-factor=1 \
    --user-data-dir="$dir/profile" --window-size="$width,$height" --screenshot="$png" "file://$html" 2>/dev/null
echo "wrote $png (${width}×${height} px)"
