#!/bin/bash
# sched/fairway with gres/mps (issue 14): select/cons_tres CR_Core_Memory,
# 2 nodes of 8 CPUs and 16000 MB, each with gpu:2 (placeholder device
# files) and mps:200, which slurmd spreads over the node's two GPUs (100
# each).  The same jobs run at the same time on a twin cluster under
# Slurm's own sched/backfill; both are printed side by side.  Expected by
# hand from select/cons_tres' rules: a job's mps share on a node comes from
# one GPU, and mps has Flags=one_sharing by default (gres.conf(5)): while
# any mps is in use on a node, only the GPU already serving it may give
# more (gres_use_busy_dev()):
#  1. four 1-CPU mps:50 jobs start at once, two per node (each node's first
#     GPU: 100);
#  2. a fifth mps:50 job waits, although each node's second GPU is idle
#     (one_sharing), under both schedulers; sched/fairway never offers it
#     to select_nodes() (before 2026-11-27 the plan counted 100 free per
#     node and was refused every pass: 12 refused-start lines in 6 s);
#  3. once one of the four is cancelled, it starts within 5 s.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/twin_lib.sh"

shape=(--nodes 2 --cpus 8 --mem 16000 --select-params CR_Core_Memory
  --gres 1-2:gpu:2 --gres 1-2:mps:200)

scen() {
  local x s=() fifth
  say "1. four mps:50 jobs"
  for x in 1 2 3 4; do
    s+=("$(submit -n 1 --mem=1000 --gres=mps:50 -t 5 --wrap 'sleep 300')")
  done
  wait_until 15 all_running 4
  echo "started $(running_count) n1:$(on_node n1) n2:$(on_node n2)"
  say "2. a fifth mps:50 job waits (one_sharing)"
  fifth=$(submit -n 1 --mem=1000 --gres=mps:50 -t 1 --wrap 'sleep 5')
  sleep 6
  echo "fifth_state $(job_state "$fifth")"
  echo "fifth_refused $(refused "$fifth")"
  say "3. one of the four is cancelled"
  after_cancel fifth "$fifth" "${s[0]}"
  scancel -u root; wait_until 30 queue_empty
}

twin_start fw-mps 18040 18060 "DefMemPerCPU=1000" bf_interval=1,bf_resolution=1 "${shape[@]}"
twin_run scen
keys=(started fifth_state fifth_refused fifth_after)
twin_table "${keys[@]}"

say "checks (sched/fairway)"
check_eq "1. four mps:50 jobs run at once, two per node" "4 n1:2 n2:2" "$(f started)"
check_eq "... as under sched/backfill" "$(r started)" "$(f started)"
check_eq "2. a fifth waits (sched/backfill: $(r fifth_state))" PENDING "$(f fifth_state)"
check_eq "... and is never offered to select_nodes() (refused-start lines)" 0 "$(f fifth_refused)"
check "3. it starts within 5 s of a cancellation: $(f fifth_after) s (sched/backfill: $(r fifth_after) s)" \
  bash -c "[[ '$(f fifth_after)' =~ ^[0-9]+$ ]] && [ '$(f fifth_after)' -le 5 ]"
finish
