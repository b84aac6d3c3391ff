#!/bin/bash
# Shared nodes with sockets as the unit (issue 14): select/cons_tres with
# SelectTypeParameters=CR_Socket_Memory on 2 nodes of 2 sockets x 2 cores
# (4 CPUs, one thread per core, 1000 MB).  With CR_Socket, Slurm allocates
# whole sockets (slurm.conf(5)): a 1-CPU job holds 2 CPUs, a socket.  By
# hand: of four 1-CPU jobs of 100 MB (the first with a 1-minute limit, the
# others 3 minutes) all run at once, two per node, NumCPUs=2 each; two
# more 1-CPU jobs of 1 minute wait with 4 CPUs of the 8 unused by CPU
# count (Resources, then Priority, as Slurm names a second waiting job).
# The first is planned at the first job's limit (60 s: its socket), the
# second when the first ends there (120 s): the socket freed after one
# minute holds one job, not two of one CPU each, and the others hold
# theirs until 180 s.  Then a 3-CPU job: two
# sockets, a whole node (NumCPUs=4), beside which nothing runs on that
# node.  The same jobs run at the same time under sched/backfill on a twin
# cluster (printed beside).
source "$(dirname "$0")/lib.sh"

shape=(--nodes 2 --cpus 4 --sockets 2 --mem 1000 --select-params CR_Socket_Memory)
bf="bf_interval=1,bf_resolution=1,bf_window=10"

is_running() { [ "$(job_state "$1")" = RUNNING ]; }
has_start() { [ "$(start_epoch "$1")" != none ]; }
# the earliest start among jobs $@
first_start() {
  local i f=""
  for i in "$@"; do
    if [ -z "$f" ] || [ "$(start_epoch "$i")" -lt "$f" ]; then f=$(start_epoch "$i"); fi
  done
  echo "$f"
}
# planned start of job $1 against slot $2 (+ $3 s), or none
off() {
  local s; s=$(start_epoch "$1")
  [ "$s" = none ] && echo none || echo $((s - $2 - $3))
}
mix() {
  local j=() i s big p1 p2
  j+=("$(submit -n 1 --mem 100 -t 1 --wrap 'sleep 12')")
  for i in 2 3 4; do j+=("$(submit -n 1 --mem 100 -t 3 --wrap 'sleep 12')"); done
  wait_until 10 is_running "${j[3]}"
  p1=$(submit -n 1 --mem 100 -t 1 --wrap 'sleep 2')
  p2=$(submit -n 1 --mem 100 -t 1 --wrap 'sleep 2')
  wait_until 10 has_start "$p2"
  sleep 2
  echo "running $(squeue -h -t R -o %N | sort | paste -sd,)"
  echo "numcpus $(for i in 0 1 2 3; do job_field "${j[$i]}" NumCPUs; done | sort -u | paste -sd,)"
  echo "waiting $(job_state "$p1") $(squeue -h -j "$p1" -o %r) $(job_state "$p2") $(squeue -h -j "$p2" -o %r)"
  echo "p1_start $(off "$p1" "$(first_start "${j[0]}")" 60)"
  echo "p2_start $(off "$p2" "$(first_start "${j[0]}")" 120)"
  wait_until 60 queue_empty
  echo "ran $(job_state "$p1") $(job_state "$p2")"
  # three CPUs: two sockets, the whole node; a 1-CPU job beside it goes
  # to the other node
  big=$(submit -n 1 -c 3 --mem 100 -t 1 --wrap 'sleep 8')
  wait_until 10 is_running "$big"
  i=$(submit -n 1 --mem 100 -t 1 --wrap 'sleep 8')
  wait_until 10 is_running "$i"
  echo "big $(job_field "$big" NumCPUs) $(job_field "$big" NodeList)"
  echo "beside $(job_field "$i" NodeList)"
  wait_until 30 queue_empty
}

ref_dir="$FW_LIVE_DIR/fw-sockets-ref"
start_cluster fw-sockets 18140 "${shape[@]}" --sched-params "$bf"
bash "$FW_TOP/contrib/cluster-stop.sh" --dir "$ref_dir" >/dev/null 2>&1
extra=$(mktemp); printf 'SchedulerParameters=%s\n' "$bf" > "$extra"
bash "$FW_TOP/contrib/cluster-start.sh" --dir "$ref_dir" --name fw-sockets-ref \
  --port "$(live_port 18150)" --no-fairway "${shape[@]}" --slurm-extra "$extra" >/dev/null \
  || fail "the reference cluster (sched/backfill) did not start; logs in $ref_dir/log"
rm -f "$extra"
trap 'stop_cluster; bash "$FW_TOP/contrib/cluster-stop.sh" --dir "$ref_dir" >/dev/null 2>&1' EXIT
scontrol show node n1 | grep -oE '(Sockets|CoresPerSocket|ThreadsPerCore|CPUTot)=[0-9]+' | paste -sd' ' | sed 's/^/    n1: /'

( export SLURM_CONF="$ref_dir/etc/slurm.conf"; JOBDIR="$ref_dir/jobs"
  mkdir -p "$JOBDIR"; chmod 1777 "$JOBDIR"; mix > "$ref_dir/mix.out" 2>&1 ) &
refpid=$!
mix > "$_cluster_dir/mix.out"
wait "$refpid"
val() { sed -n "s/^$2 //p" "$1" | head -n1; }
printf '    %-12s %-30s %s\n' observation "sched/backfill" "sched/fairway"
for k in running numcpus waiting p1_start p2_start ran big beside; do
  printf '    %-12s %-30s %s\n' "$k" "$(val "$ref_dir/mix.out" "$k")" "$(val "$_cluster_dir/mix.out" "$k")"
done
f() { val "$_cluster_dir/mix.out" "$1"; }
near() { [[ "$1" =~ ^-?[0-9]+$ ]] && [ "$1" -ge -2 ] && [ "$1" -le 2 ]; }
check_eq "four 1-CPU jobs run at once, two per node" "n1,n1,n2,n2" "$(f running)"
check_eq "... each with a whole socket (NumCPUs=2)" 2 "$(f numcpus)"
check_eq "two more wait for a socket" "PENDING Resources PENDING Priority" "$(f waiting)"
check "... the first planned at the 1-minute job's limit (+-2 s): $(f p1_start)" near "$(f p1_start)"
check "... the second after it, not beside it in that socket (120 s, +-2 s): $(f p2_start)" near "$(f p2_start)"
check_eq "... and both run" "COMPLETED COMPLETED" "$(f ran)"
check_eq "a 3-CPU job holds both sockets of n1 (NumCPUs=4)" "4 n1" "$(f big)"
check_eq "... and a 1-CPU job beside it runs on n2" n2 "$(f beside)"
finish
