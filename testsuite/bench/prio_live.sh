#!/bin/bash
# Benchmark (on demand, not in CI): how long priority/fairway's periodic
# recalculation holds slurmctld's job write lock with a big pending queue.
# Starts a private cluster, fills it with pending jobs (a DOWN partition keeps
# them pending), and reads the plugin's own measurement from the slurmctld
# log (DebugFlags=Priority: "recalculation of N jobs held the job write lock
# for X ms").  Results go to doc/perf-prio.md by hand.
#
#   testsuite/bench/prio_live.sh [--jobs N] [--ticks K] [--dir DIR]
#       [--port P] [--dbd] [--sched S] [--keep]
#     --jobs N    pending jobs (default 50000; ~3.4 ms per sbatch)
#     --ticks K   recalculations to record once the queue is full (default 5)
#     --dir DIR   cluster directory (default /tmp/fw-prio-bench)
#     --port P    SlurmctldPort; nodes P+1..P+4, slurmdbd P+90 (default 17370)
#     --dbd       with slurmdbd + MariaDB (fair-share on associations)
#     --sched S   SchedulerType (default sched/fairway; sched/backfill to
#                 leave the controller to the priority plugin alone)
#     --keep      leave the cluster running (stop: contrib/cluster-stop.sh --dir DIR)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
jobs=50000; ticks=5; dir=/tmp/fw-prio-bench; port=17370; dbd=0; keep=0
sched=sched/fairway
while [ $# -gt 0 ]; do
  case "$1" in
    --jobs) jobs=$2; shift 2;;
    --ticks) ticks=$2; shift 2;;
    --dir) dir=$2; shift 2;;
    --port) port=$2; shift 2;;
    --dbd) dbd=1; shift;;
    --sched) sched=$2; shift 2;;
    --keep) keep=1; shift;;
    -h|--help) sed -n '2,22p' "$0"; exit 0;;
    *) echo "prio_live: unknown option $1" >&2; exit 2;;
  esac
done
say() { echo "[$(date +%T)] $*"; }

mkdir -p "$dir"
extra="$dir.extra"; fwconf="$dir.fairway.conf"
cat > "$extra" <<EOF
MaxJobCount=$((jobs + 5000))
SchedulerType=$sched
DebugFlags=Priority
SlurmctldDebug=info
PriorityWeightAge=1000
PriorityWeightFairshare=10000
PriorityWeightJobSize=1000
PriorityWeightPartition=1000
PriorityWeightQOS=1000
PriorityWeightTRES=CPU=1000,Mem=10G
PartitionName=hold Nodes=n[1-4] State=DOWN PriorityJobFactor=1 MaxTime=INFINITE
EOF
[ "$sched" = sched/backfill ] && echo "SchedulerParameters=bf_interval=30" >> "$extra"
# Recalculate every 10 s (PriorityCalcPeriod counts whole minutes).
cat > "$fwconf" <<EOF
RecalcPeriod=0:10
PriorityWeightCPUs=100
PriorityWeightMemGB=20
PriorityWeightQueueTime=1
EOF
# A private copy of the plugins: a rebuild during the run cannot touch them.
mkdir -p "$dir.plugins"
cp "$top/plugins/priority_fairway.so" "$top/plugins/sched_fairway.so" "$dir.plugins/" || exit 1
args=(--dir "$dir" --name fw-pbench --port "$port" --plugins "$dir.plugins"
      --slurm-extra "$extra" --fairway-conf "$fwconf")
[ "$dbd" = 1 ] && args+=(--dbd --dbd-port $((port + 90)))
bash "$top/contrib/cluster-stop.sh" --dir "$dir" > /dev/null 2>&1
bash "$top/contrib/cluster-start.sh" "${args[@]}" || exit 1
export SLURM_CONF=$dir/etc/slurm.conf
[ "$keep" = 1 ] || trap 'say "stopping (cancels $jobs jobs)"; bash "$top/contrib/cluster-stop.sh" --dir "$dir" > /dev/null' EXIT
log=$dir/log/slurmctld.log
accounts=(a0 a1 a2 a3 a4 a5 a6 a7 a8 a9)
if [ "$dbd" = 1 ]; then
  sacctmgr -i add account "${accounts[@]}" > /dev/null
  sacctmgr -i add user root account="$(IFS=,; echo "${accounts[*]}")" > /dev/null
fi

say "submitting $jobs pending jobs (4 parallel streams)"
t0=$SECONDS
# Jobs of 10 accounts with various sizes; -o /dev/null: they never run.
seq 0 $((jobs - 1)) | xargs -P 4 -n 250 bash -c '
  for i; do
    sbatch -Q -p hold -A a$((i % 10)) -n $((1 + i % 4)) --mem=$((100 + i % 900))M \
      -t $((1 + i % 60)) -o /dev/null --wrap true || echo "sbatch failed at $i" >&2
  done' _
submit_s=$((SECONDS - t0))
n=$(squeue -h -t PD -o %i | wc -l)
say "submitted in $submit_s s; $n jobs pending"

# The next K recalculations that see the whole queue.
say "waiting for $ticks recalculations"
mark=$(wc -l < "$log")
for _ in $(seq 600); do
  c=$(tail -n +"$((mark + 1))" "$log" | grep -c "recalculation of [0-9]* jobs held")
  [ "$c" -ge "$ticks" ] && break
  sleep 1
done
# fields: jobs, write ms, write holds, longest write hold, write CPU ms,
# read ms, read holds, longest read hold, read CPU ms, unlocked ms
tail -n +"$((mark + 1))" "$log" | grep "recalculation of [0-9]* jobs held" | head -n "$ticks" |
  sed 's/.*recalculation of //' |
  # numbers in order: jobs, write ms, holds, longest, cpu, most so far,
  # read ms, holds, longest, cpu, unlocked ms, stored, skipped
  awk '{ n = 0; for (i = 1; i <= NF; i++) { x = $i; gsub(/[^0-9.]/, "", x); if (x != "" && x != ".") v[++n] = x }
         print v[1], v[2], v[3], v[4], v[5], v[7], v[8], v[9], v[10], v[11] }' > "$dir.ticks"
echo "  jobs | write: ms holds longest cpu | read: ms holds longest cpu | unlocked ms"
sed 's/^/  /' "$dir.ticks"
[ -s "$dir.ticks" ] || { echo "no recalculation logged"; exit 1; }
stat() { # column label
  sort -n -k"$1" "$dir.ticks" | awk -v c="$1" -v l="$2" '{ v[NR] = $c } END {
    printf " %s min=%.1f median=%.1f max=%.1f", l, v[1], v[int((NR + 1) / 2)], v[NR] }'
}
echo "RESULT pending=$n submit_s=$submit_s ticks=$(wc -l < "$dir.ticks")"
echo "  $(stat 2 write_ms)$(stat 4 longest_write_hold_ms)$(stat 5 write_cpu_ms)"
echo "  $(stat 6 read_ms)$(stat 8 longest_read_hold_ms)$(stat 9 read_cpu_ms)$(stat 10 unlocked_ms)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
