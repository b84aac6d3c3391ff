#!/bin/bash
# priority/fairway alone, with Slurm's own sched/backfill (a site adopting
# the priority plugin first): with slurmdbd, sprio shows Fairway's numbers
# (columns add up, the fair-share term follows the account's shares),
# sshare lists the associations with Fairway's fair-share factor, and
# sched/backfill backfills a short job in front of a wide job's reservation
# while a long one that would delay it waits.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/prio_lib.sh"

extra="$FW_LIVE_DIR/fw-p-bf.extra"
cat > "$extra" <<EOF
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1,bf_resolution=60,bf_window=60
PriorityWeightAge=0
PriorityWeightFairshare=10000
PriorityWeightPartition=1000
EOF
start_cluster fw-p-bf 17700 --dbd --dbd-port "$(live_port 17790)" --slurm-extra "$extra"

say "the two plugins slurmctld loaded"
check_eq "PriorityType" "priority/fairway" \
  "$(scontrol show config | awk -F'= ' '/^PriorityType/{print $2}')"
check_eq "SchedulerType" "sched/backfill" \
  "$(scontrol show config | awk -F'= ' '/^SchedulerType/{print $2}')"
check "priority/fairway loaded" grep -q "priority/fairway loaded" <(ctld_log)
check "sched/fairway not loaded" bash -c "! grep -q 'sched/fairway loaded' '$_cluster_dir/log/slurmctld.log'"

say "associations: big (90 shares) and small (10 shares)"
sacctmgr -i add account big,small parent=root > /dev/null
sacctmgr -i modify account big set fairshare=90 > /dev/null
sacctmgr -i modify account small set fairshare=10 > /dev/null
sacctmgr -i add user root account=big,small > /dev/null
check "sshare lists big/root and small/root" \
  wait_until 30 bash -c "sshare -a -n -P -o Account,User | sed 's/^ *//' | grep -qx 'small|root'"
ns_big=$(sshare_rows | awk -F'|' '$1=="big" && $2=="" {print $4}')
ns_small=$(sshare_rows | awk -F'|' '$1=="small" && $2=="" {print $4}')
check "sshare: big's normalised shares are 9 x small's ($ns_big, $ns_small)" \
  awk -v a="$ns_big" -v b="$ns_small" 'BEGIN { exit !(b > 0 && a / b > 8.99 && a / b < 9.01) }'

say "backfill by sched/backfill around a wide job's reservation"
a=$(submit -A big -N2 --exclusive -t 3 -J A --wrap "sleep 120")
wait_until 20 job_is "$a" RUNNING || fail "A did not start"
w=$(submit -A big -N4 --exclusive -t 2 -J W --wrap "sleep 2")
sleep 3
check_eq "W waits for A's nodes" PENDING "$(job_state "$w")"
s=$(submit -A small -N1 --exclusive -t 1 -J short --wrap "sleep 5")
l=$(submit -A small -N1 --exclusive -t 30 -J long --wrap "sleep 5")
check "the short job is backfilled" wait_until 20 job_is "$s" RUNNING
sleep 3
check_eq "the long job that would delay W waits" PENDING "$(job_state "$l")"
check "sdiag counts a backfilled job" \
  test "$(sdiag | awk -F: '/Total backfilled jobs \(since last slurm start\)/{gsub(/ /,"",$2); print $2}')" -ge 1

say "sprio shows Fairway's numbers for the pending jobs"
for j in "$w" "$l"; do
  check "sprio columns add up to PRIORITY (job $j)" sprio_sums_ok -j "$j"
  check_eq "job $j: record priority equals sprio's" "$(sprio_field "$j" Y)" "$(job_field "$j" Priority)"
done
# No usage charged yet: fair-share factor 1.0 x PriorityWeightFairshare.
check_eq "fair-share term of W (no usage yet)" 10000 "$(sprio_field "$w" F)"
scancel "$a" "$l" "$s" "$w"
wait_until 30 queue_empty
finish
