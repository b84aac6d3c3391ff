#!/bin/bash
# sched/fairway with PreemptType=preempt/qos (issue 16), slurmdbd + MariaDB
# for the QOS.  2 nodes of 4 CPUs, select/cons_tres CR_Core, PreemptMode=
# REQUEUE, GraceTime 0.  QOS (sacctmgr): scav (Priority 0), scavhi
# (Priority 10), scavx (Priority 0, PreemptExemptTime 10 s), scavc
# (PreemptMode=cancel), owner (Priority 100, Preempt=scav,scavhi,scavx,
# scavc), plain (Priority 50, preempts nobody).  PriorityWeightQOS makes
# owner jobs sort first, then plain jobs.  The same scenario runs at the
# same time on a second cluster of the same shape under Slurm's own
# priority/multifactor + sched/backfill; both are printed side by side.
# Expected values by hand from Slurm's documented behaviour (preempt/qos: a
# job may preempt the QOS of its QOS's Preempt list; candidates are
# ordered by QOS priority, lower first; PreemptExemptTime keeps a job from
# being preempted until it has run that long; REQUEUE requeues, CANCEL
# cancels; a requeued job is pending again with Restarts=1):
#  1. seven 1-CPU scavhi jobs and one 1-CPU scav job fill the 8 CPUs; a
#     1-CPU plain job waits (its QOS preempts nobody) and nobody is
#     preempted; a 1-CPU owner job then starts within a few seconds
#     (one pass plus the victim's completion: KillWait 5 s at most) by
#     preempting exactly one job, the scav job (lowest QOS priority), on
#     its node; the scav job is requeued (pending, Restarts=1), the plain
#     job still waits;
#  2. eight 1-CPU scavx jobs fill the nodes; an owner job preempts nobody
#     until they have run 10 s (PreemptExemptTime), then exactly one;
#  3. cancel mode: eight 1-CPU scavc jobs fill the nodes; a 2-CPU owner job
#     on one node (-N1 -n2) starts by preempting jobs on one node only;
#     they are cancelled (PREEMPTED, not requeued).  Fairway preempts
#     exactly 2 (the fewest); Slurm's select plugin at least 2;
#  4. GraceTime 5 s (QOS scavg, jobs that ignore SIGTERM): an owner job
#     preempts exactly one; while it waits, squeue --start gives its start
#     after the grace time (5-7 s after submission, the step is 1 s) and
#     fairway explain lists the job it preempts (and of that job, for
#     whom it is preempted); the victim is planned again in the pass that
#     preempts it (a log line; Slurm's backfill plans it only once it is
#     pending and its requeue hold is over): a start 126-130 s ahead (5 s
#     of grace, then slurmctld's hold of a credential lifetime, 120 s by
#     default, plus 1 s; the owner job's CPU is free from 125 s), which its
#     explain gives while it runs out its grace; it starts no earlier than 5 s, and within
#     35 s (slurmctld requeues a job whose grace is over when the
#     preemptor tries again, else at its next time-limit check, every
#     30 s; the victim ignores SIGTERM, so KillWait 5 s follows).
# Fairway must preempt no more jobs than sched/backfill in each part and
# start each owner job no later (a 3-second tolerance for pass timing).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/twin_lib.sh"

shape=(--nodes 2 --cpus 4 --select-params CR_Core)
common='PreemptType=preempt/qos
PreemptMode=REQUEUE
PriorityWeightQOS=100000
JobRequeue=1'

# ---- accounting --------------------------------------------------------------
setup_qos() {
  sacctmgr -i add qos scav,scavhi,scavx,scavc,scavg,owner,plain > /dev/null
  sacctmgr -i modify qos scavg set priority=0 gracetime=5 > /dev/null
  sacctmgr -i modify qos scav set priority=0 > /dev/null
  sacctmgr -i modify qos scavhi set priority=10 > /dev/null
  sacctmgr -i modify qos scavx set priority=0 preemptexempttime=00:00:10 > /dev/null
  sacctmgr -i modify qos scavc set priority=0 preemptmode=cancel > /dev/null
  sacctmgr -i modify qos owner set priority=100 preempt=scav,scavhi,scavx,scavc,scavg > /dev/null
  sacctmgr -i modify qos plain set priority=50 > /dev/null
  sacctmgr -i add account grp parent=root > /dev/null
  sacctmgr -i add user root account=grp > /dev/null
  sacctmgr -i modify user root set qos=normal,scav,scavhi,scavx,scavc,scavg,owner,plain > /dev/null
  wait_until 30 bash -c "scontrol -o show assoc_mgr flags=qos qos=owner 2>/dev/null | grep -q '^QOS=owner('"
}

