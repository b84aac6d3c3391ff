#!/bin/bash
# sched/fairway with PreemptType=preempt/partition_prio (issue 16), no
# slurmdbd.  2 nodes of 4 CPUs, select/cons_tres CR_Core, PreemptMode=
# REQUEUE, GraceTime 0.  Partitions on both nodes: low (PriorityTier 1),
# low2 (PriorityTier 2), peer (PriorityTier 1), lowc (PriorityTier 1,
# PreemptMode=CANCEL), high (PriorityTier 10).  The same scenario runs at
# the same time on a second cluster of the same shape under Slurm's own
# priority/multifactor + sched/backfill; both are printed side by side.
# Expected values by hand from Slurm's documented behaviour
# (preempt/partition_prio: a job may preempt jobs of partitions of lower
# PriorityTier sharing its nodes; candidates are ordered by PriorityTier,
# lower first; REQUEUE requeues, CANCEL cancels):
#  1. seven 1-CPU low2 jobs and one 1-CPU low job fill the 8 CPUs; a
#     1-CPU peer job waits (tier 1: preempts nobody here); a 1-CPU
#     high job starts within a few seconds by preempting exactly one job,
#     the low job (lowest tier), on its node; it is requeued (pending,
#     Restarts=1) with an EligibleTime a credential lifetime ahead
#     (slurmctld's batch_requeue_fini); sched/fairway plans it again at
#     once (SchedNodeList, a StartTime not before that EligibleTime,
#     explain says why), Slurm's backfill only once that time has come;
#     the peer job still waits;
#  2. cancel mode: eight 1-CPU lowc jobs fill the nodes; a 2-CPU high job
#     on one node (-N1 -n2) preempts exactly 2 jobs (the fewest: Slurm's
#     select plugin at least 2), cancelled (PREEMPTED, not requeued);
#  3. an --exclusive high job: n1 holds a 1-CPU high job (not preemptable)
#     and three low2 jobs, n2 four low2 jobs; only n2 can be emptied, so
#     it starts there within a few seconds by preempting exactly n2's four
#     jobs (requeued);
#  4. a scavenger that holds a node whole: n1 is full with four 1-CPU high
#     jobs, n2 holds one --exclusive low2 job; a 1-CPU high job preempts
#     that job (requeued) and starts on n2;
#  5. SchedulerParameters preempt_youngest_first, added with a slurmctld
#     restart (Slurm 22.05's preempt.c reads it once, at its first init,
#     so a reconfigure would change Fairway's order but not Slurm's):
#     the fill of part 1 placed by hand (three low2 jobs and the low job
#     on n1, four low2 jobs on n2, the last one started 2 s after the
#     others); a 1-CPU high job now preempts that youngest job on n2, not
#     the low job on n1 (Slurm's order: start time only, youngest first);
#  6. a start that waits for a job it may not preempt: n2 holds a 4-CPU
#     high job; on n1 a 2-CPU peer job (time limit 1 min, runs 25 s)
#     beside a 2-CPU low2 job.  A 4-CPU high job cannot start now by
#     preempting (the peer job may not be preempted), but can once the
#     peer job ends: its StartTime is the peer job's end (its time limit,
#     as Slurm's backfill plans it with every preemption candidate gone),
#     not the low2 job's end 4 minutes later; fairway explain names the
#     low2 job as the one it will preempt; when the peer job ends, the
#     high job preempts exactly the low2 job and starts on n1.
#  7. the default victim order again (slurmctld restarted without
#     preempt_youngest_first): n1 holds a 2-CPU peer job and two 1-CPU low
#     jobs a and b, n2 one 4-CPU low2 job c; a 2-CPU high job on one node
#     can start by preempting a and b (n1) or c (n2).  Fairway takes the
#     fewest, c on n2; Slurm's select plugin takes candidates in tier
#     order until the job fits, a and b (printed, not checked);
#  8. the same with SchedulerParameters preempt_strict_order (restarted):
#     "preempt only the lowest priority jobs": a and b on n1, as
#     sched/backfill does.
#  9. PreemptExemptTime=00:00:10 in slurm.conf (restarted, strict order
#     dropped): eight 1-CPU low jobs fill the nodes; a 1-CPU high job
#     waits, preempting nobody, while they are under 10 s old, then
#     starts within 8 s of the oldest one's 10 s, preempting one
#     (sched/backfill, which runs a cycle only after a state change, up
#     to its main scheduler's sched_interval later: printed).
# Fairway must preempt no more jobs than sched/backfill in each part and
# start each high job no later (a 3-second tolerance for pass timing).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/twin_lib.sh"

