#!/bin/bash
# What sched/fairway refuses, and how:
#  1. heterogeneous jobs: slurmctld accepts them only when SchedulerType is
#     literally sched/backfill.  sbatch/salloc fail with a clear error, no
#     job is left behind, the plugin says so in its start-up log, and the
#     cluster keeps scheduling;
#  2. a bad SchedulerParameters value at start: one log line naming file,
#     line, key and value, and slurmctld refuses to start (exits);
#  3. a bad value at scontrol reconfigure: one log line, the previous
#     configuration stays in effect and scheduling goes on.
# The start-up checks run slurmctld from a single PluginDir (as installed
# sites do): with the test clusters' two-directory PluginDir Slurm loads a
# plugin whose init() failed a second time and the line would appear twice.
source "$(dirname "$0")/lib.sh"

params="sched_interval=-1,defer,bf_interval=1,bf_resolution=1,bf_window=120"
extra=$(mktemp)
echo "SchedulerParameters=$params" > "$extra"
start_cluster fw-s-refuse 17440 --slurm-extra "$extra"
rm -f "$extra"
conf=$SLURM_CONF
log=$_cluster_dir/log/slurmctld.log

say "1. heterogeneous jobs are refused cleanly"
check "start-up log says heterogeneous jobs are refused" \
  grep -q "sched/fairway: heterogeneous jobs are refused: slurmctld accepts them only with SchedulerType=sched/backfill" "$log"
out=$(sbatch -D "$JOBDIR" -N1 -t 1 --wrap "true" : -N1 -t 1 --wrap "true" 2>&1); rc=$?
echo "    sbatch: $out"
check "sbatch of a hetjob fails" test "$rc" -ne 0
check "... saying the operation is not supported" grep -q "Requested operation not supported on this system" <<< "$out"
out=$(timeout 20 salloc -N1 -t 1 : -N1 -t 1 true 2>&1); rc=$?
echo "    salloc: $out"
check "salloc of a hetjob fails" test "$rc" -ne 0 -a "$rc" -ne 124
check "... saying the operation is not supported" grep -q "Requested operation not supported on this system" <<< "$out"
check_eq "no job was left behind" "" "$(squeue -h -o %i)"
j=$(submit -N1 -t 1 --wrap "true")
check "an ordinary job still runs to completion" wait_until 15 job_is "$j" COMPLETED

say "2. a bad SchedulerParameters value: one line, slurmctld does not start"
h=$(submit -N1 -t 1 -H -J kept --wrap "true")
farm=$_cluster_dir/plugindir
mkdir -p "$farm"
ln -sf /usr/lib/x86_64-linux-gnu/slurm-wlm/*.so "$farm/"
ln -sf "$FW_BUILD"/plugins/*.so "$farm/"
ctld_pid=$(awk '$1=="slurmctld"{print $2}' "$_cluster_dir/pids")
kill -TERM "$ctld_pid"
wait_until 30 bash -c "! kill -0 $ctld_pid 2>/dev/null" || fail "slurmctld did not stop"
bad=$_cluster_dir/etc/bad.conf
try_bad() { # value expected-message
  local value=$1 want=$2 before line rc n
  sed -e "s|^SchedulerParameters=.*|SchedulerParameters=sched_interval=-1,defer,bf_interval=1,$value|" \
      -e "s|^PluginDir=.*|PluginDir=$farm|" "$conf" > "$bad"
  line=$(grep -n '^SchedulerParameters=' "$bad" | tail -1 | cut -d: -f1)
  before=$(wc -l < "$log")
  timeout 60 "$_cluster_dir/bin/slurmctld" -D -i -f "$bad" > /dev/null 2>&1; rc=$?
  tail -n +$((before + 1)) "$log" | grep -E "fairway|fatal" | sed 's/^/    /'
  check "$value: slurmctld exits with an error" test "$rc" -ne 0 -a "$rc" -ne 124
  n=$(tail -n +$((before + 1)) "$log" | grep -c "$value")
  check_eq "$value: named in exactly one log line" 1 "$n"
  # Both plugins read SchedulerParameters; the one slurmctld initialises
  # first reports it (sched/fairway on 22.05, priority/fairway on 24.11).
  check "$value: that line gives file:line, key=value, reason and consequence" \
    grep -qF -e "error: sched/fairway: $bad:$line: $value: SchedulerParameters: $want; refusing to start" \
      -e "error: priority/fairway: $bad:$line: $value: SchedulerParameters: $want; refusing to start" \
    <(tail -n +$((before + 1)) "$log")
}
try_bad "bf_window=2x" "not an integer, expected 1..43200 minutes"
try_bad "bf_resolution=0" "out of range, expected 1..3600 seconds"
try_bad "bf_max_job_tst=100" "unknown backfill parameter"
check "slurmctld starts again with the good configuration" restart_ctld
check_eq "the queued job survived the refused starts" PENDING "$(job_state "$h")"

say "3. a bad value at reconfigure: the previous configuration stays"
before=$(wc -l < "$log")
sed -i "s|^SchedulerParameters=.*|SchedulerParameters=$params,bf_max_job_start=soon|" "$conf"
check "scontrol reconfigure returns" timeout 20 scontrol reconfigure
check "one line names the bad value and keeps the old configuration" wait_until 10 bash -c \
  "[ \$(tail -n +$((before + 1)) $log | grep -c 'sched/fairway: .*bf_max_job_start=soon: SchedulerParameters: .*; reconfigure rejected, the previous configuration stays in effect') = 1 ]"
check "slurmctld is still up" bash -c 'scontrol ping | grep -q "is UP"'
scontrol release "$h"
check "scheduling goes on" wait_until 15 job_is "$h" COMPLETED
sed -i "s|^SchedulerParameters=.*|SchedulerParameters=$params|" "$conf"
timeout 20 scontrol reconfigure
finish
