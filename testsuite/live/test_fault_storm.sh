#!/bin/bash
# A submission storm: 10,000 sbatch calls from 4 parallel submitters while
# sched/fairway's backfill pass runs every second over the growing queue
# (a job holding all 4 nodes keeps the storm pending, so every pass plans
# every job).  Checks: every sbatch call returned a job id, every id is in
# the queue afterwards (none lost, no duplicates), slurmctld stayed
# responsive: the latency of `squeue` (all jobs) and of `squeue -j` (one
# job) is sampled during the storm and p50/p99/max printed; no sample may
# fail or take 30 s.  MaxJobCount is raised to 20,000 for this test.
# FW_STORM_JOBS overrides the number of jobs (for a quick look).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fault_lib.sh"

total=${FW_STORM_JOBS:-10000}
submitters=${FW_STORM_SUBMITTERS:-4}
extra=$(mktemp)
cat > "$extra" <<'EOF2'
SchedulerParameters=sched_interval=-1,defer,bf_interval=1
MaxJobCount=20000
MinJobAge=600
EOF2
start_cluster fw-fstorm 17560 --slurm-extra "$extra"
rm -f "$extra"
sdir="$_cluster_dir/storm"; mkdir -p "$sdir"

blk=$(submit -N4 --exclusive -t 30 -J block --wrap 'sleep 1800')
wait_until 20 job_is "$blk" RUNNING || fail "the blocking job did not start"

say "storm: $total sbatch from $submitters submitters"
per=$((total / submitters))
# probes: full squeue and single-job squeue, one after the other
probe() {
  local a b
  while [ ! -e "$sdir/stop" ]; do
    a=$(date +%s%N)
    if timeout 30 squeue -h -o %i > /dev/null 2>&1; then
      b=$(date +%s%N); echo "$(( (b - a) / 1000000 ))" >> "$sdir/lat_all"
    else echo FAIL >> "$sdir/lat_all"; fi
    a=$(date +%s%N)
    if timeout 30 squeue -h -j "$blk" -o %i > /dev/null 2>&1; then
      b=$(date +%s%N); echo "$(( (b - a) / 1000000 ))" >> "$sdir/lat_one"
    else echo FAIL >> "$sdir/lat_one"; fi
    sleep 0.5
  done
}
submitter() { # k
  local i
  for i in $(seq "$per"); do
    sbatch --parsable -D "$JOBDIR" -o /dev/null -J storm -N1 -t 1 --wrap true \
      >> "$sdir/ids.$1" 2>> "$sdir/err.$1" || echo "sbatch failed" >> "$sdir/err.$1"
  done
}
rm -f "$sdir"/*
cycles0=$(sdiag | awk -F: '/Total cycles/{n++; if (n==2) {gsub(/ /,"",$2); print $2}}')
probe & probe_pid=$!
t0=$(date +%s.%N)
pids=()
for k in $(seq $submitters); do submitter "$k" & pids+=($!); done
for p in "${pids[@]}"; do wait "$p"; done
t1=$(date +%s.%N)
touch "$sdir/stop"; wait "$probe_pid"
cycles1=$(sdiag | awk -F: '/Total cycles/{n++; if (n==2) {gsub(/ /,"",$2); print $2}}')
secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b-a}')
rate=$(awk -v a="$t0" -v b="$t1" -v n="$total" 'BEGIN{printf "%.0f", n/(b-a)}')
accepted=$(cat "$sdir"/ids.* | grep -c '^[0-9]')
echo "    $accepted jobs accepted in $secs s ($rate submissions/s); backfill passes during the storm: $((cycles1 - cycles0))"
sdiag | sed -n '/Backfilling stats/,/Last queue length/p' | grep -E "Last cycle:|Max cycle|Mean cycle|Last queue length" | sed 's/^\s*/    backfill: /'
check_eq "every sbatch returned a job id" "$total" "$accepted"
check "no sbatch reported an error" bash -c "! cat '$sdir'/err.* | grep -q ."
cat "$sdir"/err.* 2> /dev/null | sort | uniq -c | head -5

for kind in all one; do
  n=$(grep -c . "$sdir/lat_$kind"); nf=$(grep -c FAIL "$sdir/lat_$kind")
  p50=$(grep -v FAIL "$sdir/lat_$kind" | percentile 50)
  p99=$(grep -v FAIL "$sdir/lat_$kind" | percentile 99)
  mx=$(grep -v FAIL "$sdir/lat_$kind" | percentile 100)
  label=$([ $kind = all ] && echo "squeue (all jobs)" || echo "squeue -j (one job)")
  echo "    $label during the storm: $n samples, p50 $p50 ms, p99 $p99 ms, max $mx ms"
  check_eq "$label never failed or timed out (30 s)" 0 "$nf"
  check "$label answered during the storm" test "$n" -ge 5
done

say "none lost"
cat "$sdir"/ids.* | cut -d';' -f1 | sort -n > "$sdir/submitted"
check_eq "no job id was handed out twice" "$total" "$(sort -u "$sdir/submitted" | wc -l)"
squeue -h -t all -n storm -o %i | sort -n > "$sdir/queued"
check_eq "slurmctld knows every submitted job" "" "$(comm -23 "$sdir/submitted" "$sdir/queued" | head -5 | tr '\n' ' ')"
check_eq "all of them are pending behind the blocking job" "$total" "$(squeue -h -t PD -n storm -o %i | wc -l)"
check "backfill planned the queue after the storm" wait_until 120 bash -c \
  "sdiag | awk -F: '/Last queue length/{gsub(/ /,\"\",\$2); if (\$2 >= $total) ok=1} END{exit !ok}'"

say "cancel the storm, the cluster schedules again"
t0=$(date +%s.%N)
scancel --name=storm
check "the storm jobs are gone" wait_until 120 bash -c "[ -z \"\$(squeue -h -t PD -n storm -o %i | head -1)\" ]"
echo "    scancel of $total jobs took $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s"
scancel "$blk"
j=$(submit -N4 --exclusive -t 1 --wrap 'sleep 1')
check "a new job runs to completion" wait_until 60 job_is "$j" COMPLETED
check "slurmctld is alive" ctld_alive
finish
