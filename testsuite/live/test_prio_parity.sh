#!/bin/bash
# Drop-in parity with priority/multifactor (issue 18, item 5): with only
# Slurm's Priority* keys in slurm.conf and no fairway.conf, priority/fairway
# must give the numbers priority/multifactor gives.  The same script runs
# twice on the same cluster shape (4 x 2 CPUs, slurmdbd + MariaDB): first
# with Slurm's own plugins (priority/multifactor + sched/backfill), then with
# Fairway's, and the outputs are compared column by column and printed side
# by side:
#   - squeue's job priority (multifactor truncates the weighted sum);
#   - sprio with every column (explicit format), plain sprio, sprio -l,
#     sprio -n and sprio -w, verbatim (multifactor's sprio prints each
#     column rounded, TRES as cpu=62 for 62.5, SITE only the site factor);
#   - sshare: Account, User, RawShares, NormShares and FairShare exactly;
#     RawUsage, NormUsage, EffectvUsage and LevelFS come from how long the
#     usage jobs ran in each run (whole seconds, decay), so those agree
#     within 10% + 4 CPU-seconds.
# Factors with fractional weighted values so that rounding and truncation
# differ: Fair Tree ranks (thirds), QOS priorities 10/30 (1/3), partition
# PriorityJobFactor 2/3 (2/3), job size 0.1875 x 1000 = 187.5, TRES
# cpu 125 per CPU share (62.5 = 2 CPUs of 4), mem, and a job with nice.
# Age saturates (PriorityMaxAge=1 minute) so that both runs observe the same
# AGE whatever their timing.  The two runs are two clusters of the same shape
# (own ports, own slurmdbd and MariaDB) running at the same time: each one
# waits about three minutes for AGE to saturate and for one more
# recalculation, and nothing they compare depends on the wall clock.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/prio_lib.sh"

W_AGE=1000 W_FS=10000 W_JS=1000 W_PART=1000 W_QOS=1000
out="$FW_LIVE_DIR/prio-parity"
rm -rf "$out"; mkdir -p "$out"
extra="$out/slurm.extra"
# Jobs stay pending in the DOWN partitions hold1 (4 nodes) and hold2 (2
# nodes, so its TRES totals differ); batch (UP) runs the usage jobs.
cat > "$extra" <<EOF
PriorityWeightAge=$W_AGE
PriorityMaxAge=1
PriorityWeightFairshare=$W_FS
PriorityWeightJobSize=$W_JS
PriorityWeightPartition=$W_PART
PriorityWeightQOS=$W_QOS
PriorityWeightTRES=CPU=125,Mem=50
PriorityCalcPeriod=1
PriorityFlags=ACCRUE_ALWAYS
PartitionName=hold1 Nodes=n[1-4] State=DOWN PriorityJobFactor=2 MaxTime=INFINITE
PartitionName=hold2 Nodes=n[1-2] State=DOWN PriorityJobFactor=3 MaxTime=INFINITE
EOF

# The jobs, by name (job ids are the same in both runs, names make the
# comparison independent of that).
pending_jobs() {
  submit -J p1 -A a1 -q normal -p hold1 -n 1 --mem 100 -t 5 --wrap true
  submit -J p2 -A a2 -q high -p hold2 -n 2 --mem 250 -t 5 --wrap true
  submit -J p3 -A a3 -q low -p hold1 -n 2 --mem 300 -t 5 --wrap true
  submit -J p4 -A a1 -q high -p hold2 -n 1 --mem 100 -t 5 --nice=7 --wrap true
  submit -J p5 -A a2 -q low -p hold1,hold2 -n 1 --mem 200 -t 5 --wrap true
  submit -J p6 -A a3 -q normal -p hold2 -N 2 -n 2 --mem 100 -t 5 --wrap true
}

sprio_all() { sprio -h -o '%.8i %.8r %.12Y %.8S %.10A %.10B %.10F %.10J %.10P %.10Q %.6N %T' 2>/dev/null; }
ages_saturated() { # every pending job line shows AGE = the weight
  sprio_all | awk -v w="$W_AGE" '{ n++; if ($5 != w) bad = 1 } END { exit (bad || n < 7) }'
}
usage_charged() { # a1 and a2 show usage in sshare
  [ "$(sshare_usage a1)" -gt 0 ] 2>/dev/null && [ "$(sshare_usage a2)" -gt 0 ] 2>/dev/null
}

