#!/bin/bash
# sched/fairway on shared nodes (issue 14): SelectType=select/cons_tres,
# SelectTypeParameters=CR_Core_Memory, 4 nodes of 8 CPUs and 16000 MB,
# DefMemPerCPU=1000; n1-n2 gpu:a100:2, n3 gpu:v100:2, n2-n4 tmpdisk:100
# (count-only).  The same job mix runs at the same time on a second
# cluster of the same shape under Slurm's own priority/multifactor +
# sched/backfill; both are printed side by side, Fairway's is checked.
# Expected values by hand from Slurm's documented behaviour (cons_tres
# allocates cores and memory per node; a job without --mem gets
# DefMemPerCPU x its CPUs; time limits in whole minutes):
#  1. with n1-n3 held by an --exclusive job, eight 1-CPU jobs (four of
#     them with --nodelist=n4) run at the same time on n4 (8 CPUs,
#     8 x 1000 MB);
#  2. then three 1-CPU jobs of 7000 MB: two run on n4, the third waits for
#     memory (16000 MB) with 6 CPUs idle; it is planned (StartTime, also
#     squeue --start) at the first one's limit (start + 60 s) on n4, and
#     runs there when the first one ends;
#  3. an untyped --gres=gpu:2 job on two nodes gets n1-n2 and their a100s;
#     gpu:a100:1 then waits for an a100 while n3's v100s are free: planned
#     at that job's limit on n1 or n2; a gpu:v100:1 job starts at once on
#     n3; with tmpdisk:100 (count-only) on n2-n4, three tmpdisk:60 jobs run
#     at once, one per node, and a fourth is planned at the first's limit;
#  4. a protected -n 16 job (two whole 8-CPU nodes) waits for two 6-CPU
#     jobs on n1, n2 (1-minute limit; n3, n4 hold 6-CPU jobs for 5
#     minutes): planned at their limit on n[1-2]; six lower-priority
#     1-CPU, 5-minute jobs: the four that fit n3/n4's free CPUs start at
#     once, the two that would hold n1/n2's CPUs past that start wait; the
#     -n 16 job starts when n1/n2 free up, no later than its first
#     StartTime + bf_resolution (1 s); an --exclusive job waits while every
#     node is partly used;
#  5. a job that no node of its partition can ever hold (a100s asked for,
#     its partition changed to the v100 node while it was held): Slurm's
#     main scheduler fails such a job once (Reason BadConstraints,
#     priority 0, one "non-runnable" log line) and no pass retries it.
# The whole-node planner (main before issue 14) fails 11 of the 28 checks:
# parts 1, 2, the tmpdisk jobs of 3 and the backfilled 1-CPU jobs of 4.
source "$(dirname "$0")/lib.sh"

shape=(--nodes 4 --cpus 8 --mem 16000 --select-params CR_Core_Memory
  --gres 1-2:gpu:a100:2 --gres 3:gpu:v100:2 --gres 2-4:tmpdisk:100)
bf="bf_interval=1,bf_resolution=1,bf_window=10"