shape=(--nodes 2 --cpus 4 --select-params CR_Core)
common=$PARTPRIO_CONF

scen() {
  local x l p o1 o3 t v states=""
  say "1. seven low2 jobs and one low job fill 8 CPUs"
  for x in 1 2 3; do submit -p low2 -n 1 -t 5 --wrap 'sleep 300' > /dev/null; done
  wait_until 15 all_running 3
  l=$(submit -p low -n 1 -t 5 --wrap 'sleep 300')
  for x in 1 2 3 4; do submit -p low2 -n 1 -t 5 --wrap 'sleep 300' > /dev/null; done
  wait_until 15 all_running 8
  echo "filled $(running_count)"
  p=$(submit -p peer -n 1 -t 2 --wrap 'sleep 60')
  sleep 4
  echo "peer_state $(job_state "$p") $(npre "$p")"
  local lnode; lnode=$(node_of "$l")
  t=$(date +%s); o1=$(submit -p high -n 1 -t 2 --wrap 'sleep 120')
  wait_until 30 job_is "$o1" RUNNING
  echo "o1_delay $(since "$o1" "$t")"
  echo "o1_preempted $(npre "$o1")"
  echo "o1_victim_is_low $([ "$(preempted_for "$o1")" = "$l" ] && echo yes || echo "no:$(preempted_for "$o1")")"
  echo "o1_on_victim_node $([ "$(node_of "$o1")" = "$lnode" ] && echo yes || echo "no:$(node_of "$o1")/$lnode")"
  echo "low_requeued $(job_state "$l") Restarts=$(job_field "$l" Restarts)"
  local le ls
  wait_until 8 bash -c "scontrol show job $l | grep -q 'SchedNodeList=[^(]'"
  le=$(epoch "$(job_field "$l" EligibleTime)"); ls=$(start_epoch "$l")
  echo "low_elig_ahead $(( le - $(date +%s) >= 60 ))"
  echo "low_planned $([ -n "$(sched_nodes "$l")" ] && echo yes || echo no)"
  echo "low_start_vs_elig $([ "$ls" = none ] && echo none || echo $((ls - le)))"
  [ "${FW_EXPLAIN:-1}" = 1 ] &&
    echo "low_explain $(fairway_cmd explain "$l" 2>&1 | grep -c 'may not start before its EligibleTime')"
  echo "peer_after $(job_state "$p") $(npre "$p")"
  [ "${FW_EXPLAIN:-1}" = 1 ] &&
    echo "explain_running $(fairway_cmd explain "$(squeue -h -p low2 -t R -o %i | head -n1)" 2>&1 | grep -c 'may be preempted (REQUEUE) by jobs of partition high')"
  scancel -u root; wait_until 30 queue_empty

  say "2. cancel mode: eight lowc jobs, a 2-CPU high job on one node"
  for x in 1 2 3 4 5 6 7 8; do submit -p lowc -n 1 -t 5 --wrap 'sleep 300' > /dev/null; done
  wait_until 20 all_running 8
  t=$(date +%s); o3=$(submit -p high -N 1 -n 2 -t 2 --wrap 'sleep 120')
  wait_until 30 job_is "$o3" RUNNING
  echo "o3_delay $(since "$o3" "$t")"
  echo "o3_preempted $(npre "$o3")"
  v=$(preempted_for "$o3")
  for x in $v; do states+="$(job_state "$x") "; done
  echo "o3_states $(echo $states | tr ' ' '\n' | sort -u | paste -sd,)"
  echo "o3_cancel_log $(grep -c "has been killed to reclaim resources for JobId=$o3\b" "$LOG")"
  scancel -u root; wait_until 30 queue_empty

  local o4 o5 w n2jobs
  say "3. an --exclusive high job empties the node it can empty"
  submit -p high -w n1 -n 1 -t 5 --wrap 'sleep 300' > /dev/null
  for x in 1 2 3; do submit -p low2 -w n1 -n 1 -t 5 --wrap 'sleep 300' > /dev/null; done
  for x in 1 2 3 4; do submit -p low2 -w n2 -n 1 -t 5 --wrap 'sleep 300' > /dev/null; done
  wait_until 20 all_running 8
  n2jobs=$(squeue -h -t R -w n2 -o %i | sort -n | paste -sd' ')
  t=$(date +%s); o4=$(submit -p high -N 1 --exclusive -t 2 --wrap 'sleep 120')
  wait_until 30 job_is "$o4" RUNNING
  echo "o4_delay $(since "$o4" "$t")"
  echo "o4_preempted $(npre "$o4")"
  echo "o4_victims_are_n2s $([ "$(preempted_for "$o4")" = "$n2jobs" ] && echo yes || echo "no:$(preempted_for "$o4")/$n2jobs")"
  echo "o4_node $(node_of "$o4")"
  scancel -u root; wait_until 30 queue_empty

  say "4. a 1-CPU high job preempts a scavenger that holds n2 whole"
  for x in 1 2 3 4; do submit -p high -w n1 -n 1 -t 5 --wrap 'sleep 300' > /dev/null; done
  w=$(submit -p low2 -w n2 -N 1 --exclusive -t 5 --wrap 'sleep 300')
  wait_until 20 all_running 5
  t=$(date +%s); o5=$(submit -p high -n 1 -t 2 --wrap 'sleep 120')
  wait_until 30 job_is "$o5" RUNNING
  echo "o5_delay $(since "$o5" "$t")"
  echo "o5_preempted $(npre "$o5")"
  echo "o5_victim_is_whole $([ "$(preempted_for "$o5")" = "$w" ] && echo yes || echo "no:$(preempted_for "$o5")")"
  echo "o5_node $(node_of "$o5")"
  echo "whole_requeued $(job_state "$w") Restarts=$(job_field "$w" Restarts)"
  scancel -u root; wait_until 30 queue_empty

  local l5 y o6
  say "5. preempt_youngest_first (slurmctld restarted): the youngest job goes"
  sed -i '/^SchedulerParameters=/ s/$/,preempt_youngest_first/' "$SLURM_CONF"
  restart_ctld || echo "restart_failed"
  wait_until 30 bash -c 'sinfo -h -o %T | grep -qv -E "down|unk"'
  for x in 1 2 3; do submit -p low2 -w n1 -n 1 -t 5 --wrap 'sleep 300' > /dev/null; done
  wait_until 15 all_running 3
  l5=$(submit -p low -w n1 -n 1 -t 5 --wrap 'sleep 300')
  for x in 1 2 3; do submit -p low2 -w n2 -n 1 -t 5 --wrap 'sleep 300' > /dev/null; done
  wait_until 15 all_running 7
  sleep 2
  y=$(submit -p low2 -w n2 -n 1 -t 5 --wrap 'sleep 300')
  wait_until 15 all_running 8
  t=$(date +%s); o6=$(submit -p high -n 1 -t 2 --wrap 'sleep 120')
  wait_until 30 job_is "$o6" RUNNING
  echo "o6_nodes high:$(node_of "$o6") youngest:$(node_of "$y") low:$(node_of "$l5")"
  echo "o6_delay $(since "$o6" "$t")"
  echo "o6_preempted $(npre "$o6")"
  echo "o6_victim $([ "$(preempted_for "$o6")" = "$y" ] && echo youngest ||
    { [ "$(preempted_for "$o6")" = "$l5" ] && echo low || echo "other:$(preempted_for "$o6")"; })"
  scancel -u root; wait_until 30 queue_empty

  local pj lj o7 pend
  say "6. a high job waits for a peer job's end, then preempts the low2 job"
  submit -p high -w n2 -n 4 -t 5 --wrap 'sleep 300' > /dev/null
  pj=$(submit -p peer -w n1 -n 2 -t 1 --wrap 'sleep 25')
  lj=$(submit -p low2 -w n1 -n 2 -t 5 --wrap 'sleep 300')
  wait_until 20 all_running 3
  pend=$(( $(start_epoch "$pj") + 60 ))
  t=$(date +%s); o7=$(submit -p high -N 1 -n 4 -t 2 --wrap 'sleep 120')
  sleep 4
  echo "o7_est_vs_peer_end $(s=$(start_epoch "$o7"); [ "$s" = none ] && echo none || echo $((s - pend)))"
  [ "${FW_EXPLAIN:-1}" = 1 ] &&
    echo "o7_explain $(fairway_cmd explain "$o7" 2>&1 | grep -c "Will preempt: job $lj at its start")"
  echo "o7_preempted_early $(npre "$o7")"
  wait_until 60 job_is "$o7" RUNNING
  echo "o7_after_peer_end $(( $(start_epoch "$o7") - $(job_field "$pj" EndTime | xargs -I{} date -d {} +%s) ))"
  echo "o7_preempted $(npre "$o7")"
  echo "o7_victim_is_low2 $([ "$(preempted_for "$o7")" = "$lj" ] && echo yes || echo "no:$(preempted_for "$o7")")"
  echo "o7_node $(node_of "$o7")"
  scancel -u root; wait_until 30 queue_empty

  say "7. default order (restarted without preempt_youngest_first): fewest victims"
  sed -i 's/,preempt_youngest_first//' "$SLURM_CONF"
  restart_ctld || echo "restart_failed"
  wait_until 30 bash -c 'sinfo -h -o %T | grep -qv -E "down|unk"'
  two_nodes_of_victims o8
  say "8. preempt_strict_order (restarted): only the lowest tier"
  sed -i '/^SchedulerParameters=/ s/$/,preempt_strict_order/' "$SLURM_CONF"
  restart_ctld || echo "restart_failed"
  wait_until 30 bash -c 'sinfo -h -o %T | grep -qv -E "down|unk"'
  two_nodes_of_victims o9

  local fills=() fstart o10
  say "9. PreemptExemptTime=00:00:10 in slurm.conf (restarted): young jobs are exempt"
  sed -i 's/,preempt_strict_order//' "$SLURM_CONF"
  sed -i '/^SchedulerParameters=/a PreemptExemptTime=00:00:10' "$SLURM_CONF"
  restart_ctld || echo "restart_failed"
  wait_until 30 bash -c 'sinfo -h -o %T | grep -qv -E "down|unk"'
  for x in 1 2 3 4 5 6 7 8; do fills+=("$(submit -p low -n 1 -t 5 --wrap 'sleep 300')"); done
  wait_until 20 all_running 8
  fstart=$(for x in "${fills[@]}"; do start_epoch "$x"; done | sort -n | head -n1)
  o10=$(submit -p high -n 1 -t 2 --wrap 'sleep 120')
  sleep 4
  echo "o10_early $(job_state "$o10") $(npre "$o10") $(( $(date +%s) - fstart < 10 ))"
  # Slurm's backfill runs a cycle only after a state change, and the end
  # of an exemption is none: sched/backfill preempts at its main
  # scheduler's next periodic run (sched_interval, 60 s) at the latest.
  wait_until 80 job_is "$o10" RUNNING
  echo "o10_after_exempt $(since "$o10" $((fstart + 10)))"
  echo "o10_preempted $(npre "$o10")"
  scancel -u root; wait_until 30 queue_empty
}

