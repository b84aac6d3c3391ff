#!/bin/bash
# What sched/fairway must keep doing once Slurm's main scheduler is off
# (sched_interval=-1,defer), on a real cluster:
#  1. sdiag's "Backfilling stats" (cycles, depth = queue length for a
#     whole-queue pass, backfilled jobs) and Scheduler=Backfill;
#  2. job arrays, also throttled (%2);
#  3. a dependency chain (afterok), including a never-satisfied link;
#  4. advanced reservations: jobs in one use it, others stay off its nodes
#     while it lasts, the plan puts them after it, and a future maintenance
#     reservation holds back jobs that would run into it;
#  5. a multi-partition job and partition limits (MaxNodes, MaxTime);
#  6. licenses (slurm.conf Licenses=);
#  7. GRES: GPUs on n3-n4 only; a GPU job waits for them, CPU jobs do not;
#  8. --constraint: a job needing a node feature is planned on that node.
# Expected start times come from the blocking job's StartTime plus its
# time limit (bf_resolution=1).
source "$(dirname "$0")/lib.sh"

extra=$(mktemp)
cat > "$extra" <<'EOF2'
SchedulerParameters=sched_interval=-1,defer,bf_interval=1,bf_resolution=1,bf_window=120
Licenses=lic:2
PartitionName=small Nodes=n[1-2] MaxNodes=1 MaxTime=1 State=UP PriorityJobFactor=1
EOF2
start_cluster fw-s-queue 17420 --slurm-extra "$extra" --gres 3-4:gpu:1
rm -f "$extra"
reason_is() { [ "$(squeue -h -j "$1" -o %r)" = "$2" ]; }
running_count() { squeue -h -t R -o %i | wc -l; }
drain() { scancel --user=root; wait_until 30 queue_empty || fail "queue did not drain"; }

say "1. sdiag backfill statistics and Scheduler=Backfill"
c0=$(sdiag_bf "Total cycles")
sleep 3
c1=$(sdiag_bf "Total cycles")
check "backfill cycles keep coming (bf_interval=1): $c0 -> $c1" test "$c1" -ge $((c0 + 2))
a=$(submit -N2 --exclusive -t 2 -J A --wrap "sleep 300")
wait_until 10 job_is "$a" RUNNING
q1=$(submit -N4 --exclusive -t 1 -J Q1 --wrap "true")
q2=$(submit -N4 --exclusive -t 1 -J Q2 --wrap "true")
q3=$(submit -N3 --exclusive -t 1 -J Q3 --wrap "true")
a_end=$(( $(start_epoch "$a") + 120 ))
check "Q3 planned after Q1 and Q2 (A's end + 2 min)" wait_until 10 start_is "$q3" $((a_end + 120))
bf0=$(sdiag_bf "Total backfilled jobs (since last slurm start)")
s=$(submit -N1 --exclusive -t 1 -J S --wrap "sleep 2")
check "a short job is backfilled" wait_until 10 job_is "$s" RUNNING
check "sched/fairway logged it as a backfill start" grep -q "started JobId=$s on .* (backfill)" <(ctld_log)
check_eq "it shows Scheduler=Backfill" Backfill "$(job_field "$s" Scheduler)"
check_eq "sdiag counts one more backfilled job" $((bf0 + 1)) \
  "$(sdiag_bf "Total backfilled jobs (since last slurm start)")"
bf_stat_is() { [ "$(sdiag_bf "$1")" = "$2" ]; }
# The next pass sees the three waiting jobs (S has started).
check "last queue length = the 3 waiting jobs" wait_until 5 bf_stat_is "Last queue length" 3
check_eq "last depth = queue length (whole-queue pass)" 3 "$(sdiag_bf "Last depth cycle")"
check_eq "every queued job was tried" 3 "$(sdiag_bf "Last depth cycle (try sched)")"
last=$(sdiag_bf "Last cycle"); max=$(sdiag_bf "Max cycle"); mean=$(sdiag_bf "Mean cycle")
echo "    cycle times (us): last $last, max $max, mean $mean"
check "cycle times are plausible (0 < last <= max, 0 < mean <= max)" \
  test "$last" -gt 0 -a "$last" -le "$max" -a "$mean" -gt 0 -a "$mean" -le "$max"
