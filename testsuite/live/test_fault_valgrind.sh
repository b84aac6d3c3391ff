#!/bin/bash
# Both plugins inside slurmctld under valgrind memcheck, for a short live
# run: slurmctld is restarted under valgrind; a cycle ends with a
# sched/fairway backfill pass (bf_interval=1).  Phase 1: a steady workload
# (below).  Phase 2: jobs start, end, are cancelled and requeued.  Attribution: a valgrind error or loss record counts against
# Fairway when a frame of its stack is in Fairway's code (its source files
# or priority_fairway.so / sched_fairway.so); the rest is Slurm's own and
# only reported.  Checks:
#  - no memcheck error (invalid read/write/free, uninitialised use) with a
#    Fairway frame, during the run or at exit;
#  - no definitely or indirectly lost block allocated through Fairway after
#    N and after 2N cycles (vgdb leak_check) nor at exit (after fini());
#  - at exit nothing Fairway allocated itself is left (fini() frees it);
#  - the heap allocated through Fairway and still in use does not grow
#    between N and 2N cycles of a steady workload (slack 4 KiB): jobs wait,
#    passes plan them, sprio/fairway ask, priorities change; nothing starts
#    or ends (that would grow Slurm's own job records).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fault_lib.sh"

N=${FW_VG_CYCLES:-10}
extra=$(mktemp)
cat > "$extra" <<'EOF2'
SchedulerParameters=sched_interval=-1,defer,bf_interval=1
MinJobAge=2
PriorityWeightFairshare=1000
EOF2
start_cluster fw-fvg 17570 --slurm-extra "$extra"
rm -f "$extra"
command -v valgrind > /dev/null || { fail "valgrind is not installed"; finish; exit 1; }
vg="$_cluster_dir/vg"; mkdir -p "$vg"; rm -f "$vg"/*

say "restart slurmctld under valgrind memcheck"
p=$(ctld_pid); kill -TERM "$p"; wait_until 60 not_running "$p" || fail "slurmctld did not stop"
# --keep-debuginfo: frames of the plugins stay readable after slurmctld
# dlclose()s them at exit
CTLD_WRAP=(valgrind --tool=memcheck --leak-check=full --show-leak-kinds=all
  --errors-for-leak-kinds=definite --num-callers=40 --keep-debuginfo=yes
  --vgdb=yes --vgdb-prefix="$vg/vgdb" --log-file="$vg/memcheck.%p.log")
t0=$SECONDS
ctld_start
CTLD_WRAP=()
vpid=$(ctld_pid)
up=$(ctld_wait_up 180) || { fail "slurmctld under valgrind did not answer"; finish; exit 1; }
echo "    slurmctld under valgrind answers after $up s"
vlog="$vg/memcheck.$vpid.log"

# 3 nodes busy with long jobs; whole-cluster jobs wait behind them; the
# fourth node runs the short jobs of the first phase
for i in 1 2 3; do submit -N1 --exclusive -t 10 -J long --wrap 'sleep 600' > /dev/null; done
waiter=$(submit -N4 --exclusive -t 5 -J waiter --wrap 'sleep 1')
for i in 1 2 3 4 5; do submit -N4 --exclusive -t 5 -J wide --wrap 'sleep 1' > /dev/null; done
bf_cycles() { sdiag 2> /dev/null | awk -F: '/Total cycles/{n++; if (n == 2) {gsub(/ /, "", $2); print $2}}'; }
bf_after() { [ "$(bf_cycles)" -gt "$1" ]; }
questions() { # sprio and the fairway command about the waiting job
  sprio -h -j "$waiter" > /dev/null 2>&1
  "$FW_BUILD/src/cli/fairway" explain "$waiter" > /dev/null 2>&1
}

kind_bytes() { awk -F'|' -v k="$2" '$1 == k {b += $2} END {print b + 0}' "$vg/fw-$1.txt"; }
in_use() { # possibly lost + still reachable (Slurm's xmalloc hands out interior pointers)
  echo $(( $(kind_bytes "$1" "possibly lost") + $(kind_bytes "$1" "still reachable") ))
}
# snapshot LABEL: leak records through Fairway, by kind (vgdb leak_check).
# A running pass holds memory of its own for a moment (its plan and queue,
# freed at its end), and clears and rebuilds the jobs' estimates: a check
# that finds the plan (fw_plan_new) or the queue (build_queue) allocated was
# taken inside a pass and is repeated (up to 8 times).
snapshot() {
  local k
  for k in 1 2 3 4 5 6 7 8; do
    vgdb --vgdb-prefix="$vg/vgdb" --pid="$vpid" leak_check full reachable any \
      > "$vg/leak-$1.txt" 2>&1
    grep -q "LEAK SUMMARY" "$vg/leak-$1.txt" || fail "vgdb leak_check ($1) gave no report"
    grep -qE ": (fw_plan_new|build_queue) \(" "$vg/leak-$1.txt" || break
    echo "    (leak check $1 landed inside a pass: again)"
    sleep 0.$((RANDOM % 5))
  done
  awk -f "$FW_TOP/testsuite/live/fault_vgleak.awk" "$vg/leak-$1.txt" > "$vg/fw-$1.txt"
}

for j in $(squeue -h -n long -o %i); do wait_until 60 job_is "$j" RUNNING || fail "job $j did not start"; done

say "phase 1: a steady workload, $N cycles, leak check, $N more, leak check"
# every cycle: a backfill pass over the same waiting jobs, sprio, the
# fairway command, and a nice change (priority recomputed); no job starts
# or ends, so Slurm's own memory is steady too
steady() {
  local c0 i
  for i in $(seq "$N"); do
    c0=$(bf_cycles)
    scontrol update jobid="$waiter" nice=$(( (i % 2) * 10 ))
    questions
    wait_until 60 bf_after "$c0" || fail "no backfill pass within 60 s"
  done
  c0=$(bf_cycles); wait_until 60 bf_after "$c0" # snapshot right after a pass
}
steady; snapshot n
steady; snapshot 2n
for s in n 2n; do
  echo "    after $([ $s = n ] && echo $N || echo $((2 * N))) cycles, through Fairway:" \
    "$(tr '\n' ';' < "$vg/fw-$s.txt")"
  check_eq "[$s] no block allocated through Fairway is definitely lost" 0 "$(kind_bytes $s "definitely lost")"
  check_eq "[$s] no block allocated through Fairway is indirectly lost" 0 "$(kind_bytes $s "indirectly lost")"
done
a=$(in_use n); b=$(in_use 2n)
echo "    heap in use allocated through Fairway: $a bytes after $N cycles, $b after $((2 * N))"
echo "    of which Fairway's own structures after $((2 * N)) cycles: $(awk -v own=1 -f "$FW_TOP/testsuite/live/fault_vgleak.awk" "$vg/leak-2n.txt" | tr '\n' ';')"
check "heap in use through Fairway does not grow per cycle ($a -> $b, slack 4096)" test "$b" -le $((a + 4096))
check "slurmctld under valgrind is alive" ctld_alive

say "phase 2: 8 cycles with jobs starting, ending, cancelled and requeued"
for i in $(seq 8); do
  c0=$(bf_cycles)
  submit -N1 -t 1 -J short --wrap 'true' > /dev/null
  [ $i = 4 ] && scancel -n wide
  [ $i = 6 ] && j=$(squeue -h -n short -t R -o %i | head -1) && [ -n "$j" ] && scontrol requeue "$j"
  questions
  wait_until 60 bf_after "$c0" || fail "no backfill pass within 60 s"
done

say "stop slurmctld (plugins unload), final report"
scancel --state=PENDING; scancel -n long; scancel -n short
kill -TERM "$vpid"
wait_until 180 not_running "$vpid" || fail "slurmctld under valgrind did not stop"
echo "    valgrind run: $((SECONDS - t0)) s"
grep -q "ERROR SUMMARY" "$vlog" || fail "valgrind wrote no final summary ($vlog)"
awk -f "$FW_TOP/testsuite/live/fault_vgleak.awk" "$vlog" > "$vg/fw-exit.txt"
echo "    at exit, through Fairway: $(tr '\n' ';' < "$vg/fw-exit.txt")"
check_eq "[exit] no block allocated through Fairway is definitely lost" 0 "$(kind_bytes exit "definitely lost")"
check_eq "[exit] no block allocated through Fairway is indirectly lost" 0 "$(kind_bytes exit "indirectly lost")"
# After fini() nothing Fairway allocated itself may remain (what remains
# through Fairway's calls is Slurm's: job records are not freed at exit)
awk -v own=1 -f "$FW_TOP/testsuite/live/fault_vgleak.awk" "$vlog" > "$vg/fw-own.txt"
echo "    at exit, allocated by Fairway itself: $(tr '\n' ';' < "$vg/fw-own.txt")"
own_left=$(awk -F'|' '{b += $2} END {print b + 0}' "$vg/fw-own.txt")
check_eq "[exit] fini() freed everything Fairway allocated itself" 0 "$own_left"
# memcheck errors (not leak records): a block from the error line to the
# next empty line; Fairway's when a frame is in its code
awk '
  /^==[0-9]+== (Invalid (read|write|free)|Conditional jump|Use of uninitialised|Syscall param|Mismatched free|Source and destination overlap|Argument .* of function)/ {
    inerr = 1; fw = 0; first = $0; all++; next }
  inerr && /\((sf|pf|fw)_[a-z_]*\.c:|\((priority|sched)_fairway\.c:|_fairway\.so/ { fw = 1 }
  inerr && /^==[0-9]+== *$/ { if (fw) { n++; print "    FAIRWAY: " first } inerr = 0 }
  END { printf "errors %d fairway %d\n", all, n }' "$vlog" > "$vg/errors.txt"
cat "$vg/errors.txt" | sed 's/^errors/    memcheck errors in all:/'
check_eq "no memcheck error with a Fairway frame" 0 "$(awk '/^errors/{print $4}' "$vg/errors.txt")"
grep -E "definitely lost:|indirectly lost:|possibly lost:|ERROR SUMMARY" "$vlog" | sed 's/^==[0-9]*==/    whole slurmctld at exit:/'
# slurmd and the cluster are still up: start a normal slurmctld for the stop
ctld_start
ctld_wait_up 60 > /dev/null || true
finish
