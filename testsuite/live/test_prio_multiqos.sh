#!/bin/bash
# Multi-QOS jobs (Slurm 24.11+) and the per-partition priority array,
# slurmctld under valgrind memcheck.  From 24.11 the array is sized
# partitions x QOS.  Slurm frees it when a pending job's partitions change
# but not when its QOS list does (job_mgr.c, _update_job), so a job in two
# partitions whose one QOS becomes a list of two keeps an array of 2 entries
# that priority/fairway then fills with 4: a heap overflow unless the
# plugin checks the array's size (fw_job_prio_array()).  Checks: the update
# is accepted, the job keeps a priority, and memcheck finds no error with a
# Fairway frame (the same attribution as test_fault_valgrind.sh).  Then,
# without valgrind: each QOS of a multi-QOS job gets its own priority in
# the array (Slurm's queue has one entry per partition x QOS), checked by
# which of two waiting jobs gets a freed node.  Slurm before 24.11 has no
# multi-QOS jobs: nothing to test there.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fault_lib.sh"

ver=$(slurmctld-wlm -V 2>/dev/null | awk '{ print $2 }')
if [ "$(printf '%s\n24.11\n' "$ver" | sort -V | head -n1)" != 24.11 ]; then
  echo "Slurm $ver has no multi-QOS jobs (24.11+): nothing to test"
  pass "skipped on Slurm $ver"
  finish
  exit
fi
command -v valgrind > /dev/null || { fail "valgrind is not installed"; finish; exit 1; }

extra=$(mktemp)
cat > "$extra" <<'EOF'
PriorityWeightQOS=1000
PriorityWeightAge=0
SchedulerParameters=sched_interval=-1,bf_interval=1,bf_resolution=1
PartitionName=other Nodes=n[1-4] MaxTime=INFINITE State=UP
EOF
fwconf=$(mktemp)
echo "RecalcPeriod=0:02" > "$fwconf"
start_cluster fw-p-mqos 17620 --dbd --dbd-port "$(live_port 17630)" \
  --slurm-extra "$extra" --fairway-conf "$fwconf"
rm -f "$extra" "$fwconf"

say "accounting: QOS hi (priority 100), user root may use normal and hi"
sacctmgr -i add qos hi > /dev/null
sacctmgr -i modify qos hi set priority=100 > /dev/null
sacctmgr -i add account phys parent=root > /dev/null
sacctmgr -i add user root account=phys qos=normal,hi defaultqos=normal > /dev/null
check "slurmctld knows QOS hi" wait_until 30 bash -c \
  "scontrol -o show assoc_mgr flags=qos qos=hi 2>/dev/null | grep -q '^QOS=hi('"

say "restart slurmctld under valgrind memcheck"
vg="$_cluster_dir/vg"; mkdir -p "$vg"; rm -f "$vg"/*
p=$(ctld_pid); kill -TERM "$p"; wait_until 60 not_running "$p" || fail "slurmctld did not stop"
CTLD_WRAP=(valgrind --tool=memcheck --num-callers=40 --keep-debuginfo=yes
  --log-file="$vg/memcheck.%p.log")
ctld_start
CTLD_WRAP=()
vpid=$(ctld_pid)
up=$(ctld_wait_up 240) || { fail "slurmctld under valgrind did not answer"; finish; exit 1; }
echo "    slurmctld under valgrind answers after $up s"
vlog="$vg/memcheck.$vpid.log"

say "a pending job in two partitions; its QOS becomes a list of two"
j=$(submit -A phys -p batch,other --qos=normal --begin=now+3600 -t 1 --wrap true)
check "the job waits (BeginTime)" wait_until 30 job_is "$j" PENDING
out=$(scontrol update jobid="$j" qos=normal,hi 2>&1); rc=$?
echo "    scontrol update qos=normal,hi: rc=$rc $out"
check_eq "the QOS list update is accepted" 0 "$rc"
echo "    $(scontrol show job "$j" | grep -o 'QOS=[^ ]*')"
# a priority computation by the update itself, then recalculations
scontrol update jobid="$j" nice=5
sleep 8
prio=$(squeue -h -j "$j" -o %Q)
echo "    priority $prio"
check "the job has a priority" test "${prio:-0}" -gt 0
check "slurmctld under valgrind is alive" ctld_alive

say "stop slurmctld, memcheck errors"
scancel "$j"
kill -TERM "$vpid"
wait_until 240 not_running "$vpid" || fail "slurmctld under valgrind did not stop"
grep -q "ERROR SUMMARY" "$vlog" || fail "valgrind wrote no final summary ($vlog)"
awk '
  /^==[0-9]+== (Invalid (read|write|free)|Conditional jump|Use of uninitialised|Syscall param|Mismatched free|Source and destination overlap|Argument .* of function)/ {
    inerr = 1; fw = 0; first = $0; all++; next }
  inerr && /\((sf|pf|fw)_[a-z_]*\.c:|\((priority|sched)_fairway\.c:|_fairway\.so/ { fw = 1 }
  inerr && /^==[0-9]+== *$/ { if (fw) { n++; print "    FAIRWAY: " first } inerr = 0 }
  END { printf "errors %d fairway %d\n", all, n }' "$vlog" > "$vg/errors.txt"
sed 's/^errors/    memcheck errors in all:/' "$vg/errors.txt"
check_eq "no memcheck error with a Fairway frame" 0 "$(awk '/^errors/{print $4}' "$vg/errors.txt")"
grep -E "ERROR SUMMARY" "$vlog" | sed 's/^==[0-9]*==/    whole slurmctld:/'
ctld_start
ctld_wait_up 60 > /dev/null || fail "slurmctld did not come back"

say "each QOS of a multi-QOS job has its own priority (one free node)"
# Weights: partition 1000 (factor 1.0), QOS 1000 (hi 1.0, normal 0), age 0.
# J --qos=hi,normal: 2000 under hi, 1000 under normal (Slurm's queue has an
# entry for each); K --qos=normal --nice=-500: 1500.  When one node frees,
# J's hi entry (2000) is first: J starts, with QOS hi.  With one priority
# for all of J's entries - computed with whichever QOS the last scheduling
# pass left in the job - K could start first.
fill=()
for n in 1 2 3 4; do fill+=("$(submit -A phys -w n$n -c 2 -t 5 --wrap 'sleep 600')"); done
for f in "${fill[@]}"; do check "filler $f runs" wait_until 20 job_is "$f" RUNNING; done
J=$(submit -A phys -p batch -c 2 -t 1 --qos=hi,normal --wrap "sleep 20")
K=$(submit -A phys -p batch -c 2 -t 1 --qos=normal --nice=-500 --wrap "sleep 20")
sleep 6 # scheduling passes (bf_interval=1) and recalculations (2 s)
echo "    J ($(job_field "$J" QOS)): priority $(squeue -h -j "$J" -o %Q); K: $(squeue -h -j "$K" -o %Q)"
check_eq "K's priority: partition 1000 + nice 500" 1500 "$(squeue -h -j "$K" -o %Q)"
scancel "${fill[0]}"
check "a job starts on the freed node" wait_until 20 bash -c \
  "[ \"\$(squeue -h -t R -j $J,$K -o %i | wc -l)\" -ge 1 ]"
check_eq "the multi-QOS job starts first" RUNNING "$(job_state "$J")"
check_eq "... with QOS hi" hi "$(job_field "$J" QOS)"
check_eq "K waits" PENDING "$(job_state "$K")"
scancel "${fill[@]}" "$J" "$K"
finish
