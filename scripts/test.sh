#!/usr/bin/env bash
# The test command: installs dependencies, builds with warnings as errors, runs every test, then
# replays the fuzz regressions and fuzzes each parser briefly (scripts/fuzz.sh;
# HEADWAY_FUZZ_SECONDS per target, default 4; 0 only replays the regressions) from a fixed seed
# (HEADWAY_FUZZ_SEED, default 1), so a run explores the same inputs every time; exploring new
# ones is scripts/fuzz.sh's job.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh -DHEADWAY_WERROR=ON
if ! (cd build && ctest --output-on-failure -j"$(nproc)" --timeout 900) | tee build/ctest.log; then
  echo "=== the failed tests again ==="
  scripts/failed-tests-output.sh build/ctest.log
  exit 8
fi
FUZZ_SEED="${HEADWAY_FUZZ_SEED:-1}" scripts/fuzz.sh "${HEADWAY_FUZZ_SECONDS:-4}"
