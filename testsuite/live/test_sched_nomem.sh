#!/bin/bash
# Jobs without a memory request on a cluster where memory is consumable and
# no DefMemPerCPU/DefMemPerNode is set (issue 14): select/cons_tres
# CR_Core_Memory, 2 nodes of 4 CPUs and 1000 MB.  Slurm then gives such a
# job all the memory of each of its nodes (slurm.conf(5), DefMemPerNode),
# so nothing else fits beside it and it fits only on a node where no job
# holds memory; sched/fairway plans it on whole nodes (sched_fairway(8)).
# By hand, in hold_lib.sh's scenario (every job 1 CPU): A without --mem
# runs on n1 with mem=1000M; B (--mem=100) then runs on n2, since n1 has 3
# CPUs but no memory; C without --mem waits (n1 is A's, n2 holds B's
# 100 MB) and is planned on n1 at A's limit, not on n2 (B holds it until
# 180 s); D (--mem=100) starts at once on n2 beside B.  The same jobs run
# at the same time on a twin cluster under Slurm's own sched/backfill;
# both are printed side by side.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/twin_lib.sh"
source "$(dirname "$0")/hold_lib.sh"

shape=(--nodes 2 --cpus 4 --mem 1000 --select-params CR_Core_Memory)
hold_job() {
  case $1 in
    a|c) submit -n 1 -t "$2" --wrap "sleep $3";;
    *) submit -n 1 --mem=100 -t "$2" --wrap "sleep $3";;
  esac
}
# a running job's memory, from TRES= (22.05) or AllocTRES= (24.11)
hold_detail() {
  local t; t=$(job_field "$1" AllocTRES)
  [ -n "$t" ] || t=$(job_field "$1" TRES)
  echo "$t" | grep -o "mem=[^,]*"
}

twin_start fw-nomem 18160 18180 "" bf_interval=1,bf_resolution=1 "${shape[@]}"
twin_run hold_scen
twin_table a b c c_start c_refused d ran

say "checks (sched/fairway)"
check_eq "A holds all of n1's memory" "n1 mem=1000M" "$(f a)"
hold_checks n2
finish
