#!/bin/bash
# Jobs without a memory request on a cluster where memory is consumable and
# no DefMemPerCPU/DefMemPerNode is set (issue 14): select/cons_tres
# CR_Core_Memory, 2 nodes of 4 CPUs and 1000 MB.  Slurm then gives such a
# job all the memory of each of its nodes (slurm.conf(5), DefMemPerNode),
# so nothing else fits beside it and it fits only on a node where no job
# holds memory; sched/fairway plans it on whole nodes (sched_fairway(8)).
# By hand:
#  1. A (1 CPU, no --mem, 1-minute limit) runs on n1 with all 1000 MB;
#     B (1 CPU, --mem=100, 3 minutes) then runs on n2: n1 has 3 CPUs free
#     but no memory.
#  2. C (1 CPU, no --mem, 1 minute) waits: n1 is A's, n2 holds B's 100 MB.
#     It is planned at A's limit (60 s) on n1, not on n2 (B holds it until
#     180 s), and never offered to select_nodes() before.
#  3. D (1 CPU, --mem=100, 1 minute) starts at once on n2 beside B.
# (A and B run 15 s of their limits, C 2 s, D 10 s.)
# The same jobs run at the same time on a twin cluster under Slurm's own
# sched/backfill; both are printed side by side.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/twin_lib.sh"

shape=(--nodes 2 --cpus 4 --mem 1000 --select-params CR_Core_Memory)

# a running job's memory, from TRES= (22.05) or AllocTRES= (24.11)
mem_of() {
  local t; t=$(job_field "$1" AllocTRES)
  [ -n "$t" ] || t=$(job_field "$1" TRES)
  echo "$t" | grep -o "mem=[^,]*"
}

scen() {
  local a b c d
  say "1. A without --mem, then B with --mem=100"
  a=$(submit -n 1 -t 1 --wrap 'sleep 15')
  wait_until 10 all_running 1
  b=$(submit -n 1 --mem=100 -t 3 --wrap 'sleep 15')
  wait_until 10 all_running 2
  echo "a $(node_of "$a") $(mem_of "$a")"
  echo "b $(node_of "$b")"
  say "2. C without --mem waits; 3. D with --mem=100 starts beside B"
  c=$(submit -n 1 -t 1 --wrap 'sleep 2')
  d=$(submit -n 1 --mem=100 -t 1 --wrap 'sleep 10')
  sleep 4
  echo "c $(job_state "$c") $(job_field "$c" SchedNodeList)"
  echo "c_start $(since "$c" "$(start_epoch "$a")")"
  echo "c_refused $(refused "$c")"
  echo "d $(job_state "$d") $(node_of "$d")"
  wait_until 60 queue_empty
  echo "ran $(job_state "$c") $(job_state "$d")"
}

twin_start fw-nomem 18160 18180 "" bf_interval=1,bf_resolution=1 "${shape[@]}"
twin_run scen
twin_table a b c c_start c_refused d ran

say "checks (sched/fairway)"
check_eq "1. A runs on n1 with all the node's memory" "n1 mem=1000M" "$(f a)"
check_eq "... and B on n2 (no memory left on n1)" n2 "$(f b)"
check_eq "2. C waits, planned on n1" "PENDING n1" "$(f c)"
check "... at A's limit (StartTime - A's start: 60 s, +-2 s): $(f c_start)" \
  bash -c "[[ '$(f c_start)' =~ ^[0-9]+$ ]] && [ '$(f c_start)' -ge 58 ] && [ '$(f c_start)' -le 62 ]"
check_eq "... and is never offered to select_nodes()" 0 "$(f c_refused)"
check_eq "3. D starts at once on n2 beside B" "RUNNING n2" "$(f d)"
check_eq "... both run" "COMPLETED COMPLETED" "$(f ran)"
finish
