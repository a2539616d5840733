#!/usr/bin/env bash
# The test command: installs dependencies, builds with warnings as errors, runs every test, then
# replays the fuzz regressions and fuzzes each parser briefly (scripts/fuzz.sh;
# HEADWAY_FUZZ_SECONDS per target, default 4; 0 only replays the regressions).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh -DHEADWAY_WERROR=ON
(cd build && ctest --output-on-failure -j"$(nproc)" --timeout 900)
scripts/fuzz.sh "${HEADWAY_FUZZ_SECONDS:-4}"
