#!/usr/bin/env bash
# The main job: installs dependencies, builds headway, onboards a fresh workspace to the host CPU
# (docs corpus, cited-summary check, chip facts, rules, cheat sheet), adds the decode attention
# (kernels/specs/gemma4/attn_decode/), optimizes the four kernels of a Gemma-4 decode layer with
# the built-in design library (no LLM), prints the status and writes the report (one HTML file,
# docs/REPORT.md).
# HEADWAY_BUDGET sets the optimize budget (default 12m).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh --target headway
workspace="workspaces/run-$(date +%Y%m%d-%H%M%S)"
./build/headway init "$workspace"
./build/headway onboard --workspace "$workspace"
./build/headway kernel add kernels/specs/gemma4/attn_decode/attn_decode.toml --workspace "$workspace"
./build/headway optimize --workspace "$workspace" --budget "${HEADWAY_BUDGET:-12m}"
./build/headway status --workspace "$workspace"
./build/headway report --workspace "$workspace"
echo "workspace: $workspace (headway tree KERNEL --workspace $workspace shows a Design Tree)"
