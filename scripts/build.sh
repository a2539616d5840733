#!/usr/bin/env bash
# Configures and builds headway into build/ (Release with debug info). Arguments starting with
# -D go to cmake's configure step (e.g. -DHEADWAY_WERROR=ON); `--target T` builds only T.
set -euo pipefail
cd "$(dirname "$0")/.."
configure=()
build=()
while [ $# -gt 0 ]; do
  case "$1" in
    --target) build+=(--target "$2"); shift 2 ;;
    *) configure+=("$1"); shift ;;
  esac
done
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
source scripts/compiler-cache.sh
if [ ! -f build/CMakeCache.txt ]; then
  # Measured as docs/DEVELOPING.md says (a 2-core machine, an empty compiler cache).
  what="everything the tests need: about 6 minutes"
  [ "${build[*]}" = "--target headway" ] && what="headway: about 3 minutes"
  echo "build.sh: first build into build/ ($what on 2 cores with an empty compiler cache;" \
    "later builds recompile what changed; docs/DEVELOPING.md)" >&2
  cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" \
    "${configure[@]}"
else
  cmake -S . -B build "${configure[@]}" >/dev/null
fi
cmake --build build -j"$(nproc)" "${build[@]}"
