#!/bin/bash
# Node Weight (slurm.conf; lower weights are allocated first) in
# sched/fairway's plan, beside Slurm's own sched/backfill on a cluster of
# the same shape (4 nodes of 4 CPUs, select/cons_tres CR_CPU).  The weights
# are set at run time (scontrol update), as sites do:
#  - n1, n2 get Weight=10 (n3, n4 keep 1).  A job holds all four nodes; a
#    waiting whole-node job is then planned on n3 (the lowest weight, then
#    the lowest index: worked out by hand), a waiting 2-node job on n4 and
#    n1 (n3 is the first job's; then weight 1 before 10).  Before weights
#    were read the plan named n1 and n[1-2].
#  - explain says the first waiting job waits for the running job on n3
#    (a job holding whole nodes: its id was printed as 0 before);
#  - n3, n4 get Weight=20: the first waiting job is re-planned on n1
#    (the plugin notices a weight change without a reconfigure);
#  - when the nodes are free (the waiting jobs held until every node is
#    idle, then the first released), it starts there.
# The same steps on the twin under sched/backfill; both columns printed.
# Slurm 22.05's sched/backfill plans the same nodes; 24.11's names n1 and
# n[2-3] for the waiting jobs (the lowest indices) and starts the first
# on n1 as well: only the start is compared with it.
source "$(dirname "$0")/lib.sh"

sched=bf_interval=1,bf_resolution=1,bf_window=60

all_idle() { [ "$(sinfo -h -N -o %t | sort -u)" = idle ]; }

# Prints "KEY VALUE" lines.
scenario() {
  scontrol update NodeName=n[1-2] Weight=10
  local a b c
  a=$(submit -N4 --exclusive -t 1 -J all --wrap "sleep 40")
  wait_until 15 job_is "$a" RUNNING || echo "error the 4-node job did not start"
  b=$(submit -N1 --exclusive -t 1 -J one --wrap "sleep 2")
  c=$(submit -N2 --exclusive -t 1 -J two --wrap "sleep 2")
  wait_until 10 bash -c "[ -n \"\$(squeue -h -j $c -o %Y | grep -v '^(null)$')\" ]"
  sleep 2
  echo "all_job $a"
  # sched/fairway only: what explain says the waiting job waits for
  echo "one_waits_for $(fairway_cmd explain "$b" 2>/dev/null | sed -n 's/^  Waits for: //p' | head -n1 | tr ' ' _)"
  echo "one_planned $(sched_nodes "$b")"
  echo "two_planned $(sched_nodes "$c")"
  scontrol update NodeName=n[3-4] Weight=20
  wait_until 10 bash -c "[ \"\$(squeue -h -j $b -o %Y)\" = n1 ]"
  echo "one_replanned $(sched_nodes "$b")"
  # Held until every node is idle: the killed job's batch host (n1)
  # frees last, and a start in between would rightly take n2 (the same
  # weight, free first), as a run on Slurm 24.11 did.
  scontrol hold "$b" "$c"
  scancel "$a"
  wait_until 20 all_idle || echo "error the nodes did not become idle"
  scontrol release "$b"
  wait_until 20 bash -c "[ \"\$(squeue -h -j $b -o %T)\" != PENDING ]"
  echo "one_ran_on $(job_field "$b" NodeList)"
  scancel "$b" "$c" 2>/dev/null
  wait_until 20 queue_empty
}

say "sched/fairway"
start_cluster fw-weight 18100 --cpus 4 --sched-params "$sched"
out_fw=$(scenario)
stop_cluster
say "sched/backfill (Slurm's own)"
start_cluster fw-weight-ref 18120 --cpus 4 --sched-params "$sched" --no-fairway
out_ref=$(scenario)
stop_cluster

v() { echo "$1" | awk -v k="$2" '$1 == k { print $2 }'; }
printf '    %-14s %-16s %s\n' step sched/fairway sched/backfill
for k in one_planned two_planned one_replanned one_ran_on; do
  printf '    %-14s %-16s %s\n' "$k" "$(v "$out_fw" "$k")" "$(v "$out_ref" "$k")"
done
check_eq "a waiting 1-node job is planned on the lowest-weight node" \
  n3 "$(v "$out_fw" one_planned)"
check_eq "a waiting 2-node job: the other weight-1 node, then n1" \
  "n[1,4]" "$(v "$out_fw" two_planned)"
check_eq "explain names the running job that holds n3 (a whole-node job)" \
  "running_job_$(v "$out_fw" all_job)_on_n3" "$(v "$out_fw" one_waits_for)"
check_eq "after a weight change (no reconfigure) it is re-planned on n1" \
  n1 "$(v "$out_fw" one_replanned)"
check_eq "... and starts there" n1 "$(v "$out_fw" one_ran_on)"
check_eq "sched/backfill starts it on the same node" \
  "$(v "$out_ref" one_ran_on)" "$(v "$out_fw" one_ran_on)"
echo "$out_fw$out_ref" | grep '^error' && fail "a scenario step failed"
finish
