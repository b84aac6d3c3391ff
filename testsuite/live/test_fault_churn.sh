#!/bin/bash
# The cluster changes under sched/fairway's passes:
#  1. reconfigure with changed weights: a waiting job's priority follows
#     the new PriorityWeightPartition (computed by hand); a fairway.conf
#     with an unknown key is rejected at reconfigure and the old
#     configuration stays;
#  2. 15 s (up to 45 s, until 5 changes were sent while sdiag showed a pass
#     running) of churn while 60 short jobs are scheduled: nodes set DOWN (their
#     jobs are requeued by Slurm) and resumed, drained and resumed, the
#     partition shrunk and grown and set DOWN and UP, a partition created
#     and deleted, reconfigures (jobs in two partitions: both are in
#     slurm.conf, since Slurm fails jobs of a partition that a reconfigure
#     removes), running jobs requeued and cancelled,
#     pending jobs cancelled.  Backfill runs every second and yields its
#     locks every 200 us for 20 ms, so most changes land inside a pass;
#  3. afterwards: slurmctld never died, every job that was not cancelled
#     ran to completion (requeued ones again), only cancelled jobs are
#     CANCELLED, and Fairway logged no error.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fault_lib.sh"

name=fw-fchurn
extra=$(mktemp)
cat > "$extra" <<EOF2
SchedulerParameters=sched_interval=-1,defer,bf_interval=1,bf_yield_interval=200,bf_yield_sleep=20000,bf_continue
PriorityWeightAge=0
PriorityWeightPartition=1000
AuthInfo=socket=$FW_LIVE_DIR/$name/munge/munge.sock,cred_expire=10
PartitionName=extra Nodes=n[3-4] State=UP PriorityJobFactor=1
EOF2
start_cluster $name 17550 --slurm-extra "$extra"
rm -f "$extra"
conf="$_cluster_dir/etc/slurm.conf"
ctld=$(ctld_pid)

say "1. reconfigure with changed weights"
blk=$(submit -N4 --exclusive -t 1 -J block --wrap 'sleep 30')
wait_until 20 job_is "$blk" RUNNING || fail "blocker did not start"
w=$(submit -N1 -t 1 -J waiter --wrap 'sleep 1')
# one partition, PriorityJobFactor=1: normalised partition factor 1.0;
# PriorityWeightAge=0, no other weights: priority = 1000 x 1.0
check "waiting job has priority 1000" wait_until 10 bash -c "[ \"\$(squeue -h -j $w -o %Q)\" = 1000 ]"
mark=$(log_mark)
sed -i 's/^PriorityWeightPartition=1000$/PriorityWeightPartition=3000/' "$conf"
scontrol reconfigure
# 3000 x 1.0
check "after reconfigure its priority is 3000" wait_until 30 bash -c "[ \"\$(squeue -h -j $w -o %Q)\" = 3000 ]"
check "both plugins reloaded" wait_until 10 bash -c \
  "tail -c +$((mark + 1)) '$_cluster_dir/log/slurmctld.log' | grep -q 'priority/fairway: configuration reloaded'"
mark=$(log_mark)
echo "NoSuchKey=1" > "$_cluster_dir/etc/fairway.conf"
scontrol reconfigure
check "a fairway.conf with an unknown key is rejected at reconfigure" wait_until 20 bash -c \
  "tail -c +$((mark + 1)) '$_cluster_dir/log/slurmctld.log' | grep -q 'priority/fairway: .*NoSuchKey=1: .*; reconfigure rejected, the previous configuration stays in effect'"
log_since "$mark" | grep -E "fairway.conf|rejected" | sed 's/^/    log: /' | head -4
sleep 2
check_eq "the previous weights stay in effect" 3000 "$(squeue -h -j "$w" -o %Q)"
rm -f "$_cluster_dir/etc/fairway.conf"
scontrol reconfigure
scancel "$blk" "$w"
wait_until 30 queue_empty

say "2. 15 s of churn while 60 jobs are scheduled"
ids=()
for i in $(seq 60); do
  p=batch; [ $((i % 5)) = 0 ] && p=batch,extra
  ids+=("$(submit -N1 -t 2 -p $p -J churn --wrap "sleep $((1 + i % 3))")")
