#!/bin/bash
# sched/fairway with preemption on select/linear (issue 16): every job
# holds whole nodes, so a victim frees its nodes whole.  2 nodes of 4
# CPUs, SelectType=select/linear, PreemptType=preempt/partition_prio,
# PreemptMode=REQUEUE, GraceTime 0, no slurmdbd.  Partitions on both
# nodes: low (PriorityTier 1), low2 (2), peer (1, PreemptMode=OFF), lowc
# (1, PreemptMode=CANCEL), high (10, PreemptMode=OFF).  The same scenario
# runs at the same time on a second cluster of the same shape under
# Slurm's own priority/multifactor + sched/backfill; both are printed.
# Expected values by hand from Slurm's documented behaviour (select/linear
# allocates whole nodes; preempt/partition_prio lets a job preempt jobs of
# partitions of lower PriorityTier, lower tier first):
#  1. a 1-CPU low job holds n1 and a 1-CPU low2 job n2 (whole nodes, 3
#     CPUs idle on each); a 1-CPU peer job (tier 1) waits and preempts
#     nobody; a 1-CPU high job cannot share a node, so it starts within a
#     few seconds by preempting exactly the low job (lowest tier) and runs
#     on n1; the low job is requeued (pending, Restarts=1); fairway explain
#     of the low2 job says partition high may preempt it;
#  2. cancel mode, two nodes: lowc jobs hold n1 and n2; a 2-node high job
#     preempts both, which are cancelled (PREEMPTED);
#  3. a high job (not preemptable) holds n1, a low2 job n2: a 2-node high
#     job cannot get two nodes by preempting, so it waits and preempts
#     nobody (preempting the low2 job alone would lose its work for
#     nothing).
# With the plugin before select/linear preemption, parts 1 and 2 fail:
# the high jobs wait for the scavengers' 5-minute limits.  Fairway must
# preempt no more jobs than sched/backfill and start each high job no
# later (3 s tolerance for pass timing).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/twin_lib.sh"

shape=(--nodes 2 --cpus 4 --select-type select/linear)
common=$PARTPRIO_CONF

scen() {
  local l h p o1 o2 o3 t v x states=""
  say "1. a low job holds n1, a low2 job n2 (whole nodes)"
  l=$(submit -p low -w n1 -n 1 -t 5 --wrap 'sleep 300')
  h=$(submit -p low2 -w n2 -n 1 -t 5 --wrap 'sleep 300')
  wait_until 15 all_running 2
  echo "filled $(running_count) cpus:$(squeue -h -t R -o %C | awk '{s+=$1} END {print s+0}')"
  p=$(submit -p peer -n 1 -t 2 --wrap 'sleep 60')
  sleep 4
  echo "peer_state $(job_state "$p") $(npre "$p")"
  t=$(date +%s); o1=$(submit -p high -n 1 -t 2 --wrap 'sleep 120')
  wait_until 30 job_is "$o1" RUNNING
  echo "o1_delay $(since "$o1" "$t")"
  echo "o1_preempted $(npre "$o1")"
  echo "o1_victim_is_low $([ "$(preempted_for "$o1")" = "$l" ] && echo yes || echo "no:$(preempted_for "$o1")")"
  echo "o1_node $(node_of "$o1")"
  echo "low_requeued $(job_state "$l") Restarts=$(job_field "$l" Restarts)"
  echo "peer_after $(job_state "$p") $(npre "$p")"
  [ "${FW_EXPLAIN:-1}" = 1 ] &&
    echo "explain_running $(fairway_cmd explain "$h" 2>&1 | grep -c 'may be preempted (REQUEUE) by jobs of partition high')"
  scancel -u root; wait_until 30 queue_empty

  say "2. cancel mode: lowc jobs hold both nodes, a 2-node high job"
  for x in 1 2; do submit -p lowc -w "n$x" -n 1 -t 5 --wrap 'sleep 300' > /dev/null; done
  wait_until 20 all_running 2
  t=$(date +%s); o2=$(submit -p high -N 2 -t 2 --wrap 'sleep 120')
  wait_until 30 job_is "$o2" RUNNING
  echo "o2_delay $(since "$o2" "$t")"
  echo "o2_preempted $(npre "$o2")"
  v=$(preempted_for "$o2")
  for x in $v; do states+="$(job_state "$x") "; done
  echo "o2_states $(echo $states | tr ' ' '\n' | sort -u | paste -sd,)"
  scancel -u root; wait_until 30 queue_empty

  say "3. a high job holds n1: a 2-node high job waits, preempts nobody"
  submit -p high -w n1 -n 1 -t 5 --wrap 'sleep 300' > /dev/null
  submit -p low2 -w n2 -n 1 -t 5 --wrap 'sleep 300' > /dev/null
  wait_until 20 all_running 2
  o3=$(submit -p high -N 2 -t 2 --wrap 'sleep 120')
  sleep 6
  echo "o3_state $(job_state "$o3") $(npre "$o3")"
  echo "o3_running $(running_count)"
  scancel -u root; wait_until 30 queue_empty
}

