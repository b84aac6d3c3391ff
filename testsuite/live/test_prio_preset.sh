#!/bin/bash
# The MSU site preset (doc/examples/msu, seed 001) loaded into a live
# cluster with slurmdbd: sprio shows the seed's numbers for a 4-CPU, 8 GB
# job ("100 per CPU, 20 per GB" = 560; fair-share 60000 without usage;
# buy-in QOS +3000); sprio's columns add up to PRIORITY in every view
# (plain, -l, filters -j/-u/-p, a multi-partition job), -w shows the
# configured weights and -n the weighted values divided by them; the
# fairway command shows the whole breakdown of one's own job and nothing of
# another user's job under PrivateData=jobs.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/prio_lib.sh"

# Another user (nobody) runs commands here, so the cluster directory must be
# reachable by it; CI's log directory may not be (e.g. under /root).
live_keep=""
if ! runuser -u nobody -- test -x "$FW_LIVE_DIR"; then
  live_keep=$FW_LIVE_DIR
  FW_LIVE_DIR=$(mktemp -d /tmp/fw-p-preset.XXXXXX)
  chmod 755 "$FW_LIVE_DIR"
fi

preset="$FW_TOP/doc/examples/msu"
extra="$FW_LIVE_DIR/fw-p-preset.extra"
# The preset's priority and scheduler lines (not its example nodes), plus
# PrivateData=jobs and two DOWN partitions that keep jobs pending.
grep -v -E '^(NodeName|PartitionName|ClusterName)=' "$preset/slurm.conf" > "$extra"
cat >> "$extra" <<EOF
PrivateData=jobs
PartitionName=hold Nodes=n[1-4] State=DOWN PriorityJobFactor=1 MaxTime=INFINITE
PartitionName=hold2 Nodes=n[1-4] State=DOWN PriorityJobFactor=2 MaxTime=INFINITE
EOF
start_cluster fw-p-preset 17340 --dbd --dbd-port "$(live_port 17394)" --cpus 4 --mem 16384 \
  --slurm-extra "$extra" --fairway-conf "$preset/fairway.conf"
if [ -n "$live_keep" ]; then
  trap 'stop_cluster; cp -r "$FW_LIVE_DIR/fw-p-preset/log" "$live_keep/fw-p-preset.log" 2>/dev/null; rm -rf "$FW_LIVE_DIR"' EXIT
fi
FAIRWAY=$FW_BUILD/src/cli/fairway
chmod 1777 "$JOBDIR"

say "MSU's QOS 'buyin' (the only QOS with a priority) and user nobody"
sacctmgr -i add qos buyin > /dev/null
sacctmgr -i modify qos buyin set priority=1 > /dev/null
sacctmgr -i modify user root set qos+=buyin > /dev/null
sacctmgr -i add user nobody account=root > /dev/null
assoc_ready() { scontrol show assoc_mgr flags=users users=nobody 2>/dev/null | grep -q 'UserName=nobody'; }
check "slurmctld knows user nobody" wait_until 30 assoc_ready

say "a 4-CPU, 8 GB job: the seed's numbers"
j1=$(submit -p hold -n 4 --mem=8G -t 10 --wrap true)
j2=$(submit -p hold -n 4 --mem=8G -t 10 --qos=buyin --wrap true)
j3=$(sbatch --parsable --uid=nobody -D /tmp -o /dev/null -p hold -n 1 --mem=1G -t 10 --wrap true)
j4=$(submit -p hold,hold2 -n 2 --mem=2G -t 10 --wrap true)
j5=$(submit -p hold -n 4 --mem=8G -t 10 --nice=100 --wrap true)
listed() { [ "$(sprio -h | wc -l)" -ge 6 ]; }
check "sprio lists the 5 jobs (6 lines: one per partition)" wait_until 20 listed
sprio -l | sed 's/^/    /'
# 100 per CPU + 20 per GB: 4 x 100 + 8 x 20 = 560.  PriorityWeightJobSize is
# 0 in the preset, so plain sprio has no JOBSIZE column and Fairway puts the
# size terms in SITE (fairway.conf(5), "sprio columns").
check_eq "SITE of the 4-CPU 8 GB job = 4 x 100 + 8 x 20" 560 "$(sprio_field "$j1" S)"
# Fair-share 60000 for users without recent usage (Fair Tree: root/root and
# root/nobody tie at the top rank, 1.0).
check_eq "FAIRSHARE without usage = 60000 x 1.0" 60000 "$(sprio_field "$j1" F)"
check_eq "QOS of a normal job = 0" 0 "$(sprio_field "$j1" Q)"
# nobody's association was created a moment ago, before any recalculation
# (PriorityCalcPeriod=1, a minute): its job has the same factor already.
check_eq "FAIRSHARE of a brand-new user's job = 60000 x 1.0 (tie)" 60000 "$(sprio_field "$j3" F)"
check_eq "QOS of a buy-in job = 3000 x 1.0" 3000 "$(sprio_field "$j2" Q)"
# nice 100: 100 points less; plain sprio has no NICE column, so it is in SITE
check_eq "PRIORITY of the same job with --nice=100 is 100 lower" \
  "$(( $(sprio_field "$j1" Y) - 100 ))" "$(sprio_field "$j5" Y)"
