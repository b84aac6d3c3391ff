#!/bin/bash
# sched/fairway with SchedulerParameters=preempt_reorder_count (issue 16):
# preempt/partition_prio, one node of 8 CPUs, select/cons_tres CR_Core,
# PreemptMode=REQUEUE.  Partitions: t1, t2, t3 (PriorityTier 1, 2, 3), t5
# (PriorityTier 5) and high (PriorityTier 10).  The node is filled by A (1
# CPU, t1), B (1 CPU, t2), C (3 CPUs, t3) and D (3 CPUs, t5): Slurm ranks
# preemption candidates by tier, lower first, so A, B, C, D.  A 6-CPU high
# job needs 6 free CPUs.  By hand, from select/cons_tres' _run_now
# (cons_common/job_test.c in 22.05): it removes candidates in rank order
# until the job fits - A, B, C, D (1, 2, 5, 8 free: D completes it) - then
# reorders with the job that completed the fit first and tries again, once
# plus preempt_reorder_count times:
#  1. preempt_reorder_count=0 (one reorder): D, A, B, C gives 3, 4, 5, 8
#     free, C completes it: all four are preempted;
#  2. the default, 1 (slurmctld restarted without the parameter: two
#     reorders): the second order C, D gives 3, 6: only C and D.
# sched/fairway must plan exactly those victims ("preempts N job(s)" in
# its log line for the start), and the victims signalled are the same as
# under Slurm's own sched/backfill on a second cluster (printed beside).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/twin_lib.sh"

shape=(--nodes 1 --cpus 8 --select-params CR_Core)
common='PreemptType=preempt/partition_prio
PreemptMode=REQUEUE
JobRequeue=1
PartitionName=t1 Nodes=n1 PriorityTier=1 MaxTime=INFINITE State=UP
PartitionName=t2 Nodes=n1 PriorityTier=2 MaxTime=INFINITE State=UP
PartitionName=t3 Nodes=n1 PriorityTier=3 MaxTime=INFINITE State=UP
PartitionName=t5 Nodes=n1 PriorityTier=5 MaxTime=INFINITE State=UP
PartitionName=high Nodes=n1 PriorityTier=10 PreemptMode=OFF MaxTime=INFINITE State=UP'

planned() { grep -o "JobId=$1 preempts [0-9]* job(s)" "$LOG" | head -n1 | awk '{print $3}'; }

# fill_and_preempt KEY: prints KEY_preempted, KEY_victims (letters),
# KEY_planned (the count in sched/fairway's log line) and KEY_state.
fill_and_preempt() {
  local k=$1 a b c d o v x names=""
  a=$(submit -p t1 -n 1 -t 5 --wrap 'sleep 300')
  b=$(submit -p t2 -n 1 -t 5 --wrap 'sleep 300')
  c=$(submit -p t3 -n 3 -t 5 --wrap 'sleep 300')
  d=$(submit -p t5 -n 3 -t 5 --wrap 'sleep 300')
  wait_until 20 all_running 4
  o=$(submit -p high -N 1 -n 6 -t 2 --wrap 'sleep 120')
  wait_until 30 job_is "$o" RUNNING
  echo "${k}_state $(job_state "$o")"
  echo "${k}_preempted $(npre "$o")"
  for v in $(preempted_for "$o"); do
    for x in a b c d; do [ "$v" = "${!x}" ] && names+="$x"; done
  done
  echo "${k}_victims ${names:-none}"
  echo "${k}_planned $(planned "$o")"
  scancel -u root; wait_until 30 queue_empty
}

scen() {
  say "1. preempt_reorder_count=0: one reorder, all four preempted"
  fill_and_preempt r0
  say "2. the default (restarted without it): two reorders, C and D"
  sed -i 's/,preempt_reorder_count=0//' "$SLURM_CONF"
  restart_ctld || echo "restart_failed"
  wait_until 30 bash -c 'sinfo -h -o %T | grep -qv -E "down|unk"'
  fill_and_preempt r1
}

twin_start fw-reorder 18000 18020 "$common" \
  bf_interval=1,bf_resolution=1,preempt_reorder_count=0 "${shape[@]}"
twin_run scen
keys=(r0_state r0_preempted r0_victims r0_planned r1_state r1_preempted r1_victims r1_planned)
twin_table "${keys[@]}"

say "checks (sched/fairway)"
check_eq "1. preempt_reorder_count=0: the high job runs" RUNNING "$(f r0_state)"
check_eq "... after preempting A, B, C and D" abcd "$(f r0_victims)"
check_eq "... as it planned (its log line)" 4 "$(f r0_planned)"
check_eq "... the same victims as sched/backfill" "$(r r0_victims)" "$(f r0_victims)"
check_eq "2. the default: the high job runs" RUNNING "$(f r1_state)"
check_eq "... after preempting C and D only" cd "$(f r1_victims)"
check_eq "... as it planned (its log line)" 2 "$(f r1_planned)"
check_eq "... the same victims as sched/backfill" "$(r r1_victims)" "$(f r1_victims)"
finish
