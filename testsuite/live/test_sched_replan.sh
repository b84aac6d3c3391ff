#!/bin/bash
# sched/fairway re-plans when the cluster changes under it:
#  0. a waiting job's Reason does not flip between passes;
#  A. scancel of the job holding the first reservation moves the next one
#     earlier and clears the cancelled job's SchedNodeList;
#  B. a node going DOWN moves planned nodes off it, a plan that no longer
#     fits is cleared, and the plan comes back with the node;
#  C. scontrol reconfigure: a new bf_window takes effect at once; slow
#     (yielding) passes are cut by bf_max_time; a reconfigure while such a
#     pass runs abandons it and the next one rebuilds the same plan;
#  D. a slurmctld restart with running and queued jobs loses nothing: the
#     jobs, the plan and the bypass counts come back.
# Expected start times are computed from the running job's StartTime and
# the time limits (one minute per -t 1; bf_resolution=1 makes them exact).
source "$(dirname "$0")/lib.sh"

params="sched_interval=-1,defer,bf_interval=1,bf_resolution=1"
extra=$(mktemp)
echo "SchedulerParameters=$params,bf_window=120" > "$extra"
start_cluster fw-s-replan 17400 --slurm-extra "$extra"
rm -f "$extra"
conf=$SLURM_CONF
set_sched_params() { # replace SchedulerParameters in slurm.conf
  sed -i "s/^SchedulerParameters=.*/SchedulerParameters=$1/" "$conf"
}

reason_is() { [ "$(squeue -h -j "$1" -o %r)" = "$2" ]; }
say "0. a waiting job's Reason is stable from pass to pass"
a=$(submit -N2 --exclusive -t 3 -J A0 --wrap "sleep 300")
b=$(submit -N1 --exclusive -t 1 -J B0 --wrap "sleep 300")
wait_until 10 job_is "$b" RUNNING
w=$(submit -N4 --exclusive -t 1 -J W0 --wrap "sleep 5")
x=$(submit -N2 --exclusive -t 1 -J X0 --wrap "sleep 5")
# X0 fits between B0's end and A0's end (two free nodes, ends 1 min
# before W0's reservation): planned at B0's end, behind W0 in priority.
check "X0 planned at B0's end" wait_until 10 start_is "$x" $(( $(start_epoch "$b") + 60 ))
check "X0 waits behind W0 (Reason=Priority)" wait_until 5 reason_is "$x" Priority
flips=0
for _ in $(seq 12); do sleep 0.25; reason_is "$x" Priority || flips=$((flips + 1)); done
check_eq "X0's reason did not change over 3 s of passes" 0 "$flips"
scancel "$a" "$b" "$w" "$x"
wait_until 20 queue_empty

say "A. scancel of the job holding the reservation"
a=$(submit -N2 --exclusive -t 3 -J A --wrap "sleep 300")
check "A runs" wait_until 10 job_is "$a" RUNNING
a_end=$(( $(start_epoch "$a") + 180 ))          # -t 3
w=$(submit -N4 --exclusive -t 1 -J W --wrap "sleep 5")
w2=$(submit -N3 --exclusive -t 1 -J W2 --wrap "sleep 5")
# W needs all four nodes: A's end.  W2 needs three: after W (+1 min).
check "W planned at A's end" wait_until 10 start_is "$w" "$a_end"
check "W2 planned after W (A's end + 60 s)" wait_until 10 start_is "$w2" $((a_end + 60))
check_eq "W's SchedNodeList" "n[1-4]" "$(sched_nodes "$w")"
check "W2 waits behind W (Reason=Priority)" wait_until 5 reason_is "$w2" Priority
sleep 2
check "... and keeps that reason over several passes" reason_is "$w2" Priority
scancel "$w"
check "after scancel W2 moves to A's end" wait_until 10 start_is "$w2" "$a_end"
check "cancelled W has no SchedNodeList" wait_until 5 bash -c "[ -z \"\$(scontrol show job $w | sed -n 's/.*SchedNodeList=\([^ ]*\).*/\1/p')\" ]"
check "W2 now waits for Resources" wait_until 5 reason_is "$w2" Resources
check_eq "W2's SchedNodeList" "n[1-3]" "$(sched_nodes "$w2")"

say "B. a node goes DOWN and comes back"
scontrol update nodename=n3 state=down reason=fairway-test
check "W2's planned nodes avoid the down node" wait_until 10 bash -c \
  "[ \"\$(scontrol show job $w2 | sed -n 's/.*SchedNodeList=\([^ ]*\).*/\1/p')\" = 'n[1-2,4]' ]"
check "W2's start is unchanged (A's end)" start_is "$w2" "$a_end"
scontrol update nodename=n4 state=down reason=fairway-test
# Only n1, n2 left: W2 (three nodes) cannot be planned at all.
check "with two nodes left W2's StartTime is cleared" wait_until 10 start_is "$w2" none
check_eq "... and its SchedNodeList too" "" "$(sched_nodes "$w2")"
check_eq "W2 is still pending" PENDING "$(job_state "$w2")"
check_eq "W2 keeps its priority (not held)" 0 "$([ "$(job_field "$w2" Priority)" -gt 0 ]; echo $?)"
scontrol update nodename=n3,n4 state=resume
check "nodes back: W2 planned at A's end again" wait_until 10 start_is "$w2" "$a_end"
check_eq "W2's SchedNodeList back to n[1-3]" "n[1-3]" "$(sched_nodes "$w2")"

