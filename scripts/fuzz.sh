#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, docs/FUZZING.md) into build-fuzz/ with clang and
# -DHEADWAY_FUZZ=ON, replays every input in fuzz/regressions/<target>/, then fuzzes each target
# for SECONDS_PER_TARGET (default 20) starting from fuzz/corpus/<target>/. Exits 1 naming the
# saved input when a target crashes, hangs (-timeout) or runs out of memory (-rss_limit_mb).
# New corpus entries go to build-fuzz/corpus/<target>/ (kept between runs, never committed);
# crashing inputs to build-fuzz/artifacts/<target>/. FUZZ_TARGETS="a b" limits the targets;
# FUZZ_SEED=N fixes libFuzzer's seed (the test command does, so that a CI run explores the same
# inputs each time; without it every run explores new ones).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-20}"
source scripts/compiler-cache.sh
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
if [ ! -f build-fuzz/CMakeCache.txt ]; then
  echo "fuzz.sh: first build into build-fuzz/ (about 1.5 minutes on 2 cores with an empty" \
    "compiler cache; docs/DEVELOPING.md)" >&2
  cmake -S . -B build-fuzz "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DHEADWAY_FUZZ=ON -DHEADWAY_NATIVE=OFF \
    "${launcher[@]}" >/dev/null
fi
cmake --build build-fuzz -j"$(nproc)" --target headway_fuzzers

targets="${FUZZ_TARGETS:-$(cd fuzz && ls ./*_fuzz.cc | sed 's|^\./||; s|_fuzz\.cc$||')}"
failed=()
for t in $targets; do
  bin="build-fuzz/fuzz/fuzz_$t"
  options=(-rss_limit_mb=2048 -timeout=10 -max_len=16384)
  if [ -n "${FUZZ_SEED:-}" ]; then options+=(-seed="$FUZZ_SEED"); fi
  if [ -d "fuzz/regressions/$t" ]; then
    # Given files, libFuzzer runs each once and stops at the first that fails.
    if ! "$bin" "${options[@]}" fuzz/regressions/"$t"/* >"build-fuzz/fuzz/$t.replay.log" 2>&1; then
      tail -n 30 "build-fuzz/fuzz/$t.replay.log" >&2
      failed+=("$t: a regression input fails again (build-fuzz/fuzz/$t.replay.log)")
      continue
    fi
  fi
  [ "$seconds" -gt 0 ] || continue
  mkdir -p "build-fuzz/corpus/$t" "build-fuzz/artifacts/$t"
  # Test data that is also a good seed is named, not copied: fuzz/seed-dirs/<target> lists
  # folders of the repository, one per line (libFuzzer reads them recursively, read-only here).
  seed_dirs=()
  if [ -f "fuzz/seed-dirs/$t" ]; then mapfile -t seed_dirs < "fuzz/seed-dirs/$t"; fi
  log="build-fuzz/fuzz/$t.log"
  if "$bin" "${options[@]}" -max_total_time="$seconds" -print_final_stats=1 \
      -artifact_prefix="build-fuzz/artifacts/$t/" "build-fuzz/corpus/$t" "fuzz/corpus/$t" \
      "${seed_dirs[@]}" >"$log" 2>&1; then
    echo "fuzz: $t: $(grep -m1 -o 'Done [0-9]* runs in [0-9]* second(s)' "$log")"
  else
    tail -n 40 "$log" >&2
    input="$(grep -o "Test unit written to .*" "$log" | tail -n 1 | sed 's/Test unit written to //')"
    failed+=("$t: ${input:-see $log}")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  printf 'fuzz: FAILED %s\n' "${failed[@]}" >&2
  exit 1
fi
echo "fuzz: every target ran ${seconds}s without a crash"