# One side: start the cluster, create the associations, run the usage jobs,
# submit the pending jobs, wait until every factor has settled, save the
# outputs in $out/$1.*.
run_side() { # label port dbd-port [cluster-start options]
  local label=$1 port=$2 dbdport=$3; shift 3
  say "=== $label: $*"
  start_cluster "fw-p-parity-$label" "$port" --dbd --dbd-port "$(live_port "$dbdport")" \
    --slurm-extra "$extra" "$@"
  sacctmgr -i add qos high,low > /dev/null
  sacctmgr -i modify qos high set priority=30 > /dev/null
  sacctmgr -i modify qos low set priority=10 > /dev/null
  sacctmgr -i add account a1,a2,a3 parent=root > /dev/null
  sacctmgr -i modify account a1 set fairshare=50 > /dev/null
  sacctmgr -i modify account a2 set fairshare=30 > /dev/null
  sacctmgr -i modify account a3 set fairshare=20 > /dev/null
  sacctmgr -i add user root account=a1,a2,a3 > /dev/null
  sacctmgr -i modify user root set qos=normal,high,low > /dev/null
  check "$label: sshare lists a3/root" \
    wait_until 30 bash -c "sshare -a -n -P -o Account,User | sed 's/^ *//' | grep -qx 'a3|root'"
  # usage: a1 2 x 2 CPUs x 8 s, a2 1 CPU x 8 s, a3 none (a2's job as long
  # as a1's, so that a second more or less of run time under load moves
  # a2's share of the usage by less than the 10% allowed below)
  submit -J u1 -A a1 -n 2 -t 1 --wrap "sleep 8" > /dev/null
  submit -J u2 -A a1 -n 2 -t 1 --wrap "sleep 8" > /dev/null
  submit -J u3 -A a2 -n 1 -t 1 --wrap "sleep 8" > /dev/null
  check "$label: usage jobs run and end" wait_until 90 queue_empty
  pending_jobs > /dev/null
  check "$label: usage charged (sshare)" wait_until 100 usage_charged
  check "$label: AGE saturated on every sprio line" wait_until 150 ages_saturated
  # one more recalculation so that every factor uses the charged usage
  sleep 65
  squeue -h -t PD -o '%j %Q' | sort > "$out/$label.squeue"
  local map; map=$(squeue -h -o '%i %j')
  name_of() { awk -v m="$map" 'BEGIN { n = split(m, a, "\n"); for (i = 1; i <= n; i++) { split(a[i], f, " "); id[f[1]] = f[2] } }
                               { $1 = id[$1]; print }'; }
  sprio_all | name_of | sort > "$out/$label.sprio"
  sprio 2>/dev/null > "$out/$label.sprio-plain"
  sprio -l 2>/dev/null > "$out/$label.sprio-l"
  sprio -n 2>/dev/null > "$out/$label.sprio-n"
  sprio -w 2>/dev/null > "$out/$label.sprio-w"
  sshare -a -n -P -o Account,User,RawShares,NormShares,RawUsage,NormUsage,EffectvUsage,FairShare,LevelFS \
    2>/dev/null | sed 's/^ *//' > "$out/$label.sshare"
  stop_cluster
}

# Both sides at once, each in a subshell (its own cluster, SLURM_CONF and
# exit trap) with its output kept apart and printed after both ended; their
# checks are counted here.
side_bg() { # label port dbd-port [cluster-start options]
  ( run_side "$@"; exit 0 ) > "$out/$1.log" 2>&1
}
side_bg multifactor 17600 17690 --no-fairway & mf=$!
side_bg fairway 17610 17695 & fw=$!
wait "$mf"; mf_rc=$?
wait "$fw"; fw_rc=$?
for label in multifactor fairway; do
  cat "$out/$label.log"
  _checks=$((_checks + $(grep -c '^  \(ok\|FAIL\): ' "$out/$label.log")))
  _fails=$((_fails + $(grep -c '^  FAIL: ' "$out/$label.log")))
done
check_eq "multifactor side ran to its end (exit status)" 0 "$mf_rc"
check_eq "fairway side ran to its end (exit status)" 0 "$fw_rc"

side_by_side() { # file
  echo "    --- $1: priority/multifactor | priority/fairway"
  paste -d'#' "$out/multifactor.$1" "$out/fairway.$1" |
    awk -F'#' '{ printf "    %-70s | %s%s\n", $1, $2, ($1 == $2 ? "" : "   <- differs") }'
}

for f in squeue sprio sprio-plain sprio-l sprio-n sprio-w; do
  side_by_side "$f"
  check "$f: identical under both plugins ($(wc -l < "$out/fairway.$f") lines)" \
    cmp -s "$out/multifactor.$f" "$out/fairway.$f"
done
check "sprio lists every pending job (7 lines: p5 in two partitions)" \
  test "$(wc -l < "$out/fairway.sprio")" = 7

# Per column: the sprio columns by name, so that a failure says which.
cols=(JOBID PARTITION PRIORITY SITE AGE ASSOC FAIRSHARE JOBSIZE PARTITION QOS NICE TRES)
for i in $(seq 3 12); do
  a=$(awk -v i="$i" '{print $1 "/" $2 "=" $i}' "$out/multifactor.sprio" | tr '\n' ' ')
  b=$(awk -v i="$i" '{print $1 "/" $2 "=" $i}' "$out/fairway.sprio" | tr '\n' ' ')
  check_eq "sprio ${cols[$((i - 1))]} column" "$a" "$b"
done
check "no SITE value under Fairway (no site factor configured)" \
  awk '$4 != 0 { exit 1 }' "$out/fairway.sprio"

side_by_side sshare
# sshare, column by column: exact where the value does not depend on how
# long the usage jobs ran, within tolerance where it does.
sshare_cmp() {
  paste -d'|' "$out/multifactor.sshare" "$out/fairway.sshare" | awk -F'|' '
    function near(a, b, abs_tol) { d = a - b; if (d < 0) d = -d; m = (a > b ? a : b)
      return d <= abs_tol + 0.10 * m }
    NF != 18 { print "    column count " NF; bad = 1; next }
    { for (i = 1; i <= 4; i++) if ($i != $(i + 9)) { print "    col " i ": " $i " vs " $(i + 9); bad = 1 }
      if ($8 != $17) { print "    FairShare of " $1 "/" $2 ": " $8 " vs " $17; bad = 1 }
      if (!near($5, $14, 4)) { print "    RawUsage of " $1 "/" $2 ": " $5 " vs " $14; bad = 1 }
      for (i = 6; i <= 7; i++) if (!near($i, $(i + 9), 0.01)) { print "    col " i " of " $1 "/" $2 ": " $i " vs " $(i + 9); bad = 1 }
      if (($9 == "inf") != ($18 == "inf") || ($9 != "inf" && !near($9, $18, 0.01))) { print "    LevelFS of " $1 "/" $2 ": " $9 " vs " $18; bad = 1 }
      n++ }
    END { exit (bad || n < 5) }'
}
check "sshare: same rows; shares and FairShare exact, usage within tolerance" sshare_cmp
finish
