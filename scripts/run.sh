#!/usr/bin/env bash
# The main job: installs dependencies, builds, and runs headway on the host CPU with no LLM.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
./build/headway bench