# Parts 7 and 8: n1 holds a 2-CPU peer job (never preempted) and two
# 1-CPU low jobs a and b (tier 1); n2 one 4-CPU low2 job c (tier 2).  A
# 2-CPU high job on one node needs a and b on n1, or c on n2.  Prints
# KEY_delay, KEY_preempted, KEY_victims (letters) and KEY_node.
two_nodes_of_victims() {
  local k=$1 a b c o t v x names=""
  submit -p peer -w n1 -n 2 -t 5 --wrap 'sleep 300' > /dev/null
  a=$(submit -p low -w n1 -n 1 -t 5 --wrap 'sleep 300')
  b=$(submit -p low -w n1 -n 1 -t 5 --wrap 'sleep 300')
  c=$(submit -p low2 -w n2 -n 4 -t 5 --wrap 'sleep 300')
  wait_until 20 all_running 4
  t=$(date +%s); o=$(submit -p high -N 1 -n 2 -t 2 --wrap 'sleep 120')
  wait_until 30 job_is "$o" RUNNING
  echo "${k}_delay $(since "$o" "$t")"
  echo "${k}_preempted $(npre "$o")"
  for v in $(preempted_for "$o"); do
    for x in a b c; do [ "$v" = "${!x}" ] && names+="$x"; done
  done
  echo "${k}_victims ${names:-none}"
  echo "${k}_node $(node_of "$o")"
  scancel -u root; wait_until 30 queue_empty
}