# ---- the scenario: observations as KEY VALUE lines -----------------------------
# among JOBS...: how many slurmctld's log says were preempted (after a
# GraceTime slurmctld names no preemptor: "for JobId=Invalid")
npre_among() {
  local n=0 j
  for j in "$@"; do grep -q "preempted JobId=$j has been" "$LOG" && n=$((n + 1)); done
  echo "$n"
}
scen() {
  local h=() l p o1 o2 t c=() o3 x
  say "1. seven scavhi jobs and one scav job fill 8 CPUs"
  for x in 1 2 3; do h+=("$(submit -q scavhi -n 1 -t 5 --wrap 'sleep 300')"); done
  wait_until 15 all_running 3
  l=$(submit -q scav -n 1 -t 5 --wrap 'sleep 300')
  for x in 1 2 3 4; do h+=("$(submit -q scavhi -n 1 -t 5 --wrap 'sleep 300')"); done
  wait_until 15 all_running 8
  echo "filled $(running_count)"
  p=$(submit -q plain -n 1 -t 2 --wrap 'sleep 60')
  sleep 5
  echo "plain_state $(job_state "$p")"
  echo "plain_preempted $(npre "$p")"
  local lnode; lnode=$(node_of "$l")
  t=$(date +%s); o1=$(submit -q owner -n 1 -t 2 --wrap 'sleep 120')
  wait_until 30 job_is "$o1" RUNNING
  echo "o1_delay $(since "$o1" "$t")"
  echo "o1_preempted $(npre "$o1")"
  echo "o1_victim_is_scav $([ "$(preempted_for "$o1")" = "$l" ] && echo yes || echo "no:$(preempted_for "$o1")")"
  echo "o1_on_victim_node $([ "$(node_of "$o1")" = "$lnode" ] && echo yes || echo "no:$(node_of "$o1")/$lnode")"
  echo "scav_requeued $(job_state "$l") Restarts=$(job_field "$l" Restarts)"
  echo "plain_after $(job_state "$p") $(npre "$p")"
  [ "${FW_EXPLAIN:-1}" = 1 ] && {
    echo "explain_running $(fairway_cmd explain "${h[0]}" 2>&1 | grep -c 'may be preempted (REQUEUE) by jobs of QOS owner')"
  }

  scancel -u root; wait_until 30 queue_empty

  say "2. eight scavx jobs (PreemptExemptTime 10 s), an owner job"
  local xs=() xstart
  for x in 1 2 3 4 5 6 7 8; do xs+=("$(submit -q scavx -n 1 -t 5 --wrap 'sleep 300')"); done
  wait_until 20 all_running 8
  xstart=$(start_epoch "${xs[0]}")
  t=$(date +%s); o2=$(submit -q owner -n 1 -t 2 --wrap 'sleep 120')
  sleep 4
  [ "${FW_EXPLAIN:-1}" = 1 ] && echo "explain_o2 $(fairway_cmd explain "$o2" 2>&1 | grep -c 'Expected start')"
  wait_until 60 job_is "$o2" RUNNING
  echo "o2_after_exempt $(since "$o2" $((xstart + 10)))"
  echo "o2_delay $(since "$o2" "$t")"
  echo "o2_preempted $(npre "$o2")"
  scancel -u root; wait_until 30 queue_empty

  say "3. cancel mode: eight scavc jobs, a 2-CPU owner job on one node"
  for x in 1 2 3 4 5 6 7 8; do c+=("$(submit -q scavc -n 1 -t 5 --wrap 'sleep 300')"); done
  wait_until 20 all_running 8
  t=$(date +%s); o3=$(submit -q owner -N 1 -n 2 -t 2 --wrap 'sleep 120')
  wait_until 30 job_is "$o3" RUNNING
  echo "o3_delay $(since "$o3" "$t")"
  echo "o3_preempted $(npre "$o3")"
  v=$(preempted_for "$o3"); local states="" n
  for x in $v; do states+="$(sacct -n -X -j "$x" -o State%12 2>/dev/null | awk 'NR==1{print $1}') "; done
  echo "o3_states $(echo $states | tr ' ' '\n' | sort -u | paste -sd,)"
  echo "o3_cancel_log $(grep -c "has been killed to reclaim resources for JobId=$o3\b" "$LOG")"
  scancel -u root; wait_until 30 queue_empty

  say "4. GraceTime 5 s: eight scavg jobs that ignore SIGTERM, an owner job"
  local g=()
  for x in 1 2 3 4 5 6 7 8; do
    g+=("$(submit -q scavg -n 1 -t 5 --wrap "trap '' TERM; sleep 300")")
  done
  wait_until 20 all_running 8
  t=$(date +%s); o4=$(submit -q owner -n 1 -t 2 --wrap 'sleep 120')
  sleep 3
  if [ "${FW_EXPLAIN:-1}" = 1 ]; then
    fairway_cmd explain "$o4" > "$JOBDIR/explain_o4" 2>&1
    echo "explain_o4_preempts $(grep -c '^  Preempts: job [0-9]' "$JOBDIR/explain_o4")"
    for x in "${g[@]}"; do fairway_cmd explain "$x" 2>&1 | grep -E "^Job $x is|Preempt"; done > "$JOBDIR/explain_g"
    echo "explain_victim $(grep -c "^  Preempted for: job $o4 " "$JOBDIR/explain_g")"
    for x in "${g[@]}"; do fairway_cmd explain "$x" 2>&1 | grep "Once requeued: expected start"; done > "$JOBDIR/explain_gr"
    echo "explain_victim_replanned $(wc -l < "$JOBDIR/explain_gr")"
  fi
  echo "victim_planned_same_pass $(grep -E "requeued by this pass, planned to start in [0-9]+ s" "$LOG" | grep -c -E "$(printf 'JobId=%s|' "${g[@]}" | sed 's/|$//')")"
  echo "victim_planned_in_s $(grep -o -E "requeued by this pass, planned to start in [0-9]+ s" "$LOG" | tail -n1 | grep -o -E '[0-9]+ s' | cut -d' ' -f1)"
  echo "o4_squeue_start $(s=$(squeue --start -h -j "$o4" -o %S); case "$s" in ''|N/A) echo none;; *) echo $(( $(epoch "$s") - t ));; esac)"
  wait_until 60 job_is "$o4" RUNNING
  echo "o4_delay $(since "$o4" "$t")"
  echo "o4_preempted $(npre_among "${g[@]}")"
  scancel -u root; wait_until 30 queue_empty
}

