#!/bin/bash
# sched/fairway with a shared GRES (issue 14): select/cons_tres
# CR_Core_Memory, 2 nodes of 8 CPUs and 16000 MB, each with gpu:2
# (placeholder device files) and shard:8, which slurmd spreads over the
# node's two GPUs (4 each).  The same jobs run at the same time on a twin
# cluster under Slurm's own sched/backfill; both are printed side by side.
# Expected values by hand from select/cons_tres' rule: a job's shards on a
# node come from one GPU (SelectTypeParameters without
# MULTIPLE_SHARING_GRES_PJ), so a node holds two shard:4 jobs and no
# shard:5 job at all:
#  0. on the idle cluster, a shard:5 job can never run: sched/fairway
#     never offers it to select_nodes() (before 2026-11-27 it planned it
#     on a node with 8 free shards, every pass, and logged a "refused by
#     select_nodes()" line each time), explain says it never starts as the
#     cluster is defined, and it is not failed (Slurm's submission test
#     counts the node's 8 shards; it stays pending, as under
#     sched/backfill); it is then cancelled;
#  1. four 1-CPU shard:4 jobs (1-minute limit) start at once, two per node;
#  2. a shard:1 job then waits (no shard is free) and is planned at the
#     first of their limits (StartTime within 3 s of it);
#  3. free shards spread over GPUs: with two shard:3 jobs on each node (one
#     per GPU, 1 shard left on each), a node has 2 shards free but no GPU
#     with 2, so a shard:2 job waits; sched/fairway does not offer it to
#     select_nodes() (before, the plan counted 2 free shards per node and
#     every pass was refused), its StartTime is the first of those jobs'
#     time limits (5 min after they started, +-3 s: no GPU has room before
#     one ends; before, the next 1-s step), and it starts within a few
#     seconds once one of those jobs is cancelled (its GPU then has 4 free);
#  4. a GPU carrying a shard is not free whole: with one shard:1 job on
#     each node, a gpu:2 job waits, is not offered to select_nodes(), and
#     starts within a few seconds of one shard job's cancellation.
# The same steps run under sched/backfill (printed beside).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/twin_lib.sh"

shape=(--nodes 2 --cpus 8 --mem 16000 --select-params CR_Core_Memory
  --gres 1-2:gpu:2 --gres 1-2:shard:8)

# on NODE SHARDS: a 1-CPU job on NODE holding SHARDS shards for 5 minutes
on() { submit -w "$1" -n 1 --mem=1000 --gres=shard:"$2" -t 5 --wrap 'sleep 300'; }
# waits_then_starts KEY JOB CANCEL [END]: JOB waits (KEY_est: its
# StartTime - END, when END is given); after cancelling CANCEL, the
# seconds until it leaves PENDING (or "none" within 20 s)
waits_then_starts() {
  sleep 6
  echo "${1}_state $(job_state "$2")"
  echo "${1}_refused $(refused "$2")"
  [ -z "${4:-}" ] || echo "${1}_est $(s=$(start_epoch "$2"); [ "$s" = none ] && echo none || echo $((s - $4)))"
  after_cancel "$1" "$2" "$3"
}