say "C. scontrol reconfigure"
# W2 starts at A's end, more than one minute from now: outside a 1-minute
# window, so a reconfigure to bf_window=1 must drop its StartTime.
left=$((a_end - $(date +%s)))
check "A's end is more than 70 s away ($left s)" test "$left" -gt 70
set_sched_params "$params,bf_window=1"
check "scontrol reconfigure (bf_window=1) returns" timeout 20 scontrol reconfigure
check "W2 is beyond the 1-minute window: no StartTime" wait_until 10 start_is "$w2" none
# Slow passes: every decision yields the locks for 0.2 s, so with ten
# queued jobs a pass lasts at least 2 s.  bf_max_time defaults to
# bf_interval (1 s): the pass stops before it reaches the last jobs.
set_sched_params "$params,bf_window=120,bf_yield_interval=1,bf_yield_sleep=200000"
timeout 20 scontrol reconfigure
q=()
for i in 1 2 3 4 5 6 7 8 9; do q+=("$(submit -N4 --exclusive -t 1 -J Q$i --wrap "sleep 1")"); done
check "Q1 planned at A's end + 60 s" wait_until 10 start_is "${q[0]}" $((a_end + 60))
check "a pass is stopped by bf_max_time (= bf_interval)" wait_until 10 grep -q "backfill pass stopped by bf_max_time" "$_cluster_dir/log/slurmctld.log"
check_eq "... so Q9, the tenth job, is not planned" none "$(start_epoch "${q[8]}")"
# With room for whole passes, a reconfigure lands inside one.
set_sched_params "$params,bf_window=120,bf_yield_interval=1,bf_yield_sleep=200000,bf_max_time=30"
timeout 20 scontrol reconfigure
abandoned_before=$(grep -c "pass abandoned after a lock yield" <(ctld_log))
for _ in 1 2 3 4 5; do
  sleep 0.7
  timeout 20 scontrol reconfigure
  wait_until 4 bash -c "[ \$(grep -c 'pass abandoned after a lock yield' $_cluster_dir/log/slurmctld.log) -gt $abandoned_before ]" && break
done
check "a reconfigure during a pass abandons it" \
  test "$(grep -c "pass abandoned after a lock yield" <(ctld_log))" -gt "$abandoned_before"
check "slurmctld is alive after reconfigures" bash -c 'scontrol ping | grep -q "is UP"'
# Rebuilt plan (conservative): W2 at A's end, then Q1..Q9 one minute each.
check "after the reconfigure W2 is planned at A's end" wait_until 15 start_is "$w2" "$a_end"
ok=1
for i in "${!q[@]}"; do
  want=$((a_end + 60 * (i + 1)))
  wait_until 10 start_is "${q[$i]}" "$want" || { ok=0; echo "    Q$((i + 1)): want $want got $(start_epoch "${q[$i]}")"; }
done
check "Q1..Q9 planned one after the other from A's end + 60 s" test "$ok" = 1
scancel "${q[@]}"
set_sched_params "$params,bf_window=120"
timeout 20 scontrol reconfigure

say "D. slurmctld restart with running and queued jobs"
s=$(submit -N1 --exclusive -t 1 -J S --wrap "sleep 300")
check "a short narrow job is backfilled" wait_until 10 job_is "$s" RUNNING
check "W2 counts one bypass (fairway plan)" wait_until 5 bash -c \
  "\"$FW_BUILD/src/cli/fairway\" plan $w2 | grep -q 'Bypassed by lower-priority jobs: 1 time$'"
# Held, W2 is out of the queue for a few passes: its count must survive.
scontrol hold "$w2"
check "held W2 loses its plan" wait_until 10 start_is "$w2" none
sleep 2
scontrol release "$w2"
check "released W2 is planned again" wait_until 10 start_is "$w2" "$a_end"
check "W2 kept its bypass count while held" bash -c \
  "\"$FW_BUILD/src/cli/fairway\" plan $w2 | grep -q 'Bypassed by lower-priority jobs: 1 time$'"
d1=$(submit -N1 -t 1 -J D1 -d "afterok:$a" --wrap "true")
h=$(submit -N1 -t 1 -J H -H --wrap "true")
before=$(squeue -h -o "%i %T %P %j" | sort)
echo "$before" | sed 's/^/    before: /'
check "slurmctld restarts" restart_ctld
after=$(squeue -h -o "%i %T %P %j" | sort)
echo "$after" | sed 's/^/    after:  /'
check_eq "same jobs in the same states after the restart" "$before" "$after"
check "the plan is rebuilt: W2 at A's end" wait_until 15 start_is "$w2" "$a_end"
check_eq "W2's SchedNodeList after the restart" "n[1-3]" "$(sched_nodes "$w2")"
check "bypass counts restored" grep -q "restored bypass counts" <(ctld_log)
check "W2 still counts one bypass" bash -c \
  "\"$FW_BUILD/src/cli/fairway\" plan $w2 | grep -q 'Bypassed by lower-priority jobs: 1 time$'"
check_eq "dependent job still waits on A" Dependency "$(squeue -h -j "$d1" -o %r)"
check_eq "held job still held" JobHeldUser "$(squeue -h -j "$h" -o %r)"
n=$(submit -N1 -t 1 -J N --wrap "true")
check "new job ids continue after the old ones" test "$n" -gt "$h"
scancel "$a" "$s" "$h"
check "W2 starts once A and S are gone" wait_until 15 job_is "$w2" RUNNING
finish