twin_start fw-pp 17880 17900 "$common" bf_interval=1,bf_resolution=1 "${shape[@]}"
grep -E '^(SchedulerType|SchedulerParameters|Preempt|PartitionName)' "$SLURM_CONF" | sed 's/^/    /'
check "sched/fairway accepts preempt/partition_prio (no refusal in the log)" \
  bash -c "! grep -q 'is not supported' '$_cluster_dir/log/slurmctld.log'"
twin_run scen
keys=(filled peer_state o1_delay o1_preempted o1_victim_is_low o1_on_victim_node low_requeued
  low_elig_ahead low_planned low_start_vs_elig low_explain
  peer_after explain_running o3_delay o3_preempted o3_states o3_cancel_log
  o4_delay o4_preempted o4_victims_are_n2s o4_node o5_delay o5_preempted
  o5_victim_is_whole o5_node whole_requeued o6_nodes o6_delay o6_preempted o6_victim
  o7_est_vs_peer_end o7_explain o7_preempted_early o7_after_peer_end o7_preempted
  o7_victim_is_low2 o7_node o8_delay o8_preempted o8_victims o8_node
  o9_delay o9_preempted o9_victims o9_node o10_early o10_after_exempt o10_preempted)
twin_table "${keys[@]}"

say "checks (sched/fairway)"
check_eq "1. the eight 1-CPU jobs fill the nodes" 8 "$(f filled)"
check_eq "... a peer job (tier 1, like the lowest) waits and preempts nobody" "PENDING 0" "$(f peer_state)"
check "... a high job starts within 8 s: $(f o1_delay) s (sched/backfill: $(r o1_delay) s)" \
  bash -c "[[ '$(f o1_delay)' =~ ^[0-9]+$ ]] && [ '$(f o1_delay)' -le 8 ]"
