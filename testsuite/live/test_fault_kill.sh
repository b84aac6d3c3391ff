#!/bin/bash
# kill -9 of slurmctld in the middle of a backfill pass, twice:
#  - the kill lands inside the pass for certain: gdb stops slurmctld at the
#    21st job sched/fairway's backfill pass decides (a breakpoint on the
#    planner's fw_plan_decide with pass == FW_PASS_BACKFILL) and kills it
#    there, with the pass holding slurmctld's job write lock;
#  - after each restart no job is lost (every job id is still known, the
#    running jobs still run) and fair-share usage equals the CPU-seconds the
#    jobs really consumed (from Slurm's own start/end times): the first kill
#    comes before any usage was saved, the second after the restart saved
#    the first part, so a usage file that was not restored, time that was
#    not charged across the downtime, or time charged twice all fail;
#  - the queue is then scheduled to completion.
# Restart recovery times (kill to squeue answering, to the first backfill
# pass) are printed for doc/reliability-faults.md.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fault_lib.sh"

extra=$(mktemp)
cat > "$extra" <<'EOF2'
SchedulerParameters=sched_interval=-1,defer,bf_interval=1
PriorityDecayHalfLife=0
PriorityUsageResetPeriod=NONE
PriorityWeightFairshare=10000
EOF2
start_cluster fw-fkill 17520 --slurm-extra "$extra"
rm -f "$extra"

if ! command -v gdb > /dev/null; then
  fail "gdb is not installed (contrib/install-deps.sh installs it)"; finish; exit 1
fi

say "4 long jobs fill the cluster (2 CPUs each), 60 more wait"
long=()
for i in 1 2 3 4; do long+=("$(submit -N1 --exclusive -t 5 -J long --wrap 'sleep 150')"); done
for i in $(seq 60); do submit -N1 --exclusive -t 1 -J short --wrap 'sleep 1' > /dev/null; done
for j in "${long[@]}"; do
  wait_until 30 job_is "$j" RUNNING || fail "long job $j did not start"
done

# kill_mid_backfill LABEL: stop slurmctld inside a backfill pass and kill it
# there; then restart it and check what survived.
kill_mid_backfill() {
  local label=$1 glog="$_cluster_dir/gdb-$1.log" before after p t0 up bf
  slurm_saved "${long[0]}" || fail "[$label] Slurm did not save its job state"
  before=$(all_job_ids | tr '\n' ' ')
  t_kill=$(date +%s) # usage truth is taken from here on
  p=$(ctld_pid)
  # gdb answers "yes" to its own questions in batch mode; 'kill' is SIGKILL.
  timeout 120 gdb -p "$p" -batch -nx -ex 'set pagination off' \
    -ex 'break fw_plan_decide if pass == FW_PASS_BACKFILL' -ex 'ignore 1 20' \
    -ex continue -ex 'bt 6' -ex 'print *j' -ex kill -ex quit > "$glog" 2>&1
  check "[$label] gdb stopped slurmctld inside a backfill pass" \
    grep -q "sf_run_pass (kind=kind@entry=SF_PASS_BACKFILL)" "$glog"
  check "[$label] slurmctld was killed there" wait_until 20 not_running "$p"
  t0=$(date +%s.%N)
  ctld_start
  up=$(ctld_wait_up 60) || { fail "[$label] slurmctld did not come back"; tail -20 "$_cluster_dir/log/slurmctld.log"; return; }
  wait_until 60 bash -c "sdiag | grep -q 'Total cycles: [1-9]'" || fail "[$label] no backfill pass after restart"
  bf=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b-a}')
  echo "    restart recovery [$label]: squeue answers after $up s, first backfill pass done after $bf s"
  after=$(all_job_ids | tr '\n' ' ')
  check_eq "[$label] every job id is still known after the restart" "$before" "$after"
  for j in "${long[@]}"; do
    check_eq "[$label] long job $j still running" RUNNING "$(job_state "$j")"
  done
}

has_usage() { [ -n "$(fw_usage "$1")" ]; }
usage_check() { # label t_restart_begin
  local u lo hi t1
  # The first recalculation after a restart charges every running job up
  # to that moment and nothing more until the next PriorityCalcPeriod
  # (60 s): so usage = truth at some instant between the restart and now.
  wait_until 30 has_usage "${long[0]}" || true
  u=$(fw_usage "${long[0]}"); t1=$(date +%s)
  lo=$(true_usage "$2"); hi=$(true_usage "$t1")
  # 1 s of rounding per job (8 CPUs in all) on each side
  echo "    usage [$1]: fairway reports $u CPU-s; truth is $lo at the restart, $hi now"
  check "[$1] usage is the CPU-seconds really used ($lo-8 <= $u <= $hi+8)" \
    awk -v u="$u" -v lo="$lo" -v hi="$hi" 'BEGIN{exit !(u != "" && u >= lo-8 && u <= hi+8)}'
}

say "first kill: before any usage was saved"
sleep 5 # 8 CPUs x 5 s: lost usage would show
kill_mid_backfill first
usage_check first "$t_kill"

say "second kill: after the restart saved the usage so far"
# the restart's first recalculation wrote the state file: wait for it
wait_until 30 grep -q "^node U root root [1-9]" "$_cluster_dir/state/fairway_priority_state" ||
  fail "state file has no usage after the first restart"
saved=$(awk '$1=="node" && $2=="U" {print $5}' "$_cluster_dir/state/fairway_priority_state")
echo "    saved usage before the second kill: $saved CPU-s"
sleep 8
kill_mid_backfill second
usage_check second "$t_kill"
check "restored the saved usage (log)" grep -q "priority/fairway: restored fair-share usage" <(ctld_log)
check "no state file was found unusable" bash -c "! grep -q 'unusable' '$_cluster_dir/log/slurmctld.log'"

say "the queue runs to completion after the kills"
for j in "${long[@]}"; do scancel "$j"; done
# keep 8 of the waiting jobs (two rounds on 4 nodes), cancel the rest
squeue -h -t PD -n short -o %i | sort -n | tail -n +9 | xargs -r scancel
keep=$(squeue -h -t PD -n short -o %i | sort -n)
check "the kept jobs run to completion" wait_until 90 queue_empty
for j in $keep; do
  check_eq "job $j completed" COMPLETED "$(job_state "$j")"
done
check "slurmctld is alive" ctld_alive
finish