# ---- the job mix: observations as KEY VALUE lines ---------------------------
running_on() { squeue -h -t R -w "$1" -o %i 2>/dev/null | wc -l; }
# delta A B: A - B, or "none" when A is "none"
delta() { [ "$1" = none ] && echo none || echo $(($1 - $2)); }
has_start() { [ "$(start_epoch "$1")" != none ]; }
not_pending() { [ "$(job_state "$1")" != PENDING ]; }
squeue_start() { # epoch of squeue --start's START_TIME, or none
  local s; s=$(squeue --start -h -j "$1" -o %S 2>/dev/null)
  case "$s" in ''|N/A|Unknown) echo none;; *) epoch "$s";; esac
}
mix() {
  local f i n max=0 m=() t=() g1 g2 g3 r=() s=() big x first now
  say "1. eight 1-CPU jobs on n4 (n1-n3 held by an --exclusive job)"
  f=$(submit -N 3 --exclusive -t 2 --wrap 'sleep 60')
  wait_until 10 job_is "$f" RUNNING
  echo "filler $(job_field "$f" NodeList)"
  for i in 1 2 3 4; do
    submit -n 1 -t 1 --wrap 'sleep 8' > /dev/null
    submit -w n4 -n 1 -t 1 --wrap 'sleep 8' > /dev/null
  done
  for _ in $(seq 20); do
    n=$(running_on n4); [ "$n" -gt "$max" ] && max=$n
    [ "$max" = 8 ] && break; sleep 0.5
  done
  echo "share8_max $max"
  wait_until 30 bash -c '[ "$(squeue -h -w n4 -o %i | wc -l)" = 0 ]'

  say "2. memory limits n4 (n1-n3 still held)"
  for i in 1 2 3; do m+=("$(submit -n 1 --mem=7000 -t 1 --wrap 'sleep 12')"); done
  wait_until 10 has_start "${m[2]}"
  sleep 1
  n=0; for i in 0 1 2; do job_is "${m[$i]}" RUNNING && n=$((n + 1)); done
  echo "mem_running $n $(squeue -h -t R -o %N -j "${m[0]},${m[1]}" | sort -u | paste -sd,)"
  echo "mem3_state $(job_state "${m[2]}")"
  echo "mem3_reason $(squeue -h -j "${m[2]}" -o %r)"
  first=$(start_epoch "${m[0]}"); [ "$(start_epoch "${m[1]}")" -lt "$first" ] && first=$(start_epoch "${m[1]}")
  echo "mem3_start $(delta "$(start_epoch "${m[2]}")" $((first + 60)))"
  echo "mem3_squeue $(delta "$(squeue_start "${m[2]}")" $((first + 60)))"
  echo "mem3_sched $(sched_nodes "${m[2]}")"
  echo "mem_ids ${m[0]} ${m[1]}"
  # what it waits for (fairway explain; Slurm's plugins have no such
  # command: the reference cluster prints "none")
  if [ "${FW_EXPLAIN:-1}" = 1 ]; then
    x=$(fairway_cmd explain "${m[2]}" 2>/dev/null | sed -n 's/^ *Waits for: //p')
    echo "mem3_waits ${x:-none}"
  else
    echo "mem3_waits none"
  fi
  wait_until 30 not_pending "${m[2]}"
  echo "mem3_ran $(job_field "${m[2]}" NodeList) $([ "$(start_epoch "${m[2]}")" -ge "$(epoch "$(job_field "${m[0]}" EndTime)")" ] && echo after-first-end)"
  scancel "$f"
  wait_until 60 queue_empty

  say "3. a100 vs v100"
  # untyped: it gets the a100s of n1-n2 (cons_tres takes the first nodes)
  g1=$(submit -N 2 -n 2 --gres=gpu:2 -t 1 --wrap 'sleep 15')
  wait_until 10 job_is "$g1" RUNNING
  echo "g1_nodes $(job_field "$g1" NodeList)"
  g2=$(submit -n 1 --gres=gpu:a100:1 -t 1 --wrap 'sleep 2')
  g3=$(submit -n 1 --gres=gpu:v100:1 -t 1 --wrap 'sleep 2')
  wait_until 10 has_start "$g2"
  wait_until 10 job_is "$g3" RUNNING
  echo "g2_state $(job_state "$g2")"
  echo "g2_start $(delta "$(start_epoch "$g2")" $(( $(start_epoch "$g1") + 60 )))"
  echo "g2_sched $(sched_nodes "$g2")"
  echo "g3_state $(job_state "$g3") $(job_field "$g3" NodeList)"
  # tmpdisk:100 on n2-n4, count-only: one 60 per node
  for i in 1 2 3 4; do t+=("$(submit -n 1 --gres=tmpdisk:60 -t 1 --wrap 'sleep 6')"); done
  wait_until 10 has_start "${t[3]}"
  echo "tmp_running $(squeue -h -t R -o %N -j "$(IFS=,; echo "${t[*]}")" | sort | paste -sd,)"
  echo "tmp4_state $(job_state "${t[3]}")"
  first=$(start_epoch "${t[0]}")
  for i in 1 2; do [ "$(start_epoch "${t[$i]}")" -lt "$first" ] && first=$(start_epoch "${t[$i]}"); done
  echo "tmp4_start $(delta "$(start_epoch "${t[3]}")" $((first + 60)))"
  wait_until 60 queue_empty
  echo "g2_ran $(job_state "$g2") $(job_field "$g2" NodeList)"
  echo "tmp4_ran $(job_state "${t[3]}")"

  say "4. a protected -n 16 job and lower-priority 1-CPU jobs"
  for i in 1 2; do r+=("$(submit -w "n$i" -n 6 -t 1 --wrap 'sleep 58')"); done
  for i in 3 4; do r+=("$(submit -w "n$i" -n 6 -t 5 --wrap 'sleep 300')"); done
  wait_until 10 bash -c "[ \"\$(squeue -h -t R -o %i | wc -l)\" = 4 ]"
  big=$(submit -n 16 -t 1 --wrap 'sleep 4')
  for i in 1 2 3 4 5 6; do s+=("$(submit -n 1 -t 5 --nice=1000 --wrap 'sleep 300')"); done
  x=$(submit -N 1 --exclusive -t 1 --nice=1000 --wrap 'sleep 1')
  wait_until 10 has_start "$big"
  sleep 3
  first=$(start_epoch "$big")
  local rend=$(( $(start_epoch "${r[0]}") + 60 ))
  [ $(( $(start_epoch "${r[1]}") + 60 )) -gt "$rend" ] && rend=$(( $(start_epoch "${r[1]}") + 60 ))
  echo "big_first $(delta "$first" "$rend")"
  echo "big_sched $(sched_nodes "$big")"
  n=$(squeue -h -t R -o %i | grep -cxF -f <(printf '%s\n' "${s[@]}"))
  echo "small_started $n"
  echo "small_nodes $(squeue -h -t R -o %N -j "$(IFS=,; echo "${s[*]}")" | sort | uniq -c | awk '{printf "%s:%s ", $2, $1}')"
  echo "excl_state $(job_state "$x")"
  wait_until 90 not_pending "$big"
  now=$(start_epoch "$big")
  echo "big_start $(delta "$now" "$first")"
  echo "big_nodes $(job_field "$big" NodeList)"
  local rlast=0 e
  for i in 0 1; do e=$(epoch "$(job_field "${r[$i]}" EndTime)"); [ "$e" -gt "$rlast" ] && rlast=$e; done
  echo "big_after_blockers $([ "$now" -ge "$rlast" ] && echo yes || echo no)"
  echo "small_started_before_big $(squeue -h -t R -o %i | grep -cxF -f <(printf '%s\n' "${s[@]}"))"
  scancel "${r[@]}" "${s[@]}" "$big" "$x" 2>/dev/null
  wait_until 30 queue_empty

  say "5. a job that can never fit (partition edge moved from n1 to n3)"
  # Slurm rejects such a request at submission, so it is submitted held
  # while edge is n1 (a100s) and edge then becomes n3 (v100s only).
  x=$(submit -p edge -n 1 --gres=gpu:a100:2 --hold -t 1 --wrap 'sleep 1')
  scontrol update partitionname=edge nodes=n3
  scontrol release "$x"
  wait_until 10 bash -c "[ \"\$(squeue -h -j $x -o %r)\" = BadConstraints ]"
  sleep 4   # several passes (bf_interval=1)
  echo "never_state $(job_state "$x") $(squeue -h -j "$x" -o %r)"
  echo "never_prio $(squeue -h -j "$x" -o %Q)"
  echo "never_logged $(grep -c "JobId=$x non-runnable" "$CTLD_LOG")"
  scancel "$x"
  scontrol update partitionname=edge nodes=n1
  wait_until 30 queue_empty
}