check_eq "... by preempting exactly one job" 1 "$(f o1_preempted)"
check_eq "... the low job (lowest PriorityTier)" yes "$(f o1_victim_is_low)"
check_eq "... on the victim's node" yes "$(f o1_on_victim_node)"
check_eq "... the victim is requeued" "PENDING Restarts=1" "$(f low_requeued)"
check_eq "... its EligibleTime is at least a minute ahead (the credential delay)" 1 "$(f low_elig_ahead)"
check_eq "... it is planned again at once: SchedNodeList set (sched/backfill: $(r low_planned))" \
  yes "$(f low_planned)"
check "... its StartTime is not before its EligibleTime: $(f low_start_vs_elig) s (sched/backfill: $(r low_start_vs_elig) s)" \
  bash -c "[[ '$(f low_start_vs_elig)' =~ ^[0-9]+$ ]]"
check_eq "... fairway explain says why it waits" 1 "$(f low_explain)"
check_eq "... the peer job still waits, preempted nobody" "PENDING 0" "$(f peer_after)"
check_eq "... fairway explain: a low2 job may be preempted by partition high" 1 "$(f explain_running)"
check_eq "2. CANCEL: a 2-CPU high job on one node preempts 2 jobs" 2 "$(f o3_preempted)"
check_eq "... they are cancelled (PREEMPTED), not requeued" PREEMPTED "$(f o3_states)"
check_eq "... slurmctld's log says killed, not requeued" 2 "$(f o3_cancel_log)"
check "3. an --exclusive high job starts within 8 s: $(f o4_delay) s (sched/backfill: $(r o4_delay) s)" \
  bash -c "[[ '$(f o4_delay)' =~ ^[0-9]+$ ]] && [ '$(f o4_delay)' -le 8 ]"
check_eq "... on n2, the node without a job it may not preempt" n2 "$(f o4_node)"
check_eq "... by preempting exactly n2's four jobs" "4 yes" "$(f o4_preempted) $(f o4_victims_are_n2s)"
check "4. a high job preempts a whole-node scavenger within 8 s: $(f o5_delay) s (sched/backfill: $(r o5_delay) s)" \
  bash -c "[[ '$(f o5_delay)' =~ ^[0-9]+$ ]] && [ '$(f o5_delay)' -le 8 ]"
