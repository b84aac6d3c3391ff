#!/bin/bash
# Backfill with reservation thresholds on a real slurmctld:
#  - a wide job that holds a protected reservation: a short narrow job is
#    backfilled, a long narrow job that would delay it is not, and the wide
#    job starts no later than its first reported StartTime;
#  - a job below bf_min_prio_reserve is delayed by a backfilled job, and is
#    protected once its priority crosses the threshold.
source "$(dirname "$0")/lib.sh"

extra=$(mktemp)
cat > "$extra" <<'EOF2'
SchedulerParameters=sched_interval=-1,defer,bf_interval=1,bf_resolution=1,bf_window=120,bf_min_prio_reserve=1500
PriorityWeightAge=0
PriorityWeightPartition=1000
EOF2
start_cluster fw-bf 17240 --slurm-extra "$extra"
rm -f "$extra"

say "part 1: a protected wide job (priority raised above bf_min_prio_reserve=1500)"
# A runs 45 s of its 2-minute limit: the checks below take about 15 s,
# and W is planned at the limit's end but starts when A ends.
a=$(submit -N2 --exclusive -t 2 -J A --wrap "sleep 45")
wait_until 10 job_is "$a" RUNNING || fail "A did not start"
w=$(submit -N4 --exclusive -t 1 -J W --wrap "sleep 5")
# Partition factor gives 1000 points; an operator lowers nice by 1000 so W
# has 2000 >= 1500 and holds a reservation (what a buy-in QOS would do).
scontrol update jobid="$w" nice=-1000
wait_until 10 bash -c "[ \"\$(squeue -h -j $w -o %S)\" != N/A ]"
first_start=$(epoch "$(squeue -h -j "$w" -o %S)")
check_eq "W has priority 2000" 2000 "$(job_field "$w" Priority)"
check "W's StartTime is A's end (A's start + 2 min)" \
  test "$first_start" -le $(( $(epoch "$(job_field "$a" StartTime)") + 121 ))
s=$(submit -N1 --exclusive -t 1 -J short --wrap "sleep 3")
l=$(submit -N1 --exclusive -t 10 -J long --wrap "sleep 3")
check "short narrow job is backfilled at once" wait_until 10 job_is "$s" RUNNING
sleep 3
check_eq "long narrow job that would delay W waits" PENDING "$(job_state "$l")"
check "long job's StartTime is after W's reservation" \
  test "$(epoch "$(squeue -h -j "$l" -o %S)")" -ge "$first_start"
check "sched/fairway logged the backfill start" grep -q "started JobId=$s .*(backfill)" <(ctld_log)
check_eq "sdiag counts the backfilled job" 1 \
  "$(sdiag | awk -F: '/Total backfilled jobs \(since last slurm start\)/{gsub(/ /,"",$2); print $2}')"
check "W starts" wait_until 150 job_is "$w" RUNNING
check "W started no later than its first reported StartTime" \
  test "$(epoch "$(job_field "$w" StartTime)")" -le "$first_start"
scancel "$l"
wait_until 30 queue_empty

say "part 2: a wide job below the threshold is delayed by backfill; protected once above"
a=$(submit -N2 --exclusive -t 2 -J A2 --wrap "sleep 100")
wait_until 10 job_is "$a" RUNNING || fail "A2 did not start"
w=$(submit -N4 --exclusive -t 1 -J W2 --wrap "sleep 5")
sleep 2
check_eq "W2 has priority 1000 (< 1500)" 1000 "$(job_field "$w" Priority)"
l=$(submit -N1 --exclusive -t 10 -J long2 --wrap "sleep 200")
check "a long narrow job is started although it delays unprotected W2" wait_until 10 job_is "$l" RUNNING
l_end=$(( $(epoch "$(job_field "$l" StartTime)") + 600 ))
# the next backfill pass (bf_interval=1) re-estimates W2
check "W2's estimate moved to the long job's end" wait_until 10 bash -c \
  "[ \$(date -d \"\$(squeue -h -j $w -o %S)\" +%s) -ge $((l_end - 2)) ]"
scontrol update jobid="$w" nice=-1000
sleep 2
check_eq "W2 now has priority 2000" 2000 "$(job_field "$w" Priority)"
l3=$(submit -N1 --exclusive -t 10 -J long3 --wrap "sleep 3")
sleep 4
check_eq "once protected, a new long narrow job does not start" PENDING "$(job_state "$l3")"
if command -v fairway >/dev/null || [ -x "$FW_BUILD/src/cli/fairway" ]; then
  out=$("$FW_BUILD/src/cli/fairway" plan "$l3")
  echo "$out" | sed 's/^/    /'
  check "fairway plan names the blocking reservation" grep -q "reserved for higher-priority job $w" <<< "$out"
fi
finish