# ---- two clusters, the same scenario at the same time ---------------------------
TWIN_FW_ARGS=(--dbd --dbd-port "$(live_port 17850)")
TWIN_REF_ARGS=(--dbd --dbd-port "$(live_port 17870)")
twin_start fw-pq 17840 17860 "$common" bf_interval=1,bf_resolution=1 "${shape[@]}"
grep -E '^(SelectType|SchedulerType|SchedulerParameters|Preempt)' "$SLURM_CONF" | sed 's/^/    /'
check "sched/fairway accepts preempt/qos (no refusal in the log)" \
  bash -c "! grep -q 'PreemptType=preempt/qos is not supported' '$_cluster_dir/log/slurmctld.log'"
setup_qos
( export SLURM_CONF="$ref_dir/etc/slurm.conf"; setup_qos )
twin_run scen
keys=(filled plain_state plain_preempted o1_delay o1_preempted o1_victim_is_scav o1_on_victim_node
  scav_requeued plain_after explain_running explain_o2 o2_after_exempt o2_delay o2_preempted explain_o4_preempts explain_victim
  explain_victim_replanned victim_planned_same_pass victim_planned_in_s o4_squeue_start o4_delay o4_preempted
  o3_delay o3_preempted o3_states o3_cancel_log)
twin_table "${keys[@]}"

