#!/usr/bin/env bash
# headway on many devices: starts a 4-node Slurm cluster on this machine (scripts/local-slurm.sh),
# then optimizes the stand-in pack's kernels on it with one `headway worker` per node
# (docs/POOL.md), prints the status and stops the cluster. The stand-in's jobs take real time
# (STANDIN_TIME_SCALE), so the workers' wall time is device time. Needs root (the cluster's
# daemons). HEADWAY_BUDGET sets the optimize budget (default 5m), HEADWAY_WORKERS the workers
# (default 4).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh --target headway
run="workspaces/pool-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$run"
cp -r packs/standin "$run/pack"
sed -i 's/env = { STANDIN_FAIL_RATE = "0.05" }/env = { STANDIN_FAIL_RATE = "0.05", STANDIN_TIME_SCALE = "2000" }/' \
  "$run/pack/target.toml"
grep -q STANDIN_TIME_SCALE "$run/pack/target.toml" || { echo "run-pool: the pack's time command changed" >&2; exit 1; }
slurm="$(realpath "$run")/slurm"
eval "$(scripts/local-slurm.sh start "$slurm" 4)"
trap 'scripts/local-slurm.sh stop "$slurm"' EXIT
./build/headway init "$run/ws" --target command --manifest "$run/pack/target.toml"
./build/headway optimize --workspace "$run/ws" --budget "${HEADWAY_BUDGET:-5m}" \
  --pool slurm --workers "${HEADWAY_WORKERS:-4}" --pool-host 127.0.0.1
./build/headway status --workspace "$run/ws"
echo "workspace: $run/ws (the workers' logs: $run/ws/.headway/pool/)"
