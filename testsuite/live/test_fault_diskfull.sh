#!/bin/bash
# A full and a read-only StateSaveLocation.  StateSaveLocation is a small
# tmpfs of its own, filled to the last block with dd, then remounted
# read-only.  Each plugin saves its state when slurmctld starts and stops,
# so slurmctld is restarted while the disk is full (shutdown with SIGTERM:
# the save at shutdown, then the save at startup), and stopped while the
# file system is read-only (slurmctld refuses to start on one):
#  - each failed save is one clear error line naming the file and errno;
#  - the previous state file stays byte-identical, no NAME.new is left;
#  - scheduling continues: held batch jobs (their scripts were stored
#    before) are released and run to completion, an srun allocation runs;
#  - once there is space again the state is saved and loads.
# Slurm itself cannot store new batch scripts on a full or read-only
# StateSaveLocation (sbatch fails with an I/O error): that is Slurm's
# behaviour, not tested here.
# Without permission to mount (a container), the test says so and fails
# the writes with the fault shim instead (FW_FAULT_FAIL: creating NAME.new
# fails with ENOSPC / EROFS).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fault_lib.sh"

mnt="$FW_LIVE_DIR/fw-fdisk.state"
mkdir -p "$mnt"
# a leftover of an earlier run (mounted or not) must not be reused
bash "$FW_TOP/contrib/cluster-stop.sh" --dir "$FW_LIVE_DIR/fw-fdisk" > /dev/null 2>&1
while mountpoint -q "$mnt"; do umount "$mnt" 2> /dev/null || umount -l "$mnt"; done
rm -rf "${mnt:?}"/* "$mnt"/.[!.]* 2> /dev/null
# FW_FAULT_NO_MOUNT=1 forces the shim path (to test the test)
if [ -z "${FW_FAULT_NO_MOUNT:-}" ] &&
   mount -t tmpfs -o size=2m,mode=755 fw-fdisk "$mnt" 2> /dev/null; then
  mode=tmpfs
else
  mode=shim
  echo "    NOTE: mounting a tmpfs is not permitted here: Fairway's writes are failed by the fault shim instead"
fi
extra=$(mktemp)
cat > "$extra" <<EOF2
StateSaveLocation=$mnt
SchedulerParameters=sched_interval=-1,defer,bf_interval=1
EOF2
start_cluster fw-fdisk 17540 --slurm-extra "$extra"
rm -f "$extra"
unmount() { [ $mode = tmpfs ] && { umount "$mnt" 2> /dev/null || umount -l "$mnt"; }; }
trap 'stop_cluster; unmount' EXIT
shim=$(fault_shim) || { fail "cannot build the fault shim"; finish; exit 1; }
files="fairway_priority_state fairway_sched_state"

say "jobs: one running, three held (scripts stored while there is space)"
long=$(submit -N1 -t 10 --wrap 'sleep 600')
wait_until 20 job_is "$long" RUNNING || fail "job $long did not start"
held=()
for i in 1 2 3; do held+=("$(submit -H -N1 -t 1 --wrap 'sleep 1')"); done
slurm_saved "$long" || fail "Slurm did not save its job state"
for f in $files; do
  wait_until 30 test -s "$mnt/$f" || fail "no $f written"
done

stop_ctld() { # SIGTERM: the plugins save in fini()
  local p; p=$(ctld_pid)
  kill -TERM "$p"
  wait_until 60 not_running "$p" || { fail "slurmctld did not stop"; ctld_kill9; }
}
start_ctld() { # [VAR=value...]
  ctld_start "$@"
  ctld_wait_up 60 > /dev/null || fail "slurmctld did not start again"
}
snapshot_before() {
  local f
  mkdir -p "$_cluster_dir/before"
  for f in $files; do cp "$mnt/$f" "$_cluster_dir/before/$f"; done
}

# condition LABEL ERRNO_TEXT ERRNO: restart slurmctld in the condition
# (tmpfs: stop and start on the full disk; shim: stop, start with the
# shim), check the error lines, the files, that slurmctld lives
condition() {
  local label=$1 why=$2 eno=$3 mark f n pl
  if [ $mode = tmpfs ]; then
    snapshot_before; mark=$(log_mark)
    stop_ctld; start_ctld
  else
    stop_ctld
    snapshot_before; mark=$(log_mark)
    start_ctld LD_PRELOAD="$shim" FW_FAULT_FAIL="$eno"
  fi
  for pl in priority sched; do
    f=fairway_${pl}_state
    check "[$label] $pl/fairway logs a failed save naming $f.new and '$why'" \
      wait_until 30 bash -c "tail -c +$((mark + 1)) '$_cluster_dir/log/slurmctld.log' |
        grep -q 'error: $pl/fairway: cannot save state: cannot [a-z]* $mnt/$f.new: $why'"
    n=$(log_since "$mark" | grep -c "$pl/fairway: cannot save state")
    echo "    [$label] $pl/fairway: $n failed saves logged"
    check "[$label] $f unchanged" cmp -s "$mnt/$f" "$_cluster_dir/before/$f"
    check "[$label] no $f.new left behind" test ! -e "$mnt/$f.new"
  done
  log_since "$mark" | grep "fairway: cannot save state" | sed 's/^/    log: /'
  check "[$label] slurmctld is alive" ctld_alive
}

release_one() { # label jobid
  scontrol release "$2"
  check "[$1] released job $2 runs to completion" wait_until 60 job_is "$2" COMPLETED
}

say "1. StateSaveLocation full"
if [ $mode = tmpfs ]; then
  dd if=/dev/zero of="$mnt/filler" bs=4k > /dev/null 2>&1
  echo "    $(df -h "$mnt" | tail -1)"
fi
condition full "No space left on device" 28
release_one full "${held[0]}"
check "[full] an srun allocation runs" timeout 60 srun -N1 -t 1 true

say "2. space again: the state is saved"
rm -f "$mnt/filler"
stop_ctld # (with the shim, this shutdown save fails too)
touch "$_cluster_dir/.ref"; sleep 0.05
mark=$(log_mark)
start_ctld
for f in $files; do
  check "[space] $f written again" wait_until 30 test "$mnt/$f" -nt "$_cluster_dir/.ref"
done
check "[space] no failed save since" bash -c "! tail -c +$((mark + 1)) '$_cluster_dir/log/slurmctld.log' | grep -q 'cannot save state'"
check "[space] both states loaded" bash -c "tail -c +$((mark + 1)) '$_cluster_dir/log/slurmctld.log' |
  grep -c -e 'priority/fairway: restored' -e 'sched/fairway: restored' | grep -qx 2"
slurm_saved "$long" || fail "Slurm did not save its job state"

say "3. StateSaveLocation read-only while slurmctld runs"
# slurmctld refuses to start on a read-only StateSaveLocation ("fatal:
# Incorrect permissions on state save loc"), so the read-only time is
# while it runs; its save at shutdown is the one that fails.
snapshot_before
if [ $mode = tmpfs ]; then mount -o remount,ro "$mnt"; fi
release_one read-only "${held[1]}"
check "[read-only] an srun allocation runs" timeout 60 srun -N1 -t 1 true
mark=$(log_mark)
p=$(ctld_pid)
if [ $mode = tmpfs ]; then
  kill -TERM "$p"
  wait_until 60 not_running "$p" || fail "slurmctld did not stop"
  why="Read-only file system"
else
  # no mounts: restart with the shim failing Fairway's writes (EROFS),
  # then stop it so the shutdown save fails too
  stop_ctld; snapshot_before; mark=$(log_mark)
  start_ctld LD_PRELOAD="$shim" FW_FAULT_FAIL=30
  stop_ctld
  why="Read-only file system"
fi
for pl in priority sched; do
  f=fairway_${pl}_state
  check "[read-only] $pl/fairway logs the failed save naming $f.new and '$why'" bash -c \
    "tail -c +$((mark + 1)) '$_cluster_dir/log/slurmctld.log' |
      grep -q 'error: $pl/fairway: cannot save state: cannot [a-z]* $mnt/$f.new: $why'"
  check "[read-only] $f unchanged" cmp -s "$mnt/$f" "$_cluster_dir/before/$f"
done
log_since "$mark" | grep "fairway: cannot save state" | sed 's/^/    log: /'

say "4. writable again: slurmctld starts, state loads, jobs run"
if [ $mode = tmpfs ]; then mount -o remount,rw "$mnt"; fi
mark=$(log_mark)
ctld_start
ctld_wait_up 60 > /dev/null || fail "slurmctld did not start"
check "[rw] priority state loads" wait_until 30 bash -c \
  "tail -c +$((mark + 1)) '$_cluster_dir/log/slurmctld.log' | grep -q 'priority/fairway: restored'"
release_one rw "${held[2]}"
check_eq "the first job still runs" RUNNING "$(job_state "$long")"
finish
