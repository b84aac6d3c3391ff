#!/bin/bash
# Where users rely on Slurm's behaviour (issue 18), on the 4 x 2-CPU cluster
# with both Fairway plugins and the project's default SchedulerParameters
# (contrib/cluster-start.sh: sched_interval=-1, no 'defer'; the backfill
# settings only make the test quick):
#  1. jobs sized by task count (-n, -c, --ntasks-per-node, -N min-max) start
#     on as many nodes as their tasks need: the node counts below are worked
#     out by hand (2 one-CPU tasks per node) and the same mix runs under
#     Slurm's own plugins on the same cluster shape (both printed); a
#     protected task-count job is not overtaken by a lower-priority job that
#     would delay it; srun -n 3 runs 3 tasks;
#  2. --deadline cuts the time limit at start to the whole minutes left
#     (Slurm's rule: job_scheduler.c/backfill.c), and the job ends by then;
#  3. interactive jobs without 'defer': srun --immediate and salloc start
#     at once on an idle cluster, without "queued and waiting"; a
#     lower-priority interactive job does not take the nodes a protected
#     --exclusive job waits for (Slurm's top-priority test), and --immediate then fails;
#  4. a CoreCnt=1 reservation on n1 leaves n1's other core to jobs outside
#     it (a 4-node job of one CPU per node starts at once, also under
#     Slurm's plugins); a job needing both CPUs of n1 waits until the
#     reservation is gone; a job of the reservation runs on n1.
# Each of these failed with the plugin before the fix (issue 18: "-n 3"
# stayed pending forever, --deadline was ignored, srun --immediate always
# failed with 'defer').
source "$(dirname "$0")/lib.sh"

bf="bf_interval=1,bf_resolution=1,bf_window=60"

# run_mix LABEL: each request alone on the idle cluster; prints
# "<request>=<nodes>" for each, in order.
mix=("-n 3" "-n 8" "-n 3 -N 1-2" "-c 2 -n 2" "--ntasks-per-node=2 -n 6")
want=(2 4 2 2 3)
run_mix() {
  local out="" j n
  for req in "${mix[@]}"; do
    # shellcheck disable=SC2086
    j=$(submit $req -t 1 --wrap "sleep 1")
    if wait_until 15 bash -c "[ \"\$(squeue -h -j $j -o %T)\" != PENDING ]"; then
      n=$(job_field "$j" NumNodes); n=${n%%-*}
    else
      n=pending
    fi
    wait_until 30 queue_empty
    out+="$req=$n;"
  done
  echo "$out"
}

# core_resv_case: prints whether a 4-node job of 1 CPU per node, outside a
# CoreCnt=1 reservation on n1, starts at once ("started"/"pending").
core_resv_case() {
  local a
  scontrol create reservation ReservationName=cores Nodes=n1 CoreCnt=1 \
    StartTime=now Duration=10 Users=root > /dev/null || { echo "no-reservation"; return; }
  a=$(submit -N 4 -n 4 -t 1 --wrap "sleep 3")
  if wait_until 10 bash -c "[ \"\$(squeue -h -j $a -o %T)\" != PENDING ]"; then
    echo started
  else
    echo pending
  fi
  wait_until 30 queue_empty
}

say "Slurm's own plugins (priority/multifactor + sched/backfill), same cluster shape"
start_cluster fw-slurmlike-ref 17650 --no-fairway
ref=$(run_mix)
ref_core=$(core_resv_case)
stop_cluster

start_cluster fw-slurmlike 17660 --sched-params "$bf"
grep '^SchedulerParameters' "$SLURM_CONF" | sed 's/^/    /'

say "1. jobs sized by task count"
got=$(run_mix)
printf '    %-26s %-14s %-14s %s\n' request "sched/backfill" "sched/fairway" "by hand"
for i in "${!mix[@]}"; do
  r=$(tr ';' '\n' <<< "$ref" | sed -n "$((i + 1))p"); g=$(tr ';' '\n' <<< "$got" | sed -n "$((i + 1))p")
  printf '    %-26s %-14s %-14s %s\n' "${mix[$i]}" "${r##*=}" "${g##*=}" "${want[$i]}"
  check_eq "'${mix[$i]}' starts at once on ${want[$i]} nodes under Fairway" "${want[$i]}" "${g##*=}"
done
out=$(timeout 30 srun -n 3 -t 1 hostname 2>&1); rc=$?
check "srun -n 3 hostname runs" test "$rc" = 0
check_eq "... 3 tasks, each printing this host's name" 3 "$(grep -cx "$(hostname)" <<< "$out")"

