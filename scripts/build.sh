#!/usr/bin/env bash
# Configures and builds headway into build/ (Release with debug info). Extra arguments go to
# cmake's configure step, e.g. -DHEADWAY_WERROR=ON.
set -euo pipefail
cd "$(dirname "$0")/.."
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
else
  cmake -S . -B build "$@" >/dev/null
fi
cmake --build build -j"$(nproc)"