twin_start fw-pl 17920 17940 "$common" bf_interval=1,bf_resolution=1 "${shape[@]}"
grep -E '^(SelectType|SchedulerType|SchedulerParameters|Preempt|PartitionName)' "$SLURM_CONF" | sed 's/^/    /'
check "sched/fairway accepts preempt/partition_prio on select/linear (no refusal in the log)" \
  bash -c "! grep -q -e 'is not supported' -e 'plans no preemption' '$_cluster_dir/log/slurmctld.log'"
twin_run scen
keys=(filled peer_state o1_delay o1_preempted o1_victim_is_low o1_node low_requeued
  peer_after explain_running o2_delay o2_preempted o2_states o3_state o3_running)
twin_table "${keys[@]}"

say "checks (sched/fairway)"
check_eq "1. two 1-CPU jobs hold both nodes whole (select/linear: 8 CPUs)" "2 cpus:8" "$(f filled)"
check_eq "... a peer job (tier 1, like the lowest) waits and preempts nobody" "PENDING 0" "$(f peer_state)"
check "... a 1-CPU high job starts within 8 s: $(f o1_delay) s (sched/backfill: $(r o1_delay) s)" \
  bash -c "[[ '$(f o1_delay)' =~ ^[0-9]+$ ]] && [ '$(f o1_delay)' -le 8 ]"
check_eq "... by preempting exactly one job, the low job (lowest PriorityTier)" "1 yes" \
  "$(f o1_preempted) $(f o1_victim_is_low)"
check_eq "... on the victim's node" n1 "$(f o1_node)"
check_eq "... the victim is requeued" "PENDING Restarts=1" "$(f low_requeued)"
check_eq "... the peer job still waits, preempted nobody" "PENDING 0" "$(f peer_after)"
check_eq "... fairway explain: the low2 job may be preempted by partition high" 1 "$(f explain_running)"
check "2. CANCEL: a 2-node high job starts within 8 s: $(f o2_delay) s (sched/backfill: $(r o2_delay) s)" \
  bash -c "[[ '$(f o2_delay)' =~ ^[0-9]+$ ]] && [ '$(f o2_delay)' -le 8 ]"
check_eq "... preempting both lowc jobs, cancelled (PREEMPTED)" "2 PREEMPTED" "$(f o2_preempted) $(f o2_states)"
check_eq "3. a 2-node high job that preemption cannot serve waits, preempting nobody" "PENDING 0" "$(f o3_state)"
check_eq "... both running jobs keep running" 2 "$(f o3_running)"
check_eq "... as under sched/backfill" "$(r o3_state)" "$(f o3_state)"
for k in o1 o2; do
  check "$k: Fairway preempts no more jobs than sched/backfill ($(f ${k}_preempted) vs $(r ${k}_preempted))" \
    no_more "$(f ${k}_preempted)" "$(r ${k}_preempted)"
  check "$k: Fairway starts the high job no later (+3 s) than sched/backfill ($(f ${k}_delay) vs $(r ${k}_delay) s)" \
    no_later "$(f ${k}_delay)" "$(r ${k}_delay)"
done
finish
