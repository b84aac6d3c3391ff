#!/bin/bash
# Fairway's state files under StateSaveLocation (fairway_priority_state:
# fair-share usage and accrual; fairway_sched_state: bypass counts), both
# written by fw_state_write() (NAME.new, fsync, keep NAME.old, rename).
#
#  A. kill -9 at every step of a state write: the fault shim
#     (fault_shim.c, LD_PRELOAD) counts the steps each plugin takes on its
#     file at startup (create, each half of the data, fsync, close, link,
#     unlink, rename) and SIGKILLs slurmctld just before step N, for every
#     N and both files.  After each kill each file must be byte-identical
#     to the version before the run or to the complete new version the
#     plugin was writing (the shim copies every buffer before it reaches
#     the file), never anything else.
#  B. the same at random moments: the data is written in 16-byte chunks
#     with a pause between them (a wide window) and slurmctld is killed a
#     random 0-400 ms after the write began.
#  C. a corrupt, a truncated and an empty state file for each plugin: one
#     clear error line each, the damaged file kept aside byte for byte, a
#     clean start with fresh state, and jobs still scheduled.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fault_lib.sh"

fwconf=$(mktemp)
cat > "$fwconf" <<'EOF2'
Account=phys Parent=root Shares=60
Account=chem Parent=root Shares=40
EOF2
extra=$(mktemp)
cat > "$extra" <<'EOF2'
SchedulerParameters=sched_interval=-1,defer,bf_interval=30
PriorityWeightFairshare=10000
EOF2
start_cluster fw-fstate 17530 --slurm-extra "$extra" --fairway-conf "$fwconf"
rm -f "$extra" "$fwconf"
shim=$(fault_shim) || { fail "cannot build the fault shim"; finish; exit 1; }
state="$_cluster_dir/state"
fdir="$_cluster_dir/fault"
files="fairway_priority_state fairway_sched_state"

say "jobs in two accounts, so the state has content"
submit -N1 --exclusive -A phys -t 10 --wrap 'sleep 600' > /dev/null
submit -N1 --exclusive -A chem -t 10 --wrap 'sleep 600' > /dev/null
wait_until 20 bash -c '[ "$(squeue -h -t R | wc -l)" = 2 ]' || fail "the two jobs did not start"
jobs_before=$(all_job_ids | tr '\n' ' ')
first_job=${jobs_before%% *}
slurm_saved "$first_job" || fail "Slurm did not save its job state"

# snapshot DIR: copy the current state files (a missing one stays missing)
snapshot() {
  local f
  rm -rf "$1"; mkdir -p "$1"
  for f in $files; do [ -f "$state/$f" ] && cp "$state/$f" "$1/$f"; done
  return 0
}

# which_version OLD_DIR PID NAME: "old", "new" (one of the complete buffers
# run PID wrote), or "TORN"
which_version() {
  local old=$1 pid=$2 f=$3 c
  if [ ! -e "$state/$f" ]; then
    [ ! -e "$old/$f" ] && echo old || echo TORN; return
  fi
  [ -e "$old/$f" ] && cmp -s "$state/$f" "$old/$f" && { echo old; return; }
  for c in "$fdir/$f.$pid".*; do
    [ -e "$c" ] && cmp -s "$state/$f" "$c" && { echo new; return; }
  done
  echo TORN
}

dead_or_written() { ! pid_running "$1" || grep -qs "^$1 $2 [0-9]* renamed" "$fdir/events.log"; }

# start_shimmed VAR=value...: start slurmctld with the shim; prints its PID
start_shimmed() {
  ctld_start LD_PRELOAD="$shim" FW_FAULT_DIR="$fdir" "$@"
  ctld_pid
}

