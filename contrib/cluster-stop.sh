#!/bin/bash
# Stop a cluster started by contrib/cluster-start.sh: cancel its jobs, wait
# for them to drain, then end every process it started, by PID.
#   contrib/cluster-stop.sh [--dir DIR | --name NAME] [--keep-state]
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
dir=""; name=fw
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir=$2; shift 2;;
    --name) name=$2; shift 2;;
    *) echo "cluster-stop: unknown option $1" >&2; exit 2;;
  esac
done
[ -n "$dir" ] || dir="$top/run/$name"
[ -d "$dir" ] || { echo "cluster-stop: no cluster at $dir"; exit 0; }
dir=$(cd "$dir" && pwd)
[ -f "$dir/pids" ] || { echo "cluster-stop: nothing running at $dir"; exit 0; }
export SLURM_CONF="$dir/etc/slurm.conf"
# A front-end cluster's clients need its libslurmfull.so (LD_LIBRARY_PATH).
# shellcheck disable=SC1091
[ -f "$dir/env" ] && source "$dir/env"

pid_of() { awk -v l="$1" '$1==l{print $2}' "$dir/pids"; }
alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }

# Leftovers of this cluster: slurmstepd (it keeps our slurmd's log file open
# and has an empty environment) and job processes (they carry SLURM_JOB_ID
# and our SLURM_CONF or FAIRWAY_CLUSTER).  Never the shell that called us.
# One grep over all processes finds the candidates (a loop starting
# programs for each of a busy machine's thousands of processes took
# minutes).
leftover_pids() {
  local f p
  for f in $(grep -lx 'slurmstepd.*' /proc/[0-9]*/comm 2>/dev/null); do
    p=${f#/proc/}; p=${p%/comm}
    if ls -l "/proc/$p/fd" 2>/dev/null | grep -qF -- "-> $dir/log/"; then
      echo "$p"
    fi
  done
  for f in $(grep -lzxF -e "FAIRWAY_CLUSTER=$dir" -e "SLURM_CONF=$dir/etc/slurm.conf" \
               /proc/[0-9]*/environ 2>/dev/null); do
    p=${f#/proc/}; p=${p%/environ}
    grep -qx 'slurmstepd.*' "/proc/$p/comm" 2>/dev/null && continue
    grep -qz '^SLURM_JOB_ID=' "$f" 2>/dev/null && echo "$p"
  done
}

ctld=$(pid_of slurmctld)
if alive "$ctld"; then
  # Pending first (so nothing new starts), then everything; wait for drain.
  timeout 10 scancel --state=PENDING --full 2>/dev/null || true
  timeout 10 scancel --full 2>/dev/null || true
  for _ in $(seq 50); do
    n=$(timeout 5 squeue -h -o %i 2>/dev/null | wc -l)
    [ "$n" = 0 ] && break
    sleep 0.2
  done
fi

# Daemons by PID, in reverse start order (slurmds, then slurmctld, then dbd,
# mariadb and munged last).
tac "$dir/pids" | while read -r label pid; do
  alive "$pid" && kill -TERM "$pid" 2>/dev/null
done
for _ in $(seq 100); do
  left=0
  while read -r label pid; do alive "$pid" && left=1; done < "$dir/pids"
  [ "$left" = 0 ] && break
  sleep 0.1
done
while read -r label pid; do
  alive "$pid" && { echo "cluster-stop: $label ($pid) did not stop; killing"; kill -KILL "$pid"; }
done < "$dir/pids"

# slurmstepd ignores SIGTERM and outlives slurmd: kill what is left by PID.
for p in $(leftover_pids); do
  kill -KILL "$p" 2>/dev/null
done
: > "$dir/pids"
echo "cluster-stop: stopped $dir"