# A protected -n 8 job (4 nodes) waits for a 2-node job; a lower-priority
# 1-node job with a longer limit would delay it on a free node.
r=$(submit -N 2 -t 1 --wrap "sleep 20")
wait_until 10 job_is "$r" RUNNING || fail "blocker did not start"
t=$(submit -n 8 -t 1 --wrap "sleep 2")
l=$(submit -N 1 -t 5 --nice=10000 --wrap "sleep 2")
sleep 6
check_eq "the -n 8 job waits for the running one" PENDING "$(job_state "$t")"
st=$(start_epoch "$t")
rend=$(( $(epoch "$(job_field "$r" StartTime)") + 60 ))
echo "    StartTime of the -n 8 job: $st; the blocker's limit ends at $rend"
check "... planned when the blocker's time limit ends" start_is "$t" "$rend" 3
check_eq "the lower-priority 1-node job does not overtake it" PENDING "$(job_state "$l")"
check "the -n 8 job starts when the blocker ends" wait_until 40 job_is "$t" RUNNING
check_eq "... on 4 nodes" 4 "$(job_field "$t" NumNodes)"
check "the lower-priority job runs afterwards" wait_until 40 job_is "$l" COMPLETED
wait_until 30 queue_empty

say "2. --deadline cuts the time limit"
d=$(submit -N 1 --deadline now+2minutes --wrap "sleep 240")
wait_until 10 job_is "$d" RUNNING || fail "deadline job did not start"
tl=$(job_field "$d" TimeLimit)
echo "    TimeLimit=$tl (Slurm: whole minutes left before the deadline at start)"
check "time limit cut to 1-2 minutes" bash -c "[ '$tl' = 00:02:00 ] || [ '$tl' = 00:01:00 ]"
check "the job ends by its deadline (TIMEOUT)" wait_until 180 job_is "$d" TIMEOUT
end=$(epoch "$(job_field "$d" EndTime)"); dl=$(epoch "$(job_field "$d" Deadline)")
check "... not after the deadline (+30 s for Slurm's timeout check)" test "$end" -le $((dl + 30))

say "3. interactive jobs without 'defer'"
out=$(timeout 30 srun --immediate=5 -N 1 -t 1 hostname 2>&1); rc=$?
echo "    srun --immediate: rc=$rc $(head -1 <<< "$out")"
check "srun --immediate starts on an idle cluster" test "$rc" = 0
out=$(timeout 30 salloc -N 1 -t 1 true 2>&1); rc=$?
check "salloc starts on an idle cluster" test "$rc" = 0
if grep -q 'queued and waiting' <<< "$out"; then fail "salloc said 'queued and waiting'"
else pass "... without 'queued and waiting'"; fi
# --exclusive: on this select/cons_tres cluster nodes are shared, and a
# 4-node job of one CPU per node would start at once beside a 2-node job of
# one CPU per node (sched/backfill starts it at once too, and then lets the
# srun --immediate run); whole nodes keep the protected job waiting.
r=$(submit -N 2 --exclusive -t 1 --wrap "sleep 15")
wait_until 10 job_is "$r" RUNNING || fail "blocker did not start"
p=$(submit -N 4 --exclusive -t 1 --wrap "sleep 1")
sleep 3
check_eq "the protected 4-node job waits" PENDING "$(job_state "$p")"
out=$(timeout 30 srun --immediate=3 --nice=10000 -N 1 -t 5 hostname 2>&1); rc=$?
echo "    srun --immediate behind a protected job: rc=$rc $(head -1 <<< "$out")"
check "a lower-priority srun --immediate does not take the protected job's nodes" test "$rc" != 0
check "the protected job starts when the blocker ends" wait_until 30 job_is "$p" RUNNING
wait_until 30 queue_empty

say "4. a CoreCnt=1 reservation on n1"
got_core=$(core_resv_case)
echo "    4-node job of 1 CPU/node outside the reservation: sched/backfill $ref_core, sched/fairway $got_core"
check_eq "it starts at once beside the reserved core" started "$got_core"
b=$(submit --reservation=cores -n 1 -t 1 --wrap "sleep 1")
check "a job of the reservation runs" wait_until 30 job_is "$b" COMPLETED
check_eq "... on n1" n1 "$(job_field "$b" NodeList)"
c=$(submit -N 4 -n 8 -t 1 --wrap "sleep 1")
sleep 5
check_eq "a job needing both CPUs of n1 waits while the reservation lasts" PENDING "$(job_state "$c")"
scontrol delete reservation cores
check "... and starts once it is gone" wait_until 20 job_is "$c" COMPLETED
finish