done
mark_churn=$(log_mark)
declare -A cancelled
# 15 s at least; longer (up to 45 s) until 5 changes were sent during a
# pass: on a quiet machine a pass over 60 jobs is short, and catching it
# is luck (2 of 17 changes once, in a CI run).
actions=0; t_min=$((SECONDS + 15)); t_max=$((SECONDS + 45))
rand_job() { squeue -h -t "$1" -n churn -o %i | shuf -n1; }
# wait (up to 2 s) until a pass is running (sdiag takes no slurmctld lock
# and reports bf_active, which sched/fairway sets for each pass), so that
# the next change arrives while the pass holds or has yielded its locks
inpass=0
in_pass() {
  local end=$((SECONDS + 2))
  while [ $SECONDS -lt $end ]; do
    sdiag 2> /dev/null | grep -q "middle of backfilling" && { inpass=$((inpass + 1)); return 0; }
  done
  return 0
}
while [ $SECONDS -lt $t_min ] || { [ $inpass -lt 5 ] && [ $SECONDS -lt $t_max ]; }; do
  in_pass
  case $((RANDOM % 12)) in
    0) scontrol update nodename=n$((1 + RANDOM % 4)) state=down reason=churn;;
    1) for n in 1 2 3 4; do scontrol update nodename=n$n state=resume 2> /dev/null; done;;
    2) scontrol update nodename=n$((1 + RANDOM % 4)) state=drain reason=churn;;
    3) scontrol update partitionname=batch nodes=n[1-$((2 + RANDOM % 3))];;
    4) scontrol update partitionname=batch state=down
       sleep 0.2; scontrol update partitionname=batch state=up;;
    5) scontrol update partitionname=batch nodes=n[1-4];;
    6) scontrol reconfigure;;
    11) scontrol create partitionname=tmp nodes=n[1-2] state=up 2> /dev/null
        sleep 0.2; scontrol delete partitionname=tmp 2> /dev/null;;
    7|8) j=$(rand_job R); [ -n "$j" ] && scontrol requeue "$j" 2> /dev/null;;
    9) j=$(rand_job R); [ -n "$j" ] && scancel "$j" && cancelled[$j]=1;;
    10) j=$(rand_job PD); [ -n "$j" ] && scancel "$j" && cancelled[$j]=1;;
  esac
  actions=$((actions + 1))
  ctld_alive || break
  sleep 0.$((RANDOM % 3))
done
echo "    $actions changes; ${#cancelled[@]} jobs cancelled; $inpass changes sent while sdiag showed a pass running"
check "changes were sent during passes" test "$inpass" -ge 5
check "slurmctld survived the churn" ctld_alive
check_eq "slurmctld is the same process" "$ctld" "$(ctld_pid)"

say "3. everything back: every job that was not cancelled completes"
for n in 1 2 3 4; do scontrol update nodename=n$n state=resume 2> /dev/null; done
scontrol update partitionname=batch nodes=n[1-4] state=up
# requeued jobs wait cred_expire (10 s) before they may start again
check "the queue drains" wait_until 240 queue_empty
bad=0; done_n=0
for j in "${ids[@]}"; do
  s=$(job_state "$j")
  if [ -n "${cancelled[$j]:-}" ]; then
    [ "$s" = CANCELLED ] || [ "$s" = COMPLETED ] || { bad=$((bad + 1)); echo "    job $j (cancelled): $s"; }
  else
    [ "$s" = COMPLETED ] && done_n=$((done_n + 1)) || { bad=$((bad + 1)); echo "    job $j: $s"; }
  fi
done
echo "    $done_n jobs completed, ${#cancelled[@]} cancelled"
check_eq "no job ended otherwise" 0 "$bad"
aband=$(log_since "$mark_churn" | grep -c "pass abandoned after a lock yield" || true)
yields=$(log_since "$mark_churn" | grep -c "sched/fairway: started" || true)
echo "    passes abandoned after a lock yield: $aband; jobs started: $yields"
check "no Fairway error during the churn" bash -c \
  "! tail -c +$((mark_churn + 1)) '$_cluster_dir/log/slurmctld.log' | grep -E 'error: (priority|sched)/fairway'"
check "no fatal or crash in the log" bash -c "! grep -qiE 'fatal|segfault|assert' '$_cluster_dir/log/slurmctld.log'"
check "slurmctld is alive" ctld_alive
finish