when=$(sdiag | sed -n 's/.*Last cycle when: .*(\([0-9]*\)).*/\1/p')
check "last cycle was within the last 5 s (bf_interval=1)" near "$when" "$(date +%s)" 5
# `fairway stats` breaks the last backfill pass down: read it and sdiag
# between two passes (the pass count must not move while we read).
stats_and_sdiag() {
  local a b
  for _ in 1 2 3 4 5; do
    a=$(fairway_cmd stats); s_last=$(sdiag_bf "Last cycle"); b=$(fairway_cmd stats)
    [ "$a" = "$b" ] && { stats=$a; return 0; }
  done
  return 1
}
check "fairway stats read between two passes" stats_and_sdiag
echo "$stats" | sed 's/^/    /'
# tenths of a millisecond, rounded (integers for near())
tenths() { awk -v x="$1" 'BEGIN {printf "%d", x * 10 + 0.5}'; }
st_last=$(echo "$stats" | sed -n 's/^backfill passes [0-9]* (last \([0-9.]*\) ms.*/\1/p')
st_jobs=$(echo "$stats" | sed -n 's/^last backfill pass: \([0-9]*\) jobs.*/\1/p')
st_held=$(echo "$stats" | sed -n 's/.*; \([0-9.]*\) ms holding.*/\1/p')
st_wait=$(echo "$stats" | sed -n 's/.*, waited \([0-9.]*\) ms to get them back.*/\1/p')
st_sum=$(echo "$stats" | sed -n 's/.*holding the locks (\(.*\)); .*/\1/p' |
  tr ',' '\n' | awk '{s += $2} END {printf "%.2f", s}')
check_eq "fairway stats: the last pass saw the 3 waiting jobs" 3 "$st_jobs"
check "fairway stats' last backfill time is sdiag's Last cycle ($st_last ms, $s_last us)" \
  near "$(tenths "$st_last")" "$((s_last / 100))" 1
check "the phases add up to the time holding the locks ($st_sum vs $st_held ms)" \
  near "$(tenths "$st_sum")" "$(tenths "$st_held")" 8
check "held + waited for the locks = the cycle ($st_held + $st_wait vs $st_last ms)" \
  near "$(tenths "$(awk -v a="$st_held" -v b="$st_wait" 'BEGIN {print a + b}')")" "$(tenths "$st_last")" 20
check "Q1 counts a bypass by S" bash -c \
  "\"$FW_BUILD/src/cli/fairway\" plan $q1 | grep -q 'Bypassed by lower-priority jobs: 1 time$'"
drain

say "2. job arrays"
arr=$(submit -N1 --exclusive -t 1 -a 1-4 -J arr --wrap "sleep 3")
check "an array of 4 one-node tasks runs at once on 4 nodes" wait_until 10 bash -c "[ \$(squeue -h -t R -o %i | wc -l) = 4 ]"
wait_until 30 queue_empty
thr=$(submit -N1 --exclusive -t 1 -a 1-6%2 -J thr --wrap "sleep 2")
max_run=0; seen2=0
for _ in $(seq 150); do
  n=$(running_count); [ "$n" -gt "$max_run" ] && max_run=$n; [ "$n" = 2 ] && seen2=1
  queue_empty && break
  sleep 0.2
done
check_eq "throttled array %2 never ran more than 2 tasks" 2 "$max_run"
check_eq "... and did run 2 at a time" 1 "$seen2"
check_eq "all 6 throttled tasks completed" 6 \
  "$(scontrol show job "$thr" | grep -c 'JobState=COMPLETED')"
check_eq "all 4 unthrottled tasks completed" 4 \
  "$(scontrol show job "$arr" | grep -c 'JobState=COMPLETED')"