say "A. kill -9 before every step of every state write"
# Steps are counted per file from slurmctld's start; step N of the first
# write at startup is killed, N = 1, 2, ... until a run completes that
# write without reaching step N.  A write takes more steps when NAME.old
# exists (link fails, unlink, link again) than on a first save: both cases.
ctld_kill9
rm -rf "$fdir"; mkdir -p "$fdir"
torn=0; kills=0
for f in $files; do
  for variant in with-old without-old; do
    first=1; [ $variant = without-old ] && first=6 # steps 1-6 are the same
    for n in $(seq $first 20); do
      if [ $variant = with-old ]; then
        [ -f "$state/$f.old" ] || cp -p "$state/$f" "$state/$f.old"
      else
        rm -f "$state/$f.old"
      fi
      snapshot "$_cluster_dir/old"
      mark=$(log_mark)
      pid=$(start_shimmed FW_FAULT_KILL="$f:$n")
      # dead (killed at step n), or the write completed before step n
      for _ in $(seq 300); do dead_or_written "$pid" "$f" && break; sleep 0.1; done
      pid_running "$pid" && sleep 0.3 # killed at "renamed" takes a moment
      if pid_running "$pid"; then
        complete="$(awk -v p="$pid" -v f="$f" '$1==p && $2==f {printf "%s ", $4; if ($4=="renamed") exit}' "$fdir/events.log")"
        echo "    $f ($variant): a complete write is: $complete"
        check "$f ($variant): killed before each of its $((n - 1)) steps" \
          test "$(wc -w <<< "$complete")" = $((n - 1))
        ctld_wait_up 30 > /dev/null || fail "slurmctld (with the shim) did not answer"
        ctld_kill9
        break
      fi
      kills=$((kills + 1))
      got=""
      for g in $files; do
        v=$(which_version "$_cluster_dir/old" "$pid" "$g"); got="$got $g=$v"
        [ "$v" = TORN ] && torn=$((torn + 1))
      done
      echo "    killed $f $(awk -v p="$pid" '$1==p && /KILLED/ {print $5, $6}' "$fdir/events.log") (step $n):$got"
      if log_since "$mark" | grep -q "unusable"; then
        fail "a state file written by an earlier kill was found unusable:"
        log_since "$mark" | grep unusable
      fi
    done
  done
done
check_eq "state files after $kills kills: none torn" 0 "$torn"

say "B. kill -9 at random moments while the state is being written"
mid=0; torn=0
for i in $(seq 8); do
  snapshot "$_cluster_dir/old"
  : > "$fdir/events.log"
  pid=$(start_shimmed FW_FAULT_CHUNK=16 FW_FAULT_SLOW_US=10000)
  # poll fast: the write takes about 20 chunks x 10 ms
  for _ in $(seq 3000); do
    grep -q "^$pid fairway_priority_state [0-9]* open" "$fdir/events.log" 2>/dev/null && break
    sleep 0.01
  done
  sleep "0.$(printf '%03d' $((RANDOM % 400)))"
  ctld_kill9
  got=""
  for g in $files; do
    v=$(which_version "$_cluster_dir/old" "$pid" "$g"); got="$got $g=$v"
    [ "$v" = TORN ] && torn=$((torn + 1))
    if grep -q "^$pid $g [0-9]* open" "$fdir/events.log" &&
       ! grep -q "^$pid $g [0-9]* renamed" "$fdir/events.log"; then
      mid=$((mid + 1)); got="$got(mid-write)"
    fi
  done
  echo "    random kill $i:$got"
done
echo "    $mid of 16 file writes were cut in the middle"
check_eq "state files after 8 random kills: none torn" 0 "$torn"

say "restart cleanly: both state files load, no job was lost"
mark=$(log_mark)
ctld_start
ctld_wait_up 60 > /dev/null || fail "slurmctld did not restart"
check "priority state restored" wait_until 30 bash -c \
  "tail -c +$((mark + 1)) '$_cluster_dir/log/slurmctld.log' | grep -q 'priority/fairway: restored fair-share usage'"
