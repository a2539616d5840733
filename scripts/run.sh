#!/usr/bin/env bash
# The main job: installs dependencies, builds headway, optimizes the three Gemma-4 kernels on the
# host CPU with the built-in design library (no LLM) in a fresh workspace, and prints the status.
# HEADWAY_BUDGET sets the optimize budget (default 12m).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh --target headway
workspace="workspaces/run-$(date +%Y%m%d-%H%M%S)"
./build/headway init "$workspace"
./build/headway optimize --workspace "$workspace" --budget "${HEADWAY_BUDGET:-12m}"
./build/headway status --workspace "$workspace"
echo "workspace: $workspace (headway tree KERNEL --workspace $workspace shows a Design Tree)"
