#!/bin/bash
# Shared nodes with hyper-threads (issue 14): select/cons_tres with
# SelectTypeParameters=CR_Core on 2 nodes of 2 cores x 2 threads (4 CPUs).
# Slurm never gives two jobs threads of one core (slurm.conf(5), CR_Core):
# a 1-CPU job takes a whole core, 2 CPUs.  By hand: of five 1-CPU jobs,
# four run at once (two per node, NumCPUs=2 each) and the fifth waits
# with 4 CPUs "idle" by thread count, planned at the first one's limit
# (start + 60 s).  The same jobs run at the same time under sched/backfill
# on a twin cluster (printed beside).
source "$(dirname "$0")/lib.sh"

shape=(--nodes 2 --cpus 4 --threads 2 --select-params CR_Core)
bf="bf_interval=1,bf_resolution=1,bf_window=10"

has_start() { [ "$(start_epoch "$1")" != none ]; }
mix() {
  local j=() i first
  for i in 1 2 3 4 5; do j+=("$(submit -n 1 -t 1 --wrap 'sleep 10')"); done
  wait_until 10 has_start "${j[4]}"
  sleep 1
  echo "running $(squeue -h -t R -o %N | sort | paste -sd,)"
  echo "numcpus $(for i in 0 1 2 3; do job_field "${j[$i]}" NumCPUs; done | sort -u | paste -sd,)"
  echo "fifth $(job_state "${j[4]}") $(squeue -h -j "${j[4]}" -o %r)"
  first=$(start_epoch "${j[0]}")
  for i in 1 2 3; do [ "$(start_epoch "${j[$i]}")" -lt "$first" ] && first=$(start_epoch "${j[$i]}"); done
  s=$(start_epoch "${j[4]}")
  echo "fifth_start $([ "$s" = none ] && echo none || echo $((s - first - 60)))"
  wait_until 40 queue_empty
  echo "fifth_ran $(job_state "${j[4]}")"
}

ref_dir="$FW_LIVE_DIR/fw-cores-ref"
start_cluster fw-cores 17800 "${shape[@]}" --sched-params "$bf"
bash "$FW_TOP/contrib/cluster-stop.sh" --dir "$ref_dir" >/dev/null 2>&1
extra=$(mktemp); printf 'SchedulerParameters=%s\n' "$bf" > "$extra"
bash "$FW_TOP/contrib/cluster-start.sh" --dir "$ref_dir" --name fw-cores-ref \
  --port "$(live_port 17810)" --no-fairway "${shape[@]}" --slurm-extra "$extra" >/dev/null \
  || fail "the reference cluster (sched/backfill) did not start; logs in $ref_dir/log"
rm -f "$extra"
trap 'stop_cluster; bash "$FW_TOP/contrib/cluster-stop.sh" --dir "$ref_dir" >/dev/null 2>&1' EXIT
scontrol show node n1 | grep -oE '(CoresPerSocket|ThreadsPerCore|CPUTot)=[0-9]+' | paste -sd' ' | sed 's/^/    n1: /'

( export SLURM_CONF="$ref_dir/etc/slurm.conf"; JOBDIR="$ref_dir/jobs"
  mkdir -p "$JOBDIR"; chmod 1777 "$JOBDIR"; mix > "$ref_dir/mix.out" 2>&1 ) &
refpid=$!
mix > "$_cluster_dir/mix.out"
wait "$refpid"
val() { sed -n "s/^$2 //p" "$1" | head -n1; }
printf '    %-12s %-22s %s\n' observation "sched/backfill" "sched/fairway"
for k in running numcpus fifth fifth_start fifth_ran; do
  printf '    %-12s %-22s %s\n' "$k" "$(val "$ref_dir/mix.out" "$k")" "$(val "$_cluster_dir/mix.out" "$k")"
done
f() { val "$_cluster_dir/mix.out" "$1"; }
check_eq "four 1-CPU jobs run at once, two per node" "n1,n1,n2,n2" "$(f running)"
check_eq "... each with a whole core (NumCPUs=2)" 2 "$(f numcpus)"
check_eq "the fifth waits for a core" "PENDING Resources" "$(f fifth)"
check "... planned at the first one's limit (+-2 s): $(f fifth_start)" \
  bash -c "[[ '$(f fifth_start)' =~ ^-?[0-9]+$ ]] && [ '$(f fifth_start)' -ge -2 ] && [ '$(f fifth_start)' -le 2 ]"
check_eq "... and runs when a core is free" COMPLETED "$(f fifth_ran)"
finish
