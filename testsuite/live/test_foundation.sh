#!/bin/bash
# Foundation: both Fairway plugins load into a real slurmctld, sched/fairway
# starts jobs in priority order, priority/fairway serves sprio numbers whose
# columns add up to the PRIORITY column.
source "$(dirname "$0")/lib.sh"

start_cluster fw-found 17200

say "plugins loaded"
check "slurmctld log shows priority/fairway loaded" grep -q "priority/fairway loaded" <(ctld_log)
check "slurmctld log shows sched/fairway loaded" grep -q "sched/fairway loaded" <(ctld_log)
check_eq "scontrol shows PriorityType" "priority/fairway" \
  "$(scontrol show config | awk -F'= ' '/^PriorityType/{print $2}')"
check_eq "scontrol shows SchedulerType" "sched/fairway" \
  "$(scontrol show config | awk -F'= ' '/^SchedulerType/{print $2}')"

say "a whole-cluster job runs, two more wait for it"
j1=$(submit -N4 --exclusive -t 2 --wrap "sleep 8")
wait_until 20 job_is "$j1" RUNNING || fail "job $j1 did not start"
j2=$(submit -N4 --exclusive -t 2 --wrap "sleep 1")
j3=$(submit -N4 --exclusive -t 2 --wrap "sleep 1")
sleep 2
check_eq "job $j2 pending while $j1 runs" PENDING "$(job_state "$j2")"

say "sprio shows Fairway's factors and they add up"
# Weighted values (%A, %P), as sprio -l shows them.
out=$(sprio -h -o "%i %Y %S %A %P" -j "$j2")
echo "    sprio: $out"
read -r id prio site age part <<< "$out"
check_eq "sprio lists job $j2" "$j2" "$id"
# PriorityWeightPartition=1000 and a single partition (normalised factor 1):
# partition term 1000.  Age after a few seconds of PriorityMaxAge=1 day with
# weight 1000 is below one point.
check_eq "partition factor is 1000 (weight 1000 x 1.0)" 1000 "$part"
check "age factor between 0 and 1 after seconds" awk -v a="$age" 'BEGIN{exit !(a>=0 && a<1)}'
sum=$(awk -v s="$site" -v a="$age" -v p="$part" 'BEGIN{printf "%.0f", s+a+p}')
check_eq "columns add up to PRIORITY" "$prio" "$sum"
check_eq "job record priority equals sprio's" "$prio" "$(job_field "$j2" Priority)"

say "all jobs run to completion through sched/fairway"
check "queue drains" wait_until 60 queue_empty
for j in $j1 $j2 $j3; do
  check_eq "job $j completed" COMPLETED "$(job_state "$j")"
done
check "sched/fairway started the jobs" grep -q "sched/fairway: started JobId=$j3" <(ctld_log)
# Priority order with equal priorities: submit order (j2 before j3).
s2=$(job_field "$j2" StartTime); s3=$(job_field "$j3" StartTime)
check "job $j2 started no later than $j3 ($s2 <= $s3)" test "$s2" \< "$s3" -o "$s2" = "$s3"

say "a second cluster runs side by side (own munge, ports, state)"
d2="$FW_LIVE_DIR/fw-found-2"
if bash "$FW_TOP/contrib/cluster-start.sh" --dir "$d2" --name fw-found-2 --port "$(live_port 17250)" \
     --nodes 2 --plugins "$FW_BUILD/plugins" > "$FW_LIVE_DIR/fw-found-2.start.log" 2>&1; then
  check_eq "second cluster has 2 idle nodes" 2 \
    "$(SLURM_CONF=$d2/etc/slurm.conf sinfo -h -N -t idle -o %N | sort -u | wc -l)"
  check_eq "first cluster still has 4 nodes" 4 "$(sinfo -h -N -o %N | sort -u | wc -l)"
  j=$(SLURM_CONF=$d2/etc/slurm.conf sbatch --parsable -D "$JOBDIR" -o /dev/null -N2 -t 1 --wrap true)
  check "job runs on the second cluster" wait_until 30 \
    bash -c "SLURM_CONF=$d2/etc/slurm.conf scontrol show job $j | grep -q JobState=COMPLETED"
else
  fail "second cluster did not start; see $FW_LIVE_DIR/fw-found-2.start.log"
fi
bash "$FW_TOP/contrib/cluster-stop.sh" --dir "$d2" > /dev/null 2>&1
# (the bracket keeps pgrep from matching its own command line)
check "second cluster's daemons are gone" bash -c "! pgrep -f '$FW_LIVE_DIR/[f]w-found-2/etc' >/dev/null"

finish