say "3. dependency chain (afterok)"
d1=$(submit -N1 -t 1 -J d1 --wrap "sleep 2")
d2=$(submit -N1 -t 1 -J d2 -d "afterok:$d1" --wrap "sleep 1")
d3=$(submit -N1 -t 1 -J d3 -d "afterok:$d2" --wrap "exit 1")
d4=$(submit -N1 -t 1 -J d4 -d "afterok:$d3" --wrap "true")
check "d4 waits on d3 (Reason=Dependency)" reason_is "$d4" Dependency
check "d3 completes (fails)" wait_until 30 job_is "$d3" FAILED
check_eq "d1 completed" COMPLETED "$(job_state "$d1")"
check_eq "d2 completed" COMPLETED "$(job_state "$d2")"
check "d2 started after d1 ended" test "$(epoch "$(job_field "$d2" StartTime)")" -ge "$(epoch "$(job_field "$d1" EndTime)")"
check "d3 started after d2 ended" test "$(epoch "$(job_field "$d3" StartTime)")" -ge "$(epoch "$(job_field "$d2" EndTime)")"
check "d4: DependencyNeverSatisfied" wait_until 5 reason_is "$d4" DependencyNeverSatisfied
sleep 2
check_eq "d4 never runs" PENDING "$(job_state "$d4")"
check_eq "d4 is not planned" none "$(start_epoch "$d4")"
drain

say "4. advanced reservations"
scontrol create reservation reservationname=rA nodes=n[3-4] starttime=now duration=2 users=root >/dev/null
ra_end=$(epoch "$(scontrol show res rA | sed -n 's/.*EndTime=\([^ ]*\).*/\1/p')")
r=$(submit -N2 -t 1 --reservation=rA -J inresv --wrap "sleep 300")
check "a job in the reservation runs on its nodes" wait_until 10 job_is "$r" RUNNING
check_eq "... on n[3-4]" "n[3-4]" "$(job_field "$r" NodeList)"
o=$(submit -N3 --exclusive -t 1 -J outside --wrap "sleep 2")
s1=$(submit -N1 --exclusive -t 1 -J small1 --wrap "sleep 300")
check "a one-node job outside the reservation runs" wait_until 10 job_is "$s1" RUNNING
check "... not on the reservation's nodes" bash -c "[[ \"$(job_field "$s1" NodeList)\" =~ ^n[12]$ ]]"
check "a 3-node job outside it is planned at the reservation's end" wait_until 10 start_is "$o" "$ra_end"
check_eq "... and waits" PENDING "$(job_state "$o")"
scancel "$r" "$s1"
wait_until 20 bash -c "[ \"\$(squeue -h -t R,CG -o %i)\" = '' ]"
check_eq "with the reservation idle, the 3-node job still waits" PENDING "$(job_state "$o")"
scontrol delete reservationname=rA
check "reservation deleted: the 3-node job starts" wait_until 10 job_is "$o" RUNNING
drain
scontrol create reservation reservationname=rF nodes=ALL starttime=now+90 duration=1 users=root flags=maint >/dev/null
rf_end=$(epoch "$(scontrol show res rF | sed -n 's/.*EndTime=\([^ ]*\).*/\1/p')")
l=$(submit -N1 --exclusive -t 2 -J long --wrap "sleep 2")
sh=$(submit -N1 --exclusive -t 1 -J short --wrap "sleep 2")
check "a job that ends before the maintenance starts" wait_until 10 job_is "$sh" RUNNING
check "a job that would run into it is planned at its end" wait_until 10 start_is "$l" "$rf_end"
check_eq "... and waits" PENDING "$(job_state "$l")"
scontrol delete reservationname=rF
check "maintenance deleted: the long job starts" wait_until 10 job_is "$l" RUNNING
drain

