#!/bin/bash
# ReservationOrder=submit on a real slurmctld (fairway.conf(5)): with
# ReservationDepth=easy the one protected reservation goes to the oldest
# pending job, not to the job of highest priority:
#  - an old wide job O of low priority is reserved at the running job's end;
#  - a younger long narrow job Y of higher priority, which the priority
#    order would start at once on an idle node, waits because it would
#    delay O;
#  - a younger short narrow job is backfilled around O;
#  - O starts no later than its first reported StartTime.
source "$(dirname "$0")/lib.sh"

extra=$(mktemp)
fwconf=$(mktemp)
cat > "$extra" <<'EOF2'
SchedulerParameters=sched_interval=-1,defer,bf_interval=1,bf_resolution=1,bf_window=120
PriorityWeightAge=0
PriorityWeightPartition=1000
EOF2
cat > "$fwconf" <<'EOF2'
ReservationDepth=easy
ReservationOrder=submit
EOF2
start_cluster fw-oldest 17460 --slurm-extra "$extra" --fairway-conf "$fwconf"
rm -f "$extra" "$fwconf"

# 4 nodes.  A holds 2 of them for at most 2 minutes (it runs 45 s: the
# checks below take about 15 s, and O is planned at the limit's end).
a=$(submit -N2 --exclusive -t 2 -J A --wrap "sleep 45")
wait_until 10 job_is "$a" RUNNING || fail "A did not start"
o=$(submit -N4 --exclusive -t 1 -J O --wrap "sleep 5")
wait_until 10 bash -c "[ \"\$(squeue -h -j $o -o %S)\" != N/A ]"
first_start=$(epoch "$(squeue -h -j "$o" -o %S)")
check_eq "O has priority 1000 (partition factor)" 1000 "$(job_field "$o" Priority)"
check "O's StartTime is A's end (A's start + 2 min)" \
  test "$first_start" -le $(( $(epoch "$(job_field "$a" StartTime)") + 121 ))
# Y: younger, 10 minutes on one node, priority 2000 (nice -1000).  In
# priority order it is the top job and one of the two idle nodes is its.
y=$(submit -N1 --exclusive -t 10 -J Y --hold --wrap "sleep 3")
scontrol update jobid="$y" nice=-1000
scontrol release "$y"
s=$(submit -N1 --exclusive -t 1 -J short --wrap "sleep 3")
check "a short younger job is backfilled around O" wait_until 10 job_is "$s" RUNNING
sleep 3
check_eq "Y has priority 2000" 2000 "$(job_field "$y" Priority)"
check_eq "Y, higher priority but younger, waits: it would delay O" PENDING "$(job_state "$y")"
check "Y's StartTime is not before O's reservation" \
  test "$(epoch "$(squeue -h -j "$y" -o %S)")" -ge "$first_start"
check "O starts" wait_until 150 job_is "$o" RUNNING
check "O started no later than its first reported StartTime" \
  test "$(epoch "$(job_field "$o" StartTime)")" -le "$first_start"
check "Y runs after O" wait_until 30 job_is "$y" RUNNING
scancel "$y" 2>/dev/null
wait_until 30 queue_empty
finish