say "checks (sched/fairway)"
check_eq "1. the eight 1-CPU jobs fill the nodes" 8 "$(f filled)"
check_eq "... a plain job (QOS that preempts nobody) waits" PENDING "$(f plain_state)"
check_eq "... and preempts nobody" 0 "$(f plain_preempted)"
check "... an owner job starts within 8 s: $(f o1_delay) s (sched/backfill: $(r o1_delay) s)" \
  bash -c "[[ '$(f o1_delay)' =~ ^[0-9]+$ ]] && [ '$(f o1_delay)' -le 8 ]"
check_eq "... by preempting exactly one job" 1 "$(f o1_preempted)"
check_eq "... the scav job (lowest QOS priority)" yes "$(f o1_victim_is_scav)"
check_eq "... on the victim's node" yes "$(f o1_on_victim_node)"
check_eq "... the victim is requeued" "PENDING Restarts=1" "$(f scav_requeued)"
check_eq "... the plain job still waits, preempted nobody" "PENDING 0" "$(f plain_after)"
check_eq "... fairway explain: a scavhi job may be preempted by QOS owner" 1 "$(f explain_running)"
check "2. PreemptExemptTime: the owner job starts 0-8 s after the scavx jobs' 10 s ($(f o2_after_exempt) s after)" \
  bash -c "[[ '$(f o2_after_exempt)' =~ ^[0-9]+$ ]] && [ '$(f o2_after_exempt)' -le 8 ]"
check_eq "... by preempting exactly one job" 1 "$(f o2_preempted)"
check_eq "3. CANCEL: a 2-CPU owner job on one node preempts 2 jobs" 2 "$(f o3_preempted)"
check_eq "... they are cancelled (PREEMPTED), not requeued" PREEMPTED "$(f o3_states)"
check_eq "... slurmctld's log says killed, not requeued" 2 "$(f o3_cancel_log)"
check "4. GraceTime 5 s: the owner job starts no earlier than 5 s, within 35 s (slurmctld requeues after the grace at its next check): $(f o4_delay) s" \
  bash -c "[[ '$(f o4_delay)' =~ ^[0-9]+$ ]] && [ '$(f o4_delay)' -ge 5 ] && [ '$(f o4_delay)' -le 35 ]"
check_eq "... by preempting exactly one job" 1 "$(f o4_preempted)"
check_eq "... fairway explain lists the job it preempts while it waits" 1 "$(f explain_o4_preempts)"
check_eq "... and of that job (in its grace time), for whom" 1 "$(f explain_victim)"
check_eq "... the victim is planned in the pass that preempts it (log line; sched/backfill: $(r victim_planned_same_pass))" 1 "$(f victim_planned_same_pass)"
check "... to start once its grace (5 s) and requeue hold (credential lifetime 120 s + 1) are over, as the owner job's CPU frees at 125 s: in $(f victim_planned_in_s) s (126-130)" \
  bash -c "[[ '$(f victim_planned_in_s)' =~ ^[0-9]+$ ]] && [ '$(f victim_planned_in_s)' -ge 126 ] && [ '$(f victim_planned_in_s)' -le 130 ]"
[ "${FW_EXPLAIN:-1}" = 1 ] &&
  check_eq "... and fairway explain of the victim, still in its grace time, gives that start" 1 "$(f explain_victim_replanned)"
check "... squeue --start: after the grace time (5-7 s after submission): $(f o4_squeue_start)" \
  bash -c "[[ '$(f o4_squeue_start)' =~ ^[0-9]+$ ]] && [ '$(f o4_squeue_start)' -ge 5 ] && [ '$(f o4_squeue_start)' -le 7 ]"
for k in o1 o2 o3 o4; do
  check "$k: Fairway preempts no more jobs than sched/backfill ($(f ${k}_preempted) vs $(r ${k}_preempted))" \
    no_more "$(f ${k}_preempted)" "$(r ${k}_preempted)"
  check "$k: Fairway starts the owner job no later (+3 s) than sched/backfill ($(f ${k}_delay) vs $(r ${k}_delay) s)" \
    no_later "$(f ${k}_delay)" "$(r ${k}_delay)"
done
finish
