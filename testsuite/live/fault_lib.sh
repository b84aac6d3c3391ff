# Helpers for the fault tests (test_fault_*.sh), sourced after lib.sh:
# restarting slurmctld by hand (kill -9 and start again, optionally with the
# fault shim preloaded), reading the log of one run, percentiles.

# PID of this cluster's slurmctld (from the cluster's pids file).
ctld_pid() { awk '$1=="slurmctld"{print $2}' "$_cluster_dir/pids"; }
# A process that exists and is not a zombie (a killed slurmctld stays a
# zombie until this shell reaps it, and kill -0 succeeds on zombies).
pid_running() {
  local st
  st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
  [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}
ctld_alive() { local p; p=$(ctld_pid); [ -n "$p" ] && pid_running "$p"; }

# kill -9 slurmctld and wait until it is gone (no cleanup of any kind runs).
ctld_kill9() {
  local p; p=$(ctld_pid)
  [ -n "$p" ] && kill -KILL "$p" 2>/dev/null
  wait_until 20 not_running "$p"
}
not_running() { ! pid_running "$1"; }

# Wait until the process $1 died (e.g. killed by the fault shim).
ctld_wait_dead() { # timeout
  local p; p=$(ctld_pid)
  wait_until "$1" not_running "$p"
}

# Byte offset of the end of slurmctld.log: the log of the next run starts
# there (log_since OFFSET prints it).
log_mark() { stat -c %s "$_cluster_dir/log/slurmctld.log" 2>/dev/null || echo 0; }
log_since() { tail -c +"$(( $1 + 1 ))" "$_cluster_dir/log/slurmctld.log"; }

# ctld_start [VAR=value ...]: start slurmctld as cluster-start.sh does (same
# binary link, flags and config), with extra environment (e.g. LD_PRELOAD),
# and record its PID so cluster-stop.sh ends it.  Does not wait.
# CTLD_WRAP (an array, e.g. valgrind and its options) runs in front of it.
CTLD_WRAP=()
ctld_start() {
  local conf="$_cluster_dir/etc/slurm.conf" pid
  setsid env "$@" "${CTLD_WRAP[@]}" "$_cluster_dir/bin/slurmctld" -D -i -f "$conf" \
    >> "$_cluster_dir/log/slurmctld.out" 2>&1 < /dev/null &
  pid=$!
  disown "$pid" # a later kill -9 is expected: no job-control message
  sed -i '/^slurmctld /d' "$_cluster_dir/pids"
  echo "slurmctld $pid" >> "$_cluster_dir/pids"
}

# Seconds (with ms) until slurmctld answers squeue; fails after $1 s.
ctld_wait_up() { # timeout
  local t0 end
  t0=$(date +%s.%N); end=$((SECONDS + $1))
  while [ $SECONDS -lt "$end" ]; do
    ctld_alive || return 1
    if timeout 10 squeue -h -o %i > /dev/null 2>&1; then
      awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f\n", b-a}'
      return 0
    fi
    sleep 0.2
  done
  return 1
}

# Build the LD_PRELOAD fault shim (testsuite/live/fault_shim.c) once per run.
fault_shim() {
  local so="$FW_LIVE_DIR/fault_shim.so"
  if [ ! -f "$so" ] || [ "$FW_TOP/testsuite/live/fault_shim.c" -nt "$so" ]; then
    gcc -O1 -Wall -Wextra -Werror -shared -fPIC -o "$so" \
      "$FW_TOP/testsuite/live/fault_shim.c" -ldl -lpthread || return 1
  fi
  echo "$so"
}

# Every job id known to slurmctld (any state), sorted.
all_job_ids() { squeue -h -t all -o %i 2>/dev/null | sort -n; }

# percentile P of the numbers on stdin (nearest rank)
percentile() {
  sort -g | awk -v p="$1" '{v[NR]=$1} END{if(!NR){print "nan"; exit}
    r=int((p/100)*NR+0.999999); if(r<1)r=1; if(r>NR)r=NR; print v[r]}'
}

# Fair-share usage (CPU-seconds) the jobs of this cluster have really
# consumed up to epoch $1, from Slurm's own job records: for every job that
# started, NumCPUs x (min(end, $1) - start); running jobs up to $1.
# (Billing without TRESBillingWeights is the job's CPU count.)
true_usage() { # epoch
  squeue -h -t all -o "%T %S %e %C" | while read -r st s e c; do
    [ "$s" = N/A ] || [ "$s" = Unknown ] && continue
    s=$(date -d "$s" +%s); e2=$1
    if [ "$st" != RUNNING ] && [ "$e" != N/A ] && [ "$e" != Unknown ]; then
      e2=$(date -d "$e" +%s); [ "$e2" -gt "$1" ] && e2=$1
    fi
    [ "$st" = PENDING ] && continue
    [ "$e2" -gt "$s" ] && echo $(( c * (e2 - s) ))
  done | awk '{t+=$1} END{print t+0}'
}

# Fair-share usage of job $1's user as priority/fairway reports it (through
# the fairway command).
fw_usage() { # jobid
  "$FW_BUILD/src/cli/fairway" priority "$1" 2>/dev/null |
    sed -n 's/^Fair-share.* usage \([0-9.e+]*\) .*/\1/p'
}

# Slurm itself writes its job state up to SAVE_MAX_WAIT (5 s) after a change
# (src/slurmctld/state_save.c): a kill -9 sooner makes slurmctld forget
# recent submissions, starts and completions whatever the plugins do.  The
# fault tests are about Fairway, so before a kill they wait for Slurm's own
# save: touch a job (a comment) and wait for a job_state newer than that.
slurm_saved() { # jobid
  local ref="$_cluster_dir/.save-ref"
  touch "$ref"; sleep 0.05
  scontrol update jobid="$1" comment="fault-sync-$RANDOM" > /dev/null 2>&1
  wait_until 30 test "$(state_dir)/job_state" -nt "$ref"
}

# StateSaveLocation of this cluster (the last one slurm.conf sets).
state_dir() { sed -n 's/^StateSaveLocation=//p' "$_cluster_dir/etc/slurm.conf" | tail -1; }
