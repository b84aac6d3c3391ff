#!/bin/bash
# The scheduling primer's job mix (seed 004) on 4 nodes, scheduled by
# sched/fairway: 123 and 124 (2 nodes, 2 h) start at once, 125 (1 node,
# 1 h) starts when they end, 126 (4 nodes, 4 h) when 125 ends.  One primer
# hour is one minute of time limit; jobs run shorter than their limits so
# the test is quick, and while they wait squeue --start shows the start
# times the limits imply.
source "$(dirname "$0")/lib.sh"

extra=$(mktemp)
cat > "$extra" <<'EOF2'
FirstJobId=123
SchedulerParameters=sched_interval=-1,defer,bf_interval=1,bf_resolution=1,bf_window=120
EOF2
start_cluster fw-primer 17220 --slurm-extra "$extra"
rm -f "$extra"

sub() { # hours nodes run_seconds name
  submit -N "$2" --exclusive -t "$1" -J "$4" --wrap "sleep $3"
}
say "submit 123-126 in the primer's order"
j123=$(sub 2 2 12 neutro3); j124=$(sub 2 2 12 neutro3)
j125=$(sub 1 1 6 biodiv);   j126=$(sub 4 4 8 denovo)
check_eq "job ids follow the primer" "123 124 125 126" "$j123 $j124 $j125 $j126"
t0=$(date +%s)
check "123 and 124 start at once" wait_until 10 bash -c \
  "[ \"\$(squeue -h -t R -o %i | sort | tr '\n' ' ')\" = '123 124 ' ]"

say "while 125 and 126 wait, squeue --start shows when they will start"
wait_until 10 bash -c "[ \"\$(squeue -h -j 126 -o %S)\" != N/A ]"
s123=$(date -d "$(job_field 123 StartTime)" +%s)
st125=$(squeue -h -j 125 -o %S); st126=$(squeue -h -j 126 -o %S)
echo "    squeue --start: 125 at $st125, 126 at $st126"
# 125 needs one node: free when 123/124 reach their 2-minute limit.
# 126 needs all four: free when 125 reaches its 1-minute limit after that.
e125=$((s123 + 120)); e126=$((s123 + 180))
a125=$(date -d "$st125" +%s); a126=$(date -d "$st126" +%s)
check "125 planned at 123's start + 2 min (+-5 s): $a125 vs $e125" \
  test $((a125 - e125)) -le 5 -a $((e125 - a125)) -le 5
check "126 planned at 123's start + 3 min (+-5 s): $a126 vs $e126" \
  test $((a126 - e126)) -le 5 -a $((e126 - a126)) -le 5
check "126 has SchedNodeList n[1-4]" bash -c "scontrol show job 126 | grep -q 'SchedNodeList=n\[1-4\]'"
check_eq "125 waits for Resources" Resources "$(squeue -h -j 125 -o %r)"

say "the mix runs to completion in the backfill order"
check "queue drains" wait_until 90 queue_empty
for j in 123 124 125 126; do check_eq "job $j completed" COMPLETED "$(job_state $j)"; done
st() { date -d "$(job_field "$1" StartTime)" +%s; }
en() { date -d "$(job_field "$1" EndTime)" +%s; }
check "125 started after 123 and 124 ended" test "$(st 125)" -ge "$(en 123)" -a "$(st 125)" -ge "$(en 124)"
check "126 started after 125 ended" test "$(st 126)" -ge "$(en 125)"
check "126 started after 125 started" test "$(st 126)" -gt "$(st 125)"
finish
