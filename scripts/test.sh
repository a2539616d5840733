#!/usr/bin/env bash
# The test command: installs dependencies, builds with warnings as errors, runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh -DHEADWAY_WERROR=ON
cd build
ctest --output-on-failure -j"$(nproc)" --timeout 900
