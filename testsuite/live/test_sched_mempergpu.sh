#!/bin/bash
# --mem-per-gpu on shared nodes (issue 14): select/cons_tres
# CR_Core_Memory, 2 nodes of 4 CPUs, 1000 MB and gpu:2 (placeholder device
# files).  A job's memory on a node is then its GPUs there times
# --mem-per-gpu (slurm.conf(5)); the plan books that, not a default per
# CPU.  By hand (every job 1 CPU and --gpus-per-node=1):
#  1. A (--mem-per-gpu=600, 1-minute limit) runs on n1; B (600, 3 minutes)
#     then runs on n2: n1 has a GPU free but 400 MB.
#  2. C (600, 1 minute) waits: each node has a GPU but 400 MB free.  It is
#     planned at A's limit (60 s) on n1, and never offered to
#     select_nodes() before.
#  3. D (300, 1 minute) starts at once on n1 beside A (a GPU, 400 MB; C
#     still fits there at 60 s: A's GPU and 700 MB).  sched/backfill starts
#     it on n2: it holds n1 whole for C's reservation, Fairway only C's
#     share (issue 14).
# (A and B run 15 s of their limits, C 2 s, D 10 s.)  The same jobs run at
# the same time on a twin cluster under Slurm's own sched/backfill; both
# are printed side by side.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/twin_lib.sh"

shape=(--nodes 2 --cpus 4 --mem 1000 --select-params CR_Core_Memory --gres 1-2:gpu:2)
job() { submit -n 1 --gpus-per-node=1 --mem-per-gpu="$1" -t "$2" --wrap "sleep $3"; }

scen() {
  local a b c d
  say "1. A and B, 600 MB per GPU"
  a=$(job 600 1 15)
  wait_until 10 all_running 1
  b=$(job 600 3 15)
  wait_until 10 all_running 2
  echo "a $(node_of "$a")"
  echo "b $(node_of "$b")"
  say "2. C (600 per GPU) waits; 3. D (300 per GPU) starts beside A"
  c=$(job 600 1 2)
  d=$(job 300 1 10)
  sleep 4
  echo "c $(job_state "$c") $(job_field "$c" SchedNodeList)"
  echo "c_start $(since "$c" "$(start_epoch "$a")")"
  echo "c_refused $(refused "$c")"
  echo "d $(job_state "$d") $(node_of "$d")"
  wait_until 60 queue_empty
  echo "ran $(job_state "$c") $(job_state "$d")"
}

twin_start fw-mempergpu 18200 18220 "" bf_interval=1,bf_resolution=1 "${shape[@]}"
twin_run scen
twin_table a b c c_start c_refused d ran

say "checks (sched/fairway)"
check_eq "1. A runs on n1" n1 "$(f a)"
check_eq "... and B on n2 (n1 has a GPU but 400 MB)" n2 "$(f b)"
check_eq "2. C waits, planned on n1" "PENDING n1" "$(f c)"
check "... at A's limit (StartTime - A's start: 60 s, +-2 s): $(f c_start)" \
  bash -c "[[ '$(f c_start)' =~ ^[0-9]+$ ]] && [ '$(f c_start)' -ge 58 ] && [ '$(f c_start)' -le 62 ]"
check_eq "... and is never offered to select_nodes()" 0 "$(f c_refused)"
check_eq "3. D (300 MB per GPU) starts at once on n1 beside A" "RUNNING n1" "$(f d)"
check_eq "... both run" "COMPLETED COMPLETED" "$(f ran)"
finish
