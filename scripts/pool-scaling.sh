#!/usr/bin/env bash
# The cuda target on a pool, 1 worker against 4: starts a 4-node Slurm cluster on this machine
# (scripts/local-slurm.sh), then runs `headway optimize` on a fresh workspace of the emulated
# cuda toolchain once per worker count, and prints each run's decisions per wall hour. The
# stand-in device is HEADWAY_EMULATED_TIME_SCALE times slower than its host (default 4), so that
# device work dominates without taking the host's cores. Needs root (the cluster's daemons).
# HEADWAY_BUDGET sets each run's budget (default 5m), HEADWAY_KERNELS its kernels (default
# attn_out,qkv).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
run="$(realpath -m "workspaces/pool-scaling-$(date +%Y%m%d-%H%M%S)")"
mkdir -p "$run"
eval "$(scripts/local-slurm.sh start "$run/slurm" 4)"
trap 'scripts/local-slurm.sh stop "$run/slurm"' EXIT
export HEADWAY_EMULATED_TIME_SCALE="${HEADWAY_EMULATED_TIME_SCALE:-4}"
export HEADWAY_CACHE_DIR="$run/cache"
for workers in 1 4; do
  ws="$run/ws$workers"
  ./build/headway init "$ws" --target cuda --toolchain emulated > /dev/null
  start=$(date +%s.%N)
  ./build/headway optimize --workspace "$ws" --budget "${HEADWAY_BUDGET:-5m}" \
    --kernels "${HEADWAY_KERNELS:-attn_out,qkv}" --pool slurm --workers "$workers" \
    --pool-host 127.0.0.1 --json > "$run/optimize$workers.json" 2> "$run/optimize$workers.log"
  end=$(date +%s.%N)
  python3 - "$run/optimize$workers.json" "$start" "$end" "$workers" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
wall = float(sys.argv[3]) - float(sys.argv[2])
busy = sum(1 for w in j["pool"]["workers"] if w["jobs"] > 0)
print(f"workers {sys.argv[4]}: {j['tests']} decisions in {wall:.0f} s of wall time, "
      f"{3600 * j['tests'] / wall:.1f} a wall hour; {j['pool']['stats']['jobs']} jobs, "
      f"{busy} workers ran jobs, {j['rounds']} rounds (up to {j.get('most_rounds_at_once', 1)} at once)")
PY
done
echo "runs: $run"
