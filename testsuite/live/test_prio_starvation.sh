#!/bin/bash
# The starvation-bounded preset (doc/examples/starvation, issue 17) runs
# unchanged in the live plugins: its priority and scheduler lines load,
# sprio shows the expansion-factor term (in SITE: sprio has no column for
# it) and the queue-time term (in AGE, fairway.conf(5)) and its columns add up,
# the fairway command shows both terms with the preset's weights, a short
# job overtakes a long one as their expansion factors grow, and
# SchedulerParameters carries bf_min_age_reserve=43200.  The Starvation
# term (0 until StarvationThreshold=12:00:00) shows with the preset's
# weight and raw 0; then, with only the threshold shortened to a minute
# and a reconfigure, it counts in sprio's AGE column.  Last,
# XFWidthExponent=1 (reconfigure): a 4-CPU job's expansion factor grows
# 4 times as fast as a 1-CPU job's.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/prio_lib.sh"

preset="$FW_TOP/doc/examples/starvation"
extra="$FW_LIVE_DIR/fw-p-starve.extra"
# The preset's lines (not its example nodes), and a DOWN partition that
# keeps jobs pending.
grep -v -E '^(NodeName|PartitionName|ClusterName)=' "$preset/slurm.conf" > "$extra"
echo "PartitionName=hold Nodes=n[1-4] State=DOWN MaxTime=INFINITE" >> "$extra"
start_cluster fw-p-starve 17380 --cpus 4 --mem 4096 \
  --slurm-extra "$extra" --fairway-conf "$preset/fairway.conf"
FAIRWAY=$FW_BUILD/src/cli/fairway

say "the preset's scheduler parameters reach slurmctld"
check "SchedulerParameters has bf_min_age_reserve=43200" \
  grep -q 'bf_min_age_reserve=43200' <<< "$(scontrol show config | grep '^SchedulerParameters')"

say "a 10-minute and a 2-day job, both pending"
short=$(submit -p hold -n 1 -t 10 --wrap true)
long=$(submit -p hold -n 1 -t 2-0 --wrap true)
listed() { [ "$(sprio -h | wc -l)" -ge 2 ]; }
check "sprio lists both jobs" wait_until 20 listed
sprio -l | sed 's/^/    /'
# XFactor = 1 + queue time / max(10 min, limit) >= 1: at least 1000 in SITE
check "SITE of the short job >= 1000 (XFactor >= 1 x 1000)" test "$(sprio_field "$short" S)" -ge 1000
check "SITE of the long job >= 1000" test "$(sprio_field "$long" S)" -ge 1000
check "plain sprio columns add up" sprio_view_sums_ok
check "sprio -l columns add up" sprio_view_sums_ok -l
out=$("$FAIRWAY" priority "$short")
echo "$out" | sed 's/^/    /'
check "fairway priority: XFactor term with weight 1000" \
  grep -Eq '^ +XFactor +raw [0-9.]+ +weight 1000 ' <<< "$out"
check "fairway priority: QueueTime term with weight 3" \
  grep -Eq '^ +QueueTime +raw [0-9.]+ +weight 3 ' <<< "$out"
sw=$(sed -n 's/^PriorityWeightStarvation=//p' "$preset/fairway.conf")
check "fairway priority: Starvation term with weight $sw, raw 0 before 12 h" \
  grep -Eq "^ +Starvation +raw 0 +weight $sw " <<< "$out"

say "the short job's expansion factor grows faster (1/10 a minute, not 1/2880)"
ahead() { [ "$(sprio_field "$short" Y)" -gt "$(sprio_field "$long" Y)" ]; }
check "within 3 minutes the short job is ahead of the long one" wait_until 180 ahead
sprio -l | sed 's/^/    /'
# a minute or more of queue time at 3 points a minute, in sprio's AGE column
check "AGE of the long job shows QueueTime (>= 3)" test "$(sprio_field "$long" A)" -ge 3
check "SITE of the short job grew with its expansion factor (> 1000)" \
  test "$(sprio_field "$short" S)" -gt 1000
check "columns still add up" sprio_view_sums_ok -l

say "the Starvation term past its threshold (shortened to 1 minute)"
conf="$_cluster_dir/etc/fairway.conf"
sed -i 's/^StarvationThreshold=.*/StarvationThreshold=0:01:00/' "$conf"
age0=$(sprio_field "$long" A)
scontrol reconfigure
# minutes past the threshold x the weight, on top of QueueTime's 3 a
# minute: AGE grows by at least the weight within two recalculations
starved() {
  "$FAIRWAY" priority "$long" | grep -Eq "^ +Starvation +raw [1-9][0-9.]* +weight $sw " &&
    [ "$(sprio_field "$long" A)" -ge $((age0 + sw)) ]
}
check "AGE of the long job grows by the Starvation term (>= $age0 + $sw)" wait_until 180 starved
sprio -l | sed 's/^/    /'
"$FAIRWAY" priority "$long" | grep -E 'QueueTime|Starvation|XFactor' | sed 's/^/    /'
check "columns add up with the Starvation term" sprio_view_sums_ok -l

say "XFWidthExponent=1: the expansion factor grows with the job's CPUs"
echo "XFWidthExponent=1" >> "$conf"
scontrol reconfigure
narrow=$(submit -p hold -n 1 -t 60 --wrap true)
wide=$(submit -p hold -n 4 -t 60 --wrap true)
# 1000 x (1 + CPUs x queue time / 1 h): past 1000 by 4 times as much for
# the 4-CPU job as for the 1-CPU job submitted with it (a second apart
# at most: a ratio between 3 and 5 once the narrow one is 10 past)
grown() {
  local n w
  n=$(sprio_field "$narrow" S) w=$(sprio_field "$wide" S)
  [ -n "$n" ] && [ -n "$w" ] && [ "$n" -ge 1010 ] &&
    [ $((w - 1000)) -ge $((3 * (n - 1000))) ] &&
    [ $((w - 1000)) -le $((5 * (n - 1000))) ]
}
check "SITE above 1000 grows 4 times as fast for 4 CPUs as for 1" wait_until 240 grown
sprio -l -j "$narrow,$wide" | sed 's/^/    /'
check "columns add up with XFWidthExponent" sprio_view_sums_ok -l

finish
