# Shared helpers for live-cluster tests (sourced).  Each test starts its own
# cluster with a unique name/port under $FW_LIVE_DIR and stops it on exit.
set -uo pipefail

FW_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FW_BUILD=${FW_BUILD:-$FW_TOP}
FW_LIVE_DIR=${FW_LIVE_DIR:-/tmp/fairway-live}
mkdir -p "$FW_LIVE_DIR"
_fails=0
_checks=0
_cluster_dir=""

say() { echo "[$(date +%T)] $*"; }
pass() { _checks=$((_checks + 1)); echo "  ok: $*"; }
fail() { _checks=$((_checks + 1)); _fails=$((_fails + 1)); echo "  FAIL: $*"; }
check() { # description command...
  local d=$1; shift
  if "$@"; then pass "$d"; else fail "$d"; fi
}
check_eq() { # description expected actual
  if [ "$2" = "$3" ]; then pass "$1 ($3)"; else fail "$1: expected '$2', got '$3'"; fi
}

# FW_PORT_OFFSET shifts every test's ports, so that several checkouts can
# run the live tests at the same time on one machine.
live_port() { echo $(( $1 + ${FW_PORT_OFFSET:-0} )); }

# start_cluster NAME PORT [cluster-start options...]
start_cluster() {
  local name=$1 port; port=$(live_port "$2"); shift 2
  _cluster_dir="$FW_LIVE_DIR/$name"
  bash "$FW_TOP/contrib/cluster-stop.sh" --dir "$_cluster_dir" >/dev/null 2>&1 || true
  if ! bash "$FW_TOP/contrib/cluster-start.sh" --dir "$_cluster_dir" --name "$name" \
      --port "$port" --plugins "$FW_BUILD/plugins" "$@"; then
    echo "FAIL: cluster $name did not start; logs in $_cluster_dir/log"
    tail -30 "$_cluster_dir/log/slurmctld.log" 2>/dev/null
    bash "$FW_TOP/contrib/cluster-stop.sh" --dir "$_cluster_dir" >/dev/null 2>&1
    exit 1
  fi
  # shellcheck disable=SC1091
  source "$_cluster_dir/env"
  JOBDIR="$_cluster_dir/jobs"; mkdir -p "$JOBDIR"; chmod 1777 "$JOBDIR"
  trap 'stop_cluster' EXIT
}

stop_cluster() {
  [ -n "$_cluster_dir" ] && bash "$FW_TOP/contrib/cluster-stop.sh" --dir "$_cluster_dir" >/dev/null 2>&1
  _cluster_dir=""
}

ctld_log() { cat "$_cluster_dir/log/slurmctld.log"; }

# submit [sbatch args...] -> prints job id
submit() { sbatch --parsable -D "$JOBDIR" -o "$JOBDIR/%j.out" "$@" | cut -d';' -f1; }

job_state() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p'; }
job_field() { # jobid Field
  scontrol show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n1
}

# wait_until TIMEOUT_S command... : poll every 0.5 s
wait_until() {
  local t=$1; shift
  local end=$((SECONDS + t))
  while [ $SECONDS -lt $end ]; do "$@" && return 0; sleep 0.5; done
  return 1
}
queue_empty() { [ -z "$(squeue -h -o %i)" ]; }
job_is() { [ "$(job_state "$1")" = "$2" ]; }

finish() {
  stop_cluster
  echo "$(basename "$0"): $_checks checks, $_fails failed"
  [ "$_fails" = 0 ]
}

# ---- helpers for scheduler tests ------------------------------------------
epoch() { date -d "$1" +%s; }
# StartTime of a job in seconds since the epoch, or "none" (Unknown / N/A)
start_epoch() {
  local s; s=$(job_field "$1" StartTime)
  case "$s" in ''|Unknown|None|N/A) echo none;; *) epoch "$s";; esac
}
sched_nodes() { # SchedNodeList of a job ("" when none)
  local s; s=$(job_field "$1" SchedNodeList)
  [ "$s" = "(null)" ] && s=""
  echo "$s"
}
# sdiag_bf "Label" -> value of that line in sdiag's Backfilling stats block
sdiag_bf() {
  sdiag | awk -v l="$1" '/^Backfilling stats/{b=1} b && index($0, l":")==2 {
    sub(/^[^:]*:[ \t]*/, ""); print; exit }'
}
# near A B [TOL]: |A - B| <= TOL (default 2 s)
near() { local d=$(($1 - $2)); [ "${d#-}" -le "${3:-2}" ]; }
# start_is JOB WANT [TOL]: StartTime of JOB is WANT +- TOL s ("none": unset)
start_is() {
  local s; s=$(start_epoch "$1")
  if [ "$2" = none ]; then [ "$s" = none ]; else [ "$s" != none ] && near "$s" "$2" "${3:-2}"; fi
}
fairway_cmd() { "$FW_BUILD/src/cli/fairway" "$@"; }

# Restart slurmctld with the same command line (state is kept).
restart_ctld() {
  local pid conf="$_cluster_dir/etc/slurm.conf"
  pid=$(awk '$1=="slurmctld"{print $2}' "$_cluster_dir/pids")
  kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  if kill -0 "$pid" 2>/dev/null; then echo "slurmctld $pid did not stop"; return 1; fi
  FAIRWAY_CLUSTER=$_cluster_dir setsid "$_cluster_dir/bin/slurmctld" -D -i -f "$conf" \
    >> "$_cluster_dir/log/slurmctld.out" 2>&1 < /dev/null &
  pid=$!
  sed -i "s/^slurmctld .*/slurmctld $pid/" "$_cluster_dir/pids"
  wait_until 30 bash -c 'scontrol ping 2>/dev/null | grep -q "is UP"'
}