say "5. multi-partition job and partition limits"
b=$(submit -N2 -w 'n[1-2]' --exclusive -t 1 -J busy12 --wrap "sleep 300")
wait_until 10 job_is "$b" RUNNING
m=$(submit -p small,batch -N1 -t 1 -J multi --wrap "sleep 300")
check "a small,batch job runs while small's nodes are busy" wait_until 10 job_is "$m" RUNNING
check_eq "... in partition batch" batch "$(job_field "$m" Partition)"
check "... on n3 or n4" bash -c "[[ \"$(job_field "$m" NodeList)\" =~ ^n[34]$ ]]"
p1=$(submit -p small -N2 -t 1 -J toowide --wrap "true")
p2=$(submit -p small -N1 -t 2 -J toolong --wrap "true")
check "2 nodes in small (MaxNodes=1): PartitionNodeLimit" wait_until 5 reason_is "$p1" PartitionNodeLimit
check "2 minutes in small (MaxTime=1): PartitionTimeLimit" wait_until 5 reason_is "$p2" PartitionTimeLimit
sleep 2
check_eq "the too-wide job stays pending" PENDING "$(job_state "$p1")"
check_eq "... unplanned" none "$(start_epoch "$p1")"
check "... and is not held (priority > 0)" test "$(job_field "$p1" Priority)" -gt 0
drain

say "6. licenses (lic:2)"
l1=$(submit -n1 -L lic:2 -t 1 -J lic2 --wrap "sleep 6")
wait_until 10 job_is "$l1" RUNNING
l2=$(submit -n1 -L lic:1 -t 1 -J lic1 --wrap "sleep 1")
l3=$(submit -n1 -t 1 -J nolic --wrap "sleep 2")
check "a job without licenses runs" wait_until 10 job_is "$l3" RUNNING
check "a job needing a license in use waits (Reason=Licenses)" wait_until 5 reason_is "$l2" Licenses
check "... planned at the holder's end" wait_until 5 start_is "$l2" $(( $(start_epoch "$l1") + 60 ))
check "it runs once the licenses are free" wait_until 20 job_is "$l2" RUNNING
check "... not before the holder ended" test "$(epoch "$(job_field "$l2" StartTime)")" -ge "$(epoch "$(job_field "$l1" EndTime)")"
drain

say "7. GRES: gpu:1 on n3 and n4 only"
g0=$(submit -N2 -w 'n[3-4]' --exclusive -t 1 -J gpunodes --wrap "sleep 300")
wait_until 10 job_is "$g0" RUNNING
g=$(submit -n1 --gres=gpu:1 -t 1 -J gpujob --wrap "sleep 2")
c=$(submit -n1 -t 1 -J cpujob --wrap "sleep 300")
check "a CPU job runs on a CPU node" wait_until 10 job_is "$c" RUNNING
check "... n1 or n2" bash -c "[[ \"$(job_field "$c" NodeList)\" =~ ^n[12]$ ]]"
check "the GPU job is planned when the GPU nodes free up" wait_until 10 start_is "$g" $(( $(start_epoch "$g0") + 60 ))
check "... on a GPU node" bash -c "[[ \"\$(scontrol show job $g | sed -n 's/.*SchedNodeList=\([^ ]*\).*/\1/p')\" =~ ^n[34]$ ]]"
check_eq "... waiting for Resources" Resources "$(squeue -h -j "$g" -o %r)"
check "... not held (priority > 0)" test "$(job_field "$g" Priority)" -gt 0
scancel "$g0"
check "GPU nodes free: the GPU job runs" wait_until 10 job_is "$g" RUNNING
check "... on n3 or n4" bash -c "[[ \"$(job_field "$g" NodeList)\" =~ ^n[34]$ ]]"
drain

say "8. --constraint: only n2 has feature 'fast'"
scontrol update nodename=n2 availablefeatures=fast activefeatures=fast
f0=$(submit -N1 -w n2 --exclusive -t 1 -J n2busy --wrap "sleep 300")
wait_until 10 job_is "$f0" RUNNING
f=$(submit -N1 -C fast -t 1 -J fastjob --wrap "sleep 2")
check "the 'fast' job is planned on n2 when it frees up" wait_until 10 start_is "$f" $(( $(start_epoch "$f0") + 60 ))
check_eq "... SchedNodeList=n2" n2 "$(sched_nodes "$f")"
check "... not held (priority > 0)" test "$(job_field "$f" Priority)" -gt 0
scancel "$f0"
check "n2 free: the 'fast' job runs there" wait_until 10 bash -c "[ \"\$(squeue -h -j $f -t R -o %N)\" = n2 ]"
finish