# ---- two clusters of the same shape, the same mix at the same time ---------
ref_dir="$FW_LIVE_DIR/fw-shared-ref"
extra=$(mktemp); extra_ref=$(mktemp)
edge='PartitionName=edge Nodes=n1 MaxTime=INFINITE State=UP'
printf 'SchedulerParameters=sched_interval=-1,%s\nDefMemPerCPU=1000\n%s\n' "$bf" "$edge" > "$extra"
printf 'SchedulerParameters=%s\nDefMemPerCPU=1000\n%s\n' "$bf" "$edge" > "$extra_ref"
start_cluster fw-shared 17760 "${shape[@]}" --slurm-extra "$extra"
bash "$FW_TOP/contrib/cluster-stop.sh" --dir "$ref_dir" >/dev/null 2>&1
if ! bash "$FW_TOP/contrib/cluster-start.sh" --dir "$ref_dir" --name fw-shared-ref \
    --port "$(live_port 17780)" --no-fairway "${shape[@]}" --slurm-extra "$extra_ref" >/dev/null; then
  fail "the reference cluster (sched/backfill) did not start; logs in $ref_dir/log"
fi
trap 'stop_cluster; bash "$FW_TOP/contrib/cluster-stop.sh" --dir "$ref_dir" >/dev/null 2>&1' EXIT
rm -f "$extra" "$extra_ref"
grep -E '^(SelectType|SchedulerParameters|DefMemPerCPU)' "$SLURM_CONF" | sed 's/^/    /'
sinfo -N -h -o '    %N %c CPUs %m MB %G' | sort -u

out_ref="$ref_dir/mix.out"; out_fw="$_cluster_dir/mix.out"
( export SLURM_CONF="$ref_dir/etc/slurm.conf"; JOBDIR="$ref_dir/jobs" FW_EXPLAIN=0
  CTLD_LOG="$ref_dir/log/slurmctld.log"
  mkdir -p "$JOBDIR"; chmod 1777 "$JOBDIR"; mix > "$out_ref" 2>&1 ) &
refpid=$!
CTLD_LOG="$_cluster_dir/log/slurmctld.log" mix | tee "$out_fw" | grep -v '^[a-z]'
wait "$refpid"

val() { sed -n "s/^$2 //p" "$1" | head -n1; }
keys=(filler share8_max mem_running mem3_state mem3_reason mem3_start mem3_squeue mem3_sched
  mem3_waits mem3_ran g1_nodes g2_state g2_start g2_sched g3_state g2_ran tmp_running tmp4_state tmp4_start tmp4_ran big_first big_sched small_started
  small_nodes excl_state big_start big_nodes big_after_blockers small_started_before_big
  never_state never_prio never_logged)