check_eq "... exactly that job, on n2" "1 yes n2" "$(f o5_preempted) $(f o5_victim_is_whole) $(f o5_node)"
check_eq "... which is requeued" "PENDING Restarts=1" "$(f whole_requeued)"
check_eq "5. preempt_youngest_first: the high job preempts one job, the youngest (not the low one)" \
  "1 youngest" "$(f o6_preempted) $(f o6_victim)"
check_eq "... as sched/backfill's select plugin does" "$(r o6_victim)" "$(f o6_victim)"
check "6. the high job's StartTime is the peer job's planned end (+-3 s): $(f o7_est_vs_peer_end) s (sched/backfill: $(r o7_est_vs_peer_end) s)" \
  bash -c "[[ '$(f o7_est_vs_peer_end)' =~ ^-?[0-9]+$ ]] && [ '$(f o7_est_vs_peer_end)' -ge -3 ] && [ '$(f o7_est_vs_peer_end)' -le 3 ]"
check_eq "... nobody is preempted while the peer job runs" 0 "$(f o7_preempted_early)"
check_eq "... fairway explain names the low2 job it will preempt" 1 "$(f o7_explain)"
check "... it starts within 8 s of the peer job's end: $(f o7_after_peer_end) s (sched/backfill: $(r o7_after_peer_end) s)" \
  bash -c "[[ '$(f o7_after_peer_end)' =~ ^-?[0-9]+$ ]] && [ '$(f o7_after_peer_end)' -le 8 ]"
check_eq "... preempting exactly the low2 job, on n1" "1 yes n1" "$(f o7_preempted) $(f o7_victim_is_low2) $(f o7_node)"
check "o7: Fairway preempts no more jobs than sched/backfill ($(f o7_preempted) vs $(r o7_preempted))" \
  no_more "$(f o7_preempted)" "$(r o7_preempted)"
check "o7: Fairway starts the high job no later (+3 s) after the peer job's end than sched/backfill ($(f o7_after_peer_end) vs $(r o7_after_peer_end) s)" \
  no_later "$(f o7_after_peer_end)" "$(r o7_after_peer_end)"
check_eq "7. default order: the fewest victims, c on n2 (sched/backfill: $(r o8_preempted) $(r o8_victims) on $(r o8_node))" \
  "1 c n2" "$(f o8_preempted) $(f o8_victims) $(f o8_node)"
check_eq "8. preempt_strict_order: the lowest tier only, a and b on n1" \
  "2 ab n1" "$(f o9_preempted) $(f o9_victims) $(f o9_node)"
check_eq "... as sched/backfill's select plugin does" \
  "$(r o9_victims) $(r o9_node)" "$(f o9_victims) $(f o9_node)"
check_eq "9. PreemptExemptTime (slurm.conf): while the low jobs are under 10 s old the high job waits, preempting nobody" \
  "PENDING 0 1" "$(f o10_early)"
check "... it starts 0-8 s after the oldest low job's 10 s: $(f o10_after_exempt) s (sched/backfill: $(r o10_after_exempt) s)" \
  bash -c "[[ '$(f o10_after_exempt)' =~ ^[0-9]+$ ]] && [ '$(f o10_after_exempt)' -le 8 ]"
check_eq "... preempting one job" 1 "$(f o10_preempted)"
check "o10: Fairway preempts no more jobs than sched/backfill ($(f o10_preempted) vs $(r o10_preempted))" \
  no_more "$(f o10_preempted)" "$(r o10_preempted)"
check "o10: Fairway starts the high job no later (+3 s) than sched/backfill ($(f o10_after_exempt) vs $(r o10_after_exempt) s)" \
  no_later "$(f o10_after_exempt)" "$(r o10_after_exempt)"
for k in o1 o3 o4 o5 o6 o8 o9; do
  check "$k: Fairway preempts no more jobs than sched/backfill ($(f ${k}_preempted) vs $(r ${k}_preempted))" \
    no_more "$(f ${k}_preempted)" "$(r ${k}_preempted)"
  check "$k: Fairway starts the high job no later (+3 s) than sched/backfill ($(f ${k}_delay) vs $(r ${k}_delay) s)" \
    no_later "$(f ${k}_delay)" "$(r ${k}_delay)"
done
finish
