#!/bin/bash
# Benchmark (on demand, not in CI): sched/fairway's backfill pass over a
# queue of N pending jobs, as sdiag reports it (cycle time without the
# lock-yield sleeps).  A private 4-node cluster; one exclusive job holds
# every node for an hour, so N one-node jobs (time limits 1..60 min) wait
# behind it and every backfill pass plans the whole queue.  Runs against
# whatever Slurm the machine (or the Debian 13 root) runs: compare releases
# with the same arguments.  Results go to doc/ by hand.
#
#   testsuite/bench/bf_live.sh [--jobs N] [--samples K] [--dir DIR] [--port P]
#     --jobs N     pending jobs (default 1000)
#     --samples K  sdiag samples, one per second once the queue is full (default 10)
#     --dir DIR    cluster directory (default /tmp/fw-bf-bench)
#     --port P     SlurmctldPort; nodes P+1..P+4 (default 17470)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
jobs=1000; samples=10; dir=/tmp/fw-bf-bench; port=17470
while [ $# -gt 0 ]; do
  case "$1" in
    --jobs) jobs=$2; shift 2;;
    --samples) samples=$2; shift 2;;
    --dir) dir=$2; shift 2;;
    --port) port=$2; shift 2;;
    -h|--help) sed -n '2,15p' "$0"; exit 0;;
    *) echo "bf_live: unknown option $1" >&2; exit 2;;
  esac
done
say() { echo "[$(date +%T)] $*"; }

mkdir -p "$dir"
extra="$dir.extra"
printf '%s\n' "MaxJobCount=$((jobs + 1000))" \
  "SchedulerParameters=sched_interval=-1,defer,bf_interval=1,bf_resolution=60,bf_window=4320" \
  > "$extra"
# A private copy of the plugins: a rebuild during the run cannot touch them.
mkdir -p "$dir.plugins"
cp "$top/plugins/priority_fairway.so" "$top/plugins/sched_fairway.so" "$dir.plugins/" || exit 1
bash "$top/contrib/cluster-stop.sh" --dir "$dir" > /dev/null 2>&1
bash "$top/contrib/cluster-start.sh" --dir "$dir" --name fw-bfbench --port "$port" \
  --plugins "$dir.plugins" --slurm-extra "$extra" || exit 1
export SLURM_CONF=$dir/etc/slurm.conf
trap 'say "stopping"; bash "$top/contrib/cluster-stop.sh" --dir "$dir" > /dev/null' EXIT

sbatch -Q -N4 --exclusive -t 60 -o /dev/null --wrap "sleep 3600" > /dev/null
say "submitting $jobs pending jobs"
t0=$SECONDS
seq 0 $((jobs - 1)) | xargs -P 4 -n 250 bash -c '
  for i; do sbatch -Q -N1 -t $((1 + i % 60)) -o /dev/null --wrap true || echo "sbatch failed at $i" >&2; done' _
n=$(squeue -h -t PD -o %i | wc -l)
say "submitted in $((SECONDS - t0)) s; $n pending"

# A number from sdiag's "Backfilling stats" section.
field() {
  sdiag | awk -v l="$1" '/^Backfilling stats/ { b = 1 } b && index($0, l ":") == 2 {
    sub(/^[^:]*:[ \t]*/, ""); print $1 + 0; exit }'
}
for _ in $(seq 60); do
  [ "$(field 'Last depth cycle')" -ge "$n" ] 2>/dev/null && break
  sleep 1
done
: > "$dir.samples"
for _ in $(seq "$samples"); do
  sleep 1
  echo "$(field 'Last cycle') $(field 'Last depth cycle')" >> "$dir.samples"
done
echo "  last cycle (us) | depth"
sed 's/^/  /' "$dir.samples"
sort -n "$dir.samples" | awk -v n="$n" -v v="$(sinfo -V)" '{ c[NR] = $1 } END {
  printf "RESULT %s pending=%d last_cycle_us min=%d median=%d max=%d", v, n, c[1], c[int((NR + 1) / 2)], c[NR] }'
echo " mean_cycle_us=$(field 'Mean cycle')"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