check_eq "... and its SITE is 560 - 100" 460 "$(sprio_field "$j5" S)"
age=$(sprio_field "$j1" A)
check "AGE after seconds of 30 days at 60000 is 0..2 ($age)" test "${age:-9}" -ge 0 -a "${age:-9}" -le 2
out=$("$FAIRWAY" priority "$j1")
echo "$out" | sed 's/^/    /'
check "fairway priority: CPUs term 400" grep -Eq '^ +CPUs +raw 4 +weight 100 .*value 400\.0000' <<< "$out"
check "fairway priority: MemGB term 160" grep -Eq '^ +MemGB +raw 8 +weight 20 .*value 160\.0000' <<< "$out"
check "fairway priority: Fairshare term 60000" grep -Eq '^ +Fairshare +raw 1 +weight 60000 .*value 60000\.0000' <<< "$out"
check "fairway priority states the priority sprio shows" \
  grep -q "priority $(sprio_field "$j1" Y) = " <<< "$out"

say "sprio's columns add up to PRIORITY in every view"
check "plain sprio" sprio_view_sums_ok
check "sprio -l" sprio_view_sums_ok -l
if sprio_takes_job_lists "$j1" "$j4"; then
  check "sprio -j $j1,$j4" sprio_view_sums_ok -j "$j1,$j4"
else
  say "this sprio rejects a job list (Slurm 24.11.5 bug): -j one job at a time"
  check "sprio -j $j1" sprio_view_sums_ok -j "$j1"
  check "sprio -j $j4" sprio_view_sums_ok -j "$j4"
fi
check "sprio -u nobody" sprio_view_sums_ok -u nobody
check "sprio -p hold2" sprio_view_sums_ok -p hold2
check "sprio -l -p hold" sprio_view_sums_ok -l -p hold
check "explicit format with every column" sprio_sums_ok
if sprio_takes_job_lists "$j1" "$j4"; then
  check_eq "sprio -j lists exactly the jobs asked for (j4 twice)" "$j1 $j4 $j4" \
    "$(sprio -h -j "$j1,$j4" -o %i | sort -n | xargs)"
else
  check_eq "sprio -j lists exactly the job asked for (j4 twice)" "$j1 $j4 $j4" \
    "$( (sprio -h -j "$j1" -o %i; sprio -h -j "$j4" -o %i) | sort -n | xargs)"
fi
check_eq "sprio -u nobody lists only nobody's job" "$j3" "$(sprio -h -u nobody -o %i | xargs)"
check_eq "sprio -p hold2 lists only the multi-partition job" "$j4" "$(sprio -h -p hold2 -o %i | xargs)"
# partition factors: hold 1/2 and hold2 2/2 of the highest PriorityJobFactor
# (2) with PriorityWeightPartition 1000 (cluster default kept by the preset)
check_eq "multi-partition job: PARTITION per partition" "hold 500 hold2 1000" \
  "$(sprio -h -j "$j4" -o '%r %P' | sort | xargs)"
# the schedulers set job->priority to the partition they last looked at
prio_j4=$(job_field "$j4" Priority)
check "job record priority ($prio_j4) is one of its partitions' in sprio" \
  grep -qx "$prio_j4" <(sprio -h -j "$j4" -o %Y | xargs -n1)
# default -w view: "Weights" then SITE (always 1), AGE, FAIRSHARE, PARTITION, QOS
w=$(sprio -w | awk '$1 == "Weights" {print $2, $3, $4, $5, $6}')
check_eq "sprio -w: site 1 and the preset's Age/Fairshare/Partition/QOS weights" "1 60000 60000 1000 3000" "$w"
# -n: sprio divides each weighted value by its weight (client side); the
# weighted values must come back.
norm_ok() {
  paste -d' ' <(sprio -h -j "$j2" -n -o '%f %q') <(sprio -h -j "$j2" -o '%F %Q') |
    awk '{ exit !($1 * 60000 - $3 < 1 && $3 - $1 * 60000 < 1 && $2 * 3000 == $4) }'
}
check "sprio -n: normalised x weight = weighted (FAIRSHARE, QOS)" norm_ok

say "PrivateData=jobs: the fairway command and sprio for another user"
as_nobody() { runuser -u nobody -- env SLURM_CONF="$SLURM_CONF" "$@"; }
# a copy nobody can reach (the build tree may not be)
cp "$FAIRWAY" "$JOBDIR/fairway"; chmod 755 "$JOBDIR/fairway"
own=$(as_nobody "$JOBDIR/fairway" priority "$j3" 2>&1)
check "nobody sees the full breakdown of its own job" grep -q "^Job $j3 .*user nobody" <<< "$own"
check "... with every term and the sprio line" grep -q "sprio: AGE" <<< "$own"
other=$(as_nobody "$JOBDIR/fairway" priority "$j1" 2>&1)
check_eq "nobody sees nothing of root's job" "job $j1: no such job (or not visible to you)" "$other"
check_eq "absent and hidden jobs answer alike" "job 999999: no such job (or not visible to you)" \
  "$(as_nobody "$JOBDIR/fairway" priority 999999 2>&1)"
check_eq "sprio as nobody lists only its own job" "$j3" "$(as_nobody sprio -h -o %i | xargs)"
check "root (operator) sees nobody's job" grep -q "^Job $j3 " <<< "$("$FAIRWAY" priority "$j3")"

finish
