# twin_lib.sh - one scenario on a Fairway cluster and, at the same time,
# on a twin of the same shape under Slurm's own priority/multifactor +
# sched/backfill, with the observations side by side.  Sourced after
# lib.sh by the preemption tests.
#
#   twin_start NAME PORT REF_PORT COMMON BF [cluster-start options...]
#       COMMON: slurm.conf lines of both clusters; BF: SchedulerParameters
#       of both (Fairway's get sched_interval=-1 in front).  The arrays
#       TWIN_FW_ARGS and TWIN_REF_ARGS add options for one side only
#       (--dbd and its port).  Sets ref_dir; an EXIT trap stops both.
#   twin_run FUNC
#       FUNC prints "KEY VALUE" lines (and "[time] ..." progress); it runs
#       on both clusters at once, LOG naming each one's slurmctld log,
#       FW_EXPLAIN=0 on the twin.  out_fw and out_ref keep the lines.
#   twin_table KEY...       the table, sched/backfill beside sched/fairway
#   f KEY / r KEY           one value of sched/fairway / sched/backfill
#   no_later FW REF         Fairway's seconds are a number, at most REF + 3
#   near_s S EXPECTED       S is a number within 2 s of EXPECTED (lib.sh's near)
#   no_more FW REF          Fairway's count is a number, at most REF
#
# PARTPRIO_CONF: the partitions of the preempt/partition_prio tests, on
# n[1-2]: low (PriorityTier 1), low2 (2), peer (1, PreemptMode=OFF), lowc
# (1, CANCEL), high (10, PreemptMode=OFF); PreemptMode=REQUEUE.
#
# Preemption as slurmctld's log tells it (LOG):
#   preempted_for JOB       the jobs preempted for JOB, sorted
#   npre JOB                how many
#   running_count, all_running N, node_of JOB, since JOB T (start - T)
#   on_node NODE            running jobs on NODE
#   refused JOB             sched/fairway's "refused by select_nodes()" lines
#   not_pending JOB         its state is no longer PENDING
#   after_cancel KEY JOB VICTIM   cancels VICTIM, prints KEY_after: the
#                           seconds until JOB leaves PENDING (none: 20 s)

PARTPRIO_CONF='PreemptType=preempt/partition_prio
PreemptMode=REQUEUE
JobRequeue=1
PartitionName=low Nodes=n[1-2] PriorityTier=1 MaxTime=INFINITE State=UP
PartitionName=low2 Nodes=n[1-2] PriorityTier=2 MaxTime=INFINITE State=UP
PartitionName=peer Nodes=n[1-2] PriorityTier=1 PreemptMode=OFF MaxTime=INFINITE State=UP
PartitionName=lowc Nodes=n[1-2] PriorityTier=1 PreemptMode=CANCEL MaxTime=INFINITE State=UP
PartitionName=high Nodes=n[1-2] PriorityTier=10 PreemptMode=OFF MaxTime=INFINITE State=UP'

preempted_for() {
  grep -o "preempted JobId=[0-9]* has been [a-z]* to reclaim resources for JobId=$1\b" "$LOG" |
    awk '{print $2}' | sed 's/JobId=//' | sort -n | paste -sd' '
}
npre() { local v; v=$(preempted_for "$1"); [ -z "$v" ] && echo 0 || echo "$v" | wc -w; }
running_count() { squeue -h -t R -o %i | wc -l; }
all_running() { [ "$(running_count)" = "$1" ]; }
node_of() { squeue -h -j "$1" -o %N 2>/dev/null; }
since() { local s; s=$(start_epoch "$1"); [ "$s" = none ] && echo none || echo $((s - $2)); }
on_node() { squeue -h -t R -w "$1" -o %i 2>/dev/null | wc -l; }
refused() { grep -c "start of JobId=$1 refused by select_nodes" "$LOG"; }
not_pending() { [ "$(job_state "$1")" != PENDING ]; }
after_cancel() {
  local t0
  scancel "$3"; t0=$(date +%s)
  if wait_until 20 not_pending "$2"; then echo "${1}_after $(( $(date +%s) - t0 ))"
  else echo "${1}_after none"; fi
}

twin_start() {
  local name=$1 port=$2 ref_port=$3 common=$4 bf=$5 extra extra_ref
  shift 5
  ref_dir="$FW_LIVE_DIR/$name-ref"
  extra=$(mktemp); extra_ref=$(mktemp)
  printf '%s\nSchedulerParameters=sched_interval=-1,%s\n' "$common" "$bf" > "$extra"
  printf '%s\nSchedulerParameters=%s\n' "$common" "$bf" > "$extra_ref"
  start_cluster "$name" "$port" "$@" "${TWIN_FW_ARGS[@]}" --slurm-extra "$extra"
  bash "$FW_TOP/contrib/cluster-stop.sh" --dir "$ref_dir" >/dev/null 2>&1
  if ! bash "$FW_TOP/contrib/cluster-start.sh" --dir "$ref_dir" --name "$name-ref" \
      --port "$(live_port "$ref_port")" --no-fairway "$@" "${TWIN_REF_ARGS[@]}" \
      --slurm-extra "$extra_ref" >/dev/null; then
    fail "the reference cluster (sched/backfill) did not start; logs in $ref_dir/log"
  fi
  trap 'stop_cluster; bash "$FW_TOP/contrib/cluster-stop.sh" --dir "$ref_dir" >/dev/null 2>&1' EXIT
  rm -f "$extra" "$extra_ref"
}

twin_run() {
  local refpid
  out_ref="$ref_dir/scen.out"; out_fw="$_cluster_dir/scen.out"
  ( export SLURM_CONF="$ref_dir/etc/slurm.conf"; JOBDIR="$ref_dir/jobs" FW_EXPLAIN=0
    _cluster_dir=$ref_dir
    LOG="$ref_dir/log/slurmctld.log"
    mkdir -p "$JOBDIR"; chmod 1777 "$JOBDIR"; "$1" > "$out_ref" 2>&1 ) &
  refpid=$!
  LOG="$_cluster_dir/log/slurmctld.log" "$1" | tee "$out_fw" | grep -v '^[a-z]'
  wait "$refpid"
}

val() { sed -n "s/^$2 //p" "$1" | head -n1; }
f() { val "$out_fw" "$1"; }
r() { val "$out_ref" "$1"; }

twin_table() {
  local k
  printf '    %-20s %-24s %s\n' observation "sched/backfill" "sched/fairway"
  for k in "$@"; do
    printf '    %-20s %-24s %s\n' "$k" "$(r "$k")" "$(f "$k")"
  done
}

num() { [[ "$1" =~ ^-?[0-9]+$ ]]; }
near_s() { num "$1" && near "$1" "$2"; }
no_later() { num "$1" && { ! num "$2" || [ "$1" -le $(($2 + 3)) ]; }; }
no_more() { num "$1" && { ! num "$2" || [ "$1" -le "$2" ]; }; }