check "sched state restored" bash -c \
  "tail -c +$((mark + 1)) '$_cluster_dir/log/slurmctld.log' | grep -q 'sched/fairway: restored bypass counts'"
check "nothing was kept aside as corrupt" bash -c "! ls '$state'/*.corrupt-* 2>/dev/null | grep -q ."
check_eq "every job is still known" "$jobs_before" "$(all_job_ids | tr '\n' ' ')"

say "C. corrupt, truncated and empty state files"
# slurmctld is stopped cleanly here (SIGTERM: Slurm saves its own state)
stop_ctld() {
  local p; p=$(ctld_pid)
  kill -TERM "$p"; wait_until 60 not_running "$p" || { fail "slurmctld did not stop"; ctld_kill9; }
}
# damage KIND FILE: corrupt = one digit changed, truncated = cut in half,
# empty = 0 bytes
damage() {
  local kind=$1 f="$state/$2" size
  case $kind in
    corrupt)
      # change the first digit after the first line (a count, a time or a
      # usage value: only an integrity check can tell)
      awk 'NR==1{print; next} !d && match($0, /[0-9]/) {
             c = substr($0, RSTART, 1); $0 = substr($0, 1, RSTART-1) (c == "9" ? "1" : c + 1) substr($0, RSTART+1); d=1 }
           {print}' "$f" > "$f.tmp" && mv "$f.tmp" "$f";;
    truncated) size=$(stat -c %s "$f"); truncate -s $((size / 2)) "$f";;
    empty) : > "$f";;
  esac
  chmod 600 "$f"
}
round=0
for kinds in "truncated corrupt" "corrupt truncated" "empty empty"; do
  round=$((round + 1))
  read -r kp ks <<< "$kinds"
  stop_ctld
  damage "$kp" fairway_priority_state
  damage "$ks" fairway_sched_state
  snapshot "$_cluster_dir/damaged"
  rm -f "$state"/*.corrupt-*
  mark=$(log_mark)
  ctld_start
  up=$(ctld_wait_up 60) || { fail "[$kinds] slurmctld did not start"; continue; }
  # at once: a submission in the second slurmctld started (see below)
  j=$(submit -N1 -t 1 --wrap 'sleep 1')
  echo "    [$kinds] slurmctld answers after $up s"
  for pair in "priority/fairway:fairway_priority_state:$kp" "sched/fairway:fairway_sched_state:$ks"; do
    IFS=: read -r plug f kind <<< "$pair"
    line=$(log_since "$mark" | grep "$plug: state file $state/$f is unusable")
    echo "    log: ${line#*] }"
    check "[$round] $kind $f: one clear error line" test "$(grep -c . <<< "$line")" = 1
    kept=$(ls "$state/$f".corrupt-* 2>/dev/null | head -1)
    check "[$round] $kind $f: kept aside as $(basename "${kept:-none}")" \
      bash -c "[ -n '$kept' ] && cmp -s '$kept' '$_cluster_dir/damaged/$f'"
    check "[$round] $kind $f: the log names the kept file" grep -qF "kept aside as $kept" <<< "$line"
  done
  check "[$round] priority/fairway starts with no usage" grep -q "starting with no usage" <(log_since "$mark")
  # two nodes are busy with the long jobs: this one runs on a free one,
  # started by the main pass within seconds (bf_interval=30: a main pass
  # that missed a submission in the second slurmctld started would leave
  # it to the backfill pass 30 s later)
  check "[$round] a new job ($j) starts within 10 s" wait_until 10 bash -c \
    "[ \"\$(squeue -h -j $j -o %T)\" != PENDING ]"
  check "[$round] and completes" wait_until 60 job_is "$j" COMPLETED
  for f in $files; do
    check "[$round] a fresh $f was written" wait_until 30 bash -c \
      "[ -s '$state/$f' ] && ! cmp -s '$state/$f' '$_cluster_dir/damaged/$f'"
  done
done
check "slurmctld is alive" ctld_alive
finish
