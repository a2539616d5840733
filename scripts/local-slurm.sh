#!/usr/bin/env bash
# A whole Slurm cluster on this machine, for trying headway's slurm pool (docs/POOL.md) without a
# cluster: munged, slurmctld and one slurmd per node (dev1..devN, one CPU each), all on
# 127.0.0.1, with their configuration, state and logs in DIR. Needs root and the Debian packages
# munge, slurmctld, slurmd and slurm-client (scripts/install-deps.sh).
#
#   scripts/local-slurm.sh start DIR [NODES]   starts it (default 4 nodes) and prints the
#                                              `export SLURM_CONF=...` line clients need
#   scripts/local-slurm.sh stop DIR            cancels its jobs and stops every daemon it started
set -euo pipefail
usage() { echo "usage: $0 start DIR [NODES] | stop DIR" >&2; exit 2; }
[ $# -ge 2 ] || usage
action=$1
dir=$(realpath -m "$2")
nodes=${3:-4}

free_port_base() {  # a port P with P and P+1..P+nodes free
  python3 - "$nodes" <<'PY'
import random, socket, sys
n = int(sys.argv[1])
for _ in range(200):
    base = random.randrange(20000, 60000 - n)
    try:
        socks = []
        for p in range(base, base + n + 1):
            s = socket.socket(); s.bind(("127.0.0.1", p)); socks.append(s)
        print(base); sys.exit(0)
    except OSError:
        for s in socks: s.close()
sys.exit(1)
PY
}

start() {
  [ "$(id -u)" -eq 0 ] || { echo "local-slurm: needs root (slurmd runs jobs as their users)" >&2; exit 3; }
  for p in munged slurmctld slurmd sbatch; do
    command -v "$p" >/dev/null || [ -x "/usr/sbin/$p" ] ||
      { echo "local-slurm: $p is missing: run scripts/install-deps.sh" >&2; exit 3; }
  done
  [ -r /etc/munge/munge.key ] || { echo "local-slurm: no /etc/munge/munge.key (package munge)" >&2; exit 3; }
  mkdir -p "$dir/state" "$dir/log"
  local base; base=$(free_port_base)
  local host; host=$(hostname)
  cat >"$dir/slurm.conf" <<CONF
ClusterName=headway
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$base
AuthType=auth/munge
AuthInfo=socket=$dir/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SlurmctldTimeout=10
SlurmdTimeout=10
InactiveLimit=0
MinJobAge=10
KillWait=2
NodeName=dev[1-$nodes] NodeHostname=$host NodeAddr=127.0.0.1 Port=[$((base + 1))-$((base + nodes))] CPUs=1 State=UNKNOWN
PartitionName=dev Nodes=dev[1-$nodes] Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
CONF
  export SLURM_CONF=$dir/slurm.conf
  munged --socket="$dir/munge.sock" --pid-file="$dir/munged.pid" --log-file="$dir/log/munged.log" \
    --seed-file="$dir/munge.seed" --force
  slurmctld -f "$SLURM_CONF"
  for i in $(seq 1 "$nodes"); do
    mkdir -p "$dir/spool/dev$i"
    slurmd -f "$SLURM_CONF" -N "dev$i"
  done
  for _ in $(seq 300); do
    [ "$(sinfo -h -t idle -o %D 2>/dev/null)" = "$nodes" ] && { echo "export SLURM_CONF=$SLURM_CONF"; return 0; }
    sleep 0.1
  done
  echo "local-slurm: the nodes did not become idle within 30 s; logs in $dir/log" >&2
  tail -n 5 "$dir"/log/*.log >&2 || true
  stop
  exit 3
}

stop() {
  export SLURM_CONF=$dir/slurm.conf
  [ -f "$SLURM_CONF" ] && scancel --full --quiet $(squeue -h -o %i 2>/dev/null) 2>/dev/null || true
  local pids=()
  for f in "$dir"/slurmd-*.pid "$dir/slurmctld.pid" "$dir/munged.pid"; do
    [ -f "$f" ] && pids+=("$(cat "$f")")
  done
  [ ${#pids[@]} -eq 0 ] && return 0
  kill "${pids[@]}" 2>/dev/null || true
  for _ in $(seq 50); do
    alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ $alive -eq 0 ] && break
    sleep 0.1
  done
  kill -9 "${pids[@]}" 2>/dev/null || true
  rm -f "$dir"/*.pid
}

case "$action" in
  start) start ;;
  stop) stop ;;
  *) usage ;;
esac
