# units_lib.sh - shared nodes whose allocation unit is more than a CPU
# (issue 14), sourced after lib.sh by test_sched_cores.sh (CR_Core, two
# threads per core: a core) and test_sched_sockets.sh (CR_Socket_Memory:
# a socket).  Both shapes are 2 nodes of 4 CPUs in units of 2 CPUs, so
# one scenario, worked by hand, serves both:
#
#   four 1-CPU jobs (the first with a 1-minute limit, the others 3) run at
#   once, two per node, each with one unit (NumCPUs=2); two more 1-CPU jobs
#   of 1 minute wait with 4 CPUs of the 8 unused by CPU count (Resources,
#   then Priority, as Slurm names a second waiting job).  The first is
#   planned at 60 s, in the unit the 1-minute job frees; the second at
#   120 s, after the first: a unit holds one job, not two of one CPU each,
#   and the other three hold theirs until 180 s.  Both run.  Then a
#   3-CPU job takes two units, the whole of n1 (NumCPUs=4), and a 1-CPU
#   job beside it runs on n2.
#
#   units_test NAME PORT REF_PORT UNIT [cluster-start options...]
#       runs it on a Fairway cluster and, at the same time, on a twin
#       under sched/backfill (printed beside), and checks Fairway's side.

is_running() { [ "$(job_state "$1")" = RUNNING ]; }
has_start() { [ "$(start_epoch "$1")" != none ]; }
# planned start of job $1 against job $2's start plus $3 s, or none
units_off() {
  local s; s=$(start_epoch "$1")
  [ "$s" = none ] && echo none || echo $((s - $(start_epoch "$2") - $3))
}

units_mix() {
  local j=() i big p1 p2
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
  echo "p1_start $(units_off "$p1" "${j[0]}" 60)"
  echo "p2_start $(units_off "$p2" "${j[0]}" 120)"
  wait_until 60 queue_empty
  echo "ran $(job_state "$p1") $(job_state "$p2")"
  big=$(submit -n 1 -c 3 --mem 100 -t 1 --wrap 'sleep 8')
  wait_until 10 is_running "$big"
  i=$(submit -n 1 --mem 100 -t 1 --wrap 'sleep 8')
  wait_until 10 is_running "$i"
  echo "big $(job_field "$big" NumCPUs) $(job_field "$big" NodeList)"
  echo "beside $(job_field "$i" NodeList)"
  wait_until 30 queue_empty
}

units_test() {
  local name=$1 port=$2 ref_port=$3 unit=$4 bf extra ref_dir k
  shift 4
  bf="bf_interval=1,bf_resolution=1,bf_window=10"
  ref_dir="$FW_LIVE_DIR/$name-ref"
  start_cluster "$name" "$port" "$@" --sched-params "$bf"
  bash "$FW_TOP/contrib/cluster-stop.sh" --dir "$ref_dir" >/dev/null 2>&1
  extra=$(mktemp); printf 'SchedulerParameters=%s\n' "$bf" > "$extra"
  bash "$FW_TOP/contrib/cluster-start.sh" --dir "$ref_dir" --name "$name-ref" \
    --port "$(live_port "$ref_port")" --no-fairway "$@" --slurm-extra "$extra" >/dev/null \
    || fail "the reference cluster (sched/backfill) did not start; logs in $ref_dir/log"
  rm -f "$extra"
  trap "stop_cluster; bash '$FW_TOP/contrib/cluster-stop.sh' --dir '$ref_dir' >/dev/null 2>&1" EXIT
  scontrol show node n1 | grep -oE '(Sockets|CoresPerSocket|ThreadsPerCore|CPUTot)=[0-9]+' |
    paste -sd' ' | sed 's/^/    n1: /'
  ( export SLURM_CONF="$ref_dir/etc/slurm.conf"; JOBDIR="$ref_dir/jobs"
    mkdir -p "$JOBDIR"; chmod 1777 "$JOBDIR"; units_mix > "$ref_dir/mix.out" 2>&1 ) &
  k=$!
  units_mix > "$_cluster_dir/mix.out"
  wait "$k"
  UNITS_REF="$ref_dir/mix.out"
  printf '    %-12s %-34s %s\n' observation "sched/backfill" "sched/fairway"
  for k in running numcpus waiting p1_start p2_start ran big beside; do
    printf '    %-12s %-34s %s\n' "$k" "$(units_val "$UNITS_REF" "$k")" "$(units_f "$k")"
  done
  check_eq "four 1-CPU jobs run at once, two per node" "n1,n1,n2,n2" "$(units_f running)"
  check_eq "... each with a whole $unit (NumCPUs=2)" 2 "$(units_f numcpus)"
  check_eq "two more wait for a $unit" "PENDING Resources PENDING Priority" "$(units_f waiting)"
  check "... the first planned at the 1-minute job's limit (+-2 s): $(units_f p1_start)" \
    units_near "$(units_f p1_start)"
  check "... the second after it, not beside it in that $unit (120 s, +-2 s): $(units_f p2_start)" \
    units_near "$(units_f p2_start)"
  check_eq "... and both run" "COMPLETED COMPLETED" "$(units_f ran)"
  check_eq "a 3-CPU job holds both ${unit}s of n1 (NumCPUs=4)" "4 n1" "$(units_f big)"
  check_eq "... and a 1-CPU job beside it runs on n2" n2 "$(units_f beside)"
}
units_val() { sed -n "s/^$2 //p" "$1" | head -n1; }
units_f() { units_val "$_cluster_dir/mix.out" "$1"; }
units_near() { [[ "$1" =~ ^-?[0-9]+$ ]] && [ "$1" -ge -2 ] && [ "$1" -le 2 ]; }
