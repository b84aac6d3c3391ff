# units_lib.sh - shared nodes whose allocation unit is more than a CPU
# (issue 14), sourced after lib.sh and twin_lib.sh by test_sched_cores.sh (CR_Core, two
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
#       under sched/backfill (twin_lib.sh, printed beside), and checks
#       Fairway's side.

is_running() { [ "$(job_state "$1")" = RUNNING ]; }
has_start() { [ "$(start_epoch "$1")" != none ]; }

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
  echo "p1_start $(since "$p1" "$(start_epoch "${j[0]}")")"
  echo "p2_start $(since "$p2" "$(start_epoch "${j[0]}")")"
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
  local name=$1 port=$2 ref_port=$3 unit=$4
  shift 4
  twin_start "$name" "$port" "$ref_port" "" bf_interval=1,bf_resolution=1,bf_window=10 "$@"
  scontrol show node n1 | grep -oE '(Sockets|CoresPerSocket|ThreadsPerCore|CPUTot)=[0-9]+' |
    paste -sd' ' | sed 's/^/    n1: /'
  twin_run units_mix
  twin_table running numcpus waiting p1_start p2_start ran big beside
  check_eq "four 1-CPU jobs run at once, two per node" "n1,n1,n2,n2" "$(f running)"
  check_eq "... each with a whole $unit (NumCPUs=2)" 2 "$(f numcpus)"
  check_eq "two more wait for a $unit" "PENDING Resources PENDING Priority" "$(f waiting)"
  check "... the first planned at the 1-minute job's limit (60 s, +-2 s): $(f p1_start)" \
    near_s "$(f p1_start)" 60
  check "... the second after it, not beside it in that $unit (120 s, +-2 s): $(f p2_start)" \
    near_s "$(f p2_start)" 120
  check_eq "... and both run" "COMPLETED COMPLETED" "$(f ran)"
  check_eq "a 3-CPU job holds both ${unit}s of n1 (NumCPUs=4)" "4 n1" "$(f big)"
  check_eq "... and a 1-CPU job beside it runs on n2" n2 "$(f beside)"
}