printf '    %-26s %-24s %s\n' observation "sched/backfill" "sched/fairway"
for k in "${keys[@]}"; do
  printf '    %-26s %-24s %s\n' "$k" "$(val "$out_ref" "$k")" "$(val "$out_fw" "$k")"
done

say "checks (sched/fairway)"
f() { val "$out_fw" "$1"; }
# near0 V TOL: V is a number with |V| <= TOL
near0() { [[ "$1" =~ ^-?[0-9]+$ ]] && near "$1" 0 "$2"; }
check_eq "the --exclusive filler took n1-n3" "n[1-3]" "$(f filler)"
check_eq "1. eight 1-CPU jobs (four with -w n4) ran on n4 at the same time" 8 "$(f share8_max)"
check_eq "2. two 7000 MB jobs run on n4" "2 n4" "$(f mem_running)"
check_eq "... the third waits (memory, with 6 CPUs idle)" PENDING "$(f mem3_state)"
check_eq "... for Resources" Resources "$(f mem3_reason)"
check "... StartTime = the first one's start + 60 s (+-2): $(f mem3_start)" near0 "$(f mem3_start)" 2
check "... squeue --start says the same: $(f mem3_squeue)" near0 "$(f mem3_squeue)" 2
check_eq "... SchedNodeList" n4 "$(f mem3_sched)"
# The two 7000 MB jobs hold n4's memory until the third's start.
# Every job it names is one of those two, on n4, and it names one at least.
named=$(f mem3_waits | grep -o 'running job [0-9]* on n4' | awk '{print $3}' | sort -u | paste -sd' ')
check "... fairway explain: it waits for the 7000 MB jobs on n4 ($(f mem3_waits))" \
  bash -c "[ -n '$named' ] && for j in $named; do [[ ' $(f mem_ids) ' == *\" \$j \"* ]] || exit 1; done"
check_eq "... it ran on n4 once the first one ended" "n4 after-first-end" "$(f mem3_ran)"
check_eq "3. an untyped --gres=gpu:2 job on 2 nodes got n1-n2 (their a100s)" "n[1-2]" "$(f g1_nodes)"
check_eq "... gpu:a100:1 waits while the v100s are free" PENDING "$(f g2_state)"
check_eq "... gpu:v100:1 starts at once on n3" "RUNNING n3" "$(f g3_state)"
check "... the a100 job is planned at the untyped job's limit (+-2): $(f g2_start)" near0 "$(f g2_start)" 2
check "... on n1 or n2: $(f g2_sched)" bash -c "[[ '$(f g2_sched)' =~ ^n[12]$ ]]"
check "... and ran there: $(f g2_ran)" bash -c "[[ '$(f g2_ran)' =~ ^COMPLETED\ n[12]$ ]]"
check_eq "... three tmpdisk:60 jobs run at once, one per tmpdisk node" "n2,n3,n4" "$(f tmp_running)"
check_eq "... a fourth waits (tmpdisk:100 per node)" PENDING "$(f tmp4_state)"
check "... planned at the first one's limit (+-2): $(f tmp4_start)" near0 "$(f tmp4_start)" 2
check_eq "... and then runs" COMPLETED "$(f tmp4_ran)"
check "4. the -n 16 job is planned at the 6-CPU jobs' limit on n1-n2 (+-2): $(f big_first)" near0 "$(f big_first)" 2
check_eq "... SchedNodeList" "n[1-2]" "$(f big_sched)"
check_eq "... the four 1-CPU jobs that fit n3/n4 start at once" 4 "$(f small_started)"
check_eq "... two on each of n3 and n4" "n3:2 n4:2" "$(f small_nodes | sed 's/ $//')"
check_eq "... the two that would delay it still wait when it starts" 4 "$(f small_started_before_big)"
check_eq "... an --exclusive job waits while every node is partly used" PENDING "$(f excl_state)"
v=$(f big_start)
check "... it starts no later than its first StartTime + bf_resolution: $v s" \
  bash -c "[[ '$v' =~ ^-?[0-9]+$ ]] && [ '$v' -le 1 ] && [ '$v' -ge -3 ]"
check_eq "... after the jobs on n1/n2 ended" yes "$(f big_after_blockers)"
check_eq "... on n[1-2]" "n[1-2]" "$(f big_nodes)"
check_eq "5. a job no node of its partition can hold: Slurm's BadConstraints" \
  "PENDING BadConstraints" "$(f never_state)"
check_eq "... priority 0, as Slurm's schedulers leave it (not retried)" 0 "$(f never_prio)"
check_eq "... said once in slurmctld's log over several passes" 1 "$(f never_logged)"
finish