scen() {
  local x s=() first one five
  say "0. a shard:5 job on the idle cluster (no GPU has 5 shards)"
  five=$(submit -n 1 --mem=1000 --gres=shard:5 -t 1 --wrap 'sleep 5')
  sleep 8
  echo "five_state $(job_state "$five") $(job_field "$five" Reason)"
  echo "five_refused $(refused "$five")"
  [ "${FW_EXPLAIN:-1}" = 1 ] &&
    echo "five_explain $(fairway_cmd explain "$five" 2>&1 | grep -c 'never as the cluster is defined')"
  scancel "$five"; wait_until 30 queue_empty
  say "1. four shard:4 jobs: one GPU's shards each, two per node"
  for x in 1 2 3 4; do
    s+=("$(submit -n 1 --mem=1000 --gres=shard:4 -t 1 --wrap 'sleep 120')")
  done
  wait_until 15 all_running 4
  echo "started $(running_count) n1:$(on_node n1) n2:$(on_node n2)"
  first=$(for x in "${s[@]}"; do start_epoch "$x"; done | sort -n | head -n1)
  say "2. a shard:1 job waits for the first of their ends"
  one=$(submit -n 1 --mem=1000 --gres=shard:1 -t 1 --wrap 'sleep 5')
  sleep 4
  echo "one_state $(job_state "$one")"
  echo "one_start_vs_end $(s1=$(start_epoch "$one"); [ "$s1" = none ] && echo none || echo $((s1 - first - 60)))"
  scancel -u root; wait_until 30 queue_empty
  say "3. two shard:3 jobs per node (one per GPU): a shard:2 job waits"
  local a1 two g2 c1
  a1=$(on n1 3); on n1 3 > /dev/null; on n2 3 > /dev/null; on n2 3 > /dev/null
  wait_until 15 all_running 4
  echo "spread $(running_count)"
  two=$(submit -n 1 --mem=1000 --gres=shard:2 -t 1 --wrap 'sleep 5')
  waits_then_starts two "$two" "$a1" \
    $(( $(squeue -h -t R -o %S | xargs -I{} date -d {} +%s | sort -n | head -n1) + 300 ))
  scancel -u root; wait_until 30 queue_empty
  say "4. one shard:1 job per node: a gpu:2 job waits"
  c1=$(on n1 1); on n2 1 > /dev/null
  wait_until 15 all_running 2
  g2=$(submit -n 1 --mem=1000 --gres=gpu:2 -t 1 --wrap 'sleep 5')
  waits_then_starts gpu "$g2" "$c1"
  scancel -u root; wait_until 30 queue_empty
}

twin_start fw-shard 17960 17980 "DefMemPerCPU=1000" bf_interval=1,bf_resolution=1 "${shape[@]}"
twin_run scen
keys=(five_state five_refused five_explain started one_state one_start_vs_end
  spread two_state two_refused two_est two_after gpu_state gpu_refused gpu_after)
twin_table "${keys[@]}"

say "checks (sched/fairway)"
check_eq "0. a shard:5 job stays pending, not failed (as under sched/backfill: $(r five_state))" \
  "PENDING" "$(f five_state | cut -d' ' -f1)"
check_eq "... and is never offered to select_nodes() (refused-start lines)" 0 "$(f five_refused)"
check_eq "... fairway explain: never, as the cluster is defined" 1 "$(f five_explain)"
check_eq "1. four shard:4 jobs run at once, two per node" "4 n1:2 n2:2" "$(f started)"
check_eq "... as under sched/backfill" "$(r started)" "$(f started)"
check_eq "2. a shard:1 job waits" PENDING "$(f one_state)"
check "... planned at the first shard:4 job's limit (+-3 s): $(f one_start_vs_end) s (sched/backfill: $(r one_start_vs_end) s)" \
  bash -c "[[ '$(f one_start_vs_end)' =~ ^-?[0-9]+$ ]] && [ '$(f one_start_vs_end)' -ge -3 ] && [ '$(f one_start_vs_end)' -le 3 ]"
check_eq "3. four shard:3 jobs run, two per node" 4 "$(f spread)"
check_eq "... a shard:2 job waits (no GPU has 2 free; sched/backfill: $(r two_state))" PENDING "$(f two_state)"
check_eq "... and is never offered to select_nodes() (refused-start lines)" 0 "$(f two_refused)"
check "... its StartTime is the first shard:3 job's limit (+-3 s): $(f two_est) s (sched/backfill: $(r two_est) s)" \
  bash -c "[[ '$(f two_est)' =~ ^-?[0-9]+$ ]] && [ '$(f two_est)' -ge -3 ] && [ '$(f two_est)' -le 3 ]"
check "... it starts within 5 s of a GPU's shards being freed: $(f two_after) s (sched/backfill: $(r two_after) s)" \
  bash -c "num() { [[ \$1 =~ ^[0-9]+\$ ]]; }; num '$(f two_after)' && [ '$(f two_after)' -le 5 ]"
waits() { [ "$1" = PENDING ] && echo waits || echo starts; }
check_eq "4. a gpu:2 job beside shard jobs waits or starts as under sched/backfill ($(r gpu_state))" \
  "$(waits "$(r gpu_state)")" "$(waits "$(f gpu_state)")"
check_eq "... and is never offered to select_nodes() (refused-start lines)" 0 "$(f gpu_refused)"
finish
