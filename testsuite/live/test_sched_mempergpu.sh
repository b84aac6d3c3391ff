#!/bin/bash
# --mem-per-gpu on shared nodes (issue 14): select/cons_tres
# CR_Core_Memory, 2 nodes of 4 CPUs, 1000 MB and gpu:2 (placeholder device
# files).  A job's memory on a node is then its GPUs there times
# --mem-per-gpu (slurm.conf(5)); the plan books that, not a default per
# CPU.  By hand, in hold_lib.sh's scenario (every job 1 CPU and
# --gpus-per-node=1): A (600 MB per GPU) runs on n1; B (600) then runs on
# n2, since n1 has a GPU but 400 MB; C (600) waits (each node has a GPU
# but 400 MB) and is planned on n1 at A's limit; D (300) starts at once on
# n1 beside A (a GPU and 400 MB; C still fits there at 60 s: A's GPU and
# 700 MB).  sched/backfill starts D on n2: it holds n1 whole for C's
# reservation, Fairway only C's share (issue 14).  The same jobs run at
# the same time on a twin cluster under Slurm's own sched/backfill; both
# are printed side by side.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/twin_lib.sh"
source "$(dirname "$0")/hold_lib.sh"

shape=(--nodes 2 --cpus 4 --mem 1000 --select-params CR_Core_Memory --gres 1-2:gpu:2)
hold_job() {
  local m=600
  [ "$1" = d ] && m=300
  submit -n 1 --gpus-per-node=1 --mem-per-gpu=$m -t "$2" --wrap "sleep $3"
}

twin_start fw-mempergpu 18200 18220 "" bf_interval=1,bf_resolution=1 "${shape[@]}"
twin_run hold_scen
twin_table a b c c_start c_refused d ran

say "checks (sched/fairway)"
hold_checks n1
finish
