#!/bin/bash
# priority/fairway without slurmdbd: fair-share from Fairway's own usage
# ledger (accounts and users from fairway.conf), checked against the classic
# formula computed here from the jobs' own CPU counts and run times;
# restart survival; a corrupt state file is kept aside with one clear log
# line and the plugin starts clean.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/prio_lib.sh"

W_FS=10000
extra="$FW_LIVE_DIR/fw-p-ledger.extra"
cat > "$extra" <<EOF
PriorityWeightAge=0
PriorityWeightFairshare=$W_FS
PriorityWeightPartition=1000
PriorityFlags=NO_FAIR_TREE
PartitionName=hold Nodes=n[1-4] State=DOWN PriorityJobFactor=1 MaxTime=INFINITE
EOF
fwconf="$FW_LIVE_DIR/fw-p-ledger.fairway.conf"
cat > "$fwconf" <<EOF
RecalcPeriod=0:02
Account=phys Shares=70
Account=chem Shares=30
User=root Account=phys,chem
EOF
start_cluster fw-p-ledger 17320 --slurm-extra "$extra" --fairway-conf "$fwconf"
FAIRWAY=$FW_BUILD/src/cli/fairway
state="$_cluster_dir/state/fairway_priority_state"

say "jobs run: phys 2 x 2 CPUs x 8 s, chem 1 x 1 CPU x 2 s"
ran=()
for i in 1 2; do ran+=("$(submit -A phys -n 2 -t 1 --wrap "sleep 8")"); done
ran+=("$(submit -A chem -n 1 -t 1 --wrap "sleep 2")")
check "queue drains" wait_until 60 queue_empty
jp=$(submit -A phys -p hold -n 1 -t 1 --wrap true)
jc=$(submit -A chem -p hold -n 1 -t 1 --wrap true)

# Independent usage: CPUs x run time of each finished job, from slurmctld's
# job records (no slurmdbd here).
runsec() { # jobid -> seconds of RunTime=[D-]HH:MM:SS
  job_field "$1" RunTime | awk -F'[-:]' '{ n = NF; s = $n + 60 * $(n-1) + 3600 * $(n-2); if (n == 4) s += 86400 * $1; print s }'
}
used_by() { # account
  local s=0 j
  for j in "${ran[@]}"; do
    [ "$(job_field "$j" Account)" = "$1" ] && s=$((s + $(job_field "$j" NumCPUs) * $(runsec "$j")))
  done
  echo "$s"
}
up=$(used_by phys); uc=$(used_by chem)
# Classic: S = 70/100, 30/100; U = usage / (phys + chem); 2^(-U/S).
expect=$(awk -v up="$up" -v uc="$uc" -v W="$W_FS" 'BEGIN {
  printf "%d %d\n", int(W * 2 ^ (-(up / (up + uc)) / 0.7) + 0.5), int(W * 2 ^ (-(uc / (up + uc)) / 0.3) + 0.5) }')
read -r e_p e_c <<< "$expect"
echo "    usage phys $up, chem $uc CPU-seconds; expected FAIRSHARE phys $e_p, chem $e_c"
within() { # expected actual tolerance
  awk -v e="$1" -v a="$2" -v t="$3" 'BEGIN { d = e - a; if (d < 0) d = -d; exit !(a != "" && d <= t) }'
}
# The ledger has the jobs' whole usage once a recalculation ran after they
# ended; the pending jobs' priorities follow at that or the next one.
ledger_usage() { "$FAIRWAY" priority "$1" | sed -n 's/.*  usage \([0-9]*\) .*/\1/p'; }
ledger_settled() { within "$up" "$(ledger_usage "$jp")" 1 && within "$uc" "$(ledger_usage "$jc")" 1; }
check "the ledger has the jobs' usage" wait_until 20 ledger_settled
fs_settled() { within "$e_p" "$(sprio_field "$jp" F)" 2 && within "$e_c" "$(sprio_field "$jc" F)" 2; }
wait_until 10 fs_settled
f_p=$(sprio_field "$jp" F); f_c=$(sprio_field "$jc" F)
check "chem (less usage) gets the higher fair-share factor ($f_c > $f_p)" test "${f_c:-0}" -gt "${f_p:-0}"
check "FAIRSHARE of phys's job $f_p = $W_FS x 2^(-U/S) = $e_p (+-2)" within "$e_p" "$f_p" 2
check "FAIRSHARE of chem's job $f_c = $W_FS x 2^(-U/S) = $e_c (+-2)" within "$e_c" "$f_c" 2
check "sprio columns as multifactor shows them (only Slurm's keys: rounded columns, truncated PRIORITY, SITE 0)" sprio_mf_ok
# The fairway command shows the ledger's usage (sshare has nothing without
# slurmdbd).
lu_p=$(ledger_usage "$jp"); lu_c=$(ledger_usage "$jc")
check "fairway priority: phys's ledger usage $lu_p = $up" within "$up" "$lu_p" 1
check "fairway priority: chem's ledger usage $lu_c = $uc" within "$uc" "$lu_c" 1

say "slurmctld restart: the ledger survives"
before="$f_p $f_c $(sprio_field "$jp" Y) $(sprio_field "$jc" Y)"
mark=$(log_mark)
check "slurmctld restarts" restart_ctld
log_has() { log_since "$mark" | grep -q "$1"; }
check "priority/fairway restored its state" wait_until 15 log_has "priority/fairway: restored"
has_fs() { [ -n "$(sprio_field "$jc" F)" ]; }
wait_until 15 has_fs
after="$(sprio_field "$jp" F) $(sprio_field "$jc" F) $(sprio_field "$jp" Y) $(sprio_field "$jc" Y)"
check_eq "FAIRSHARE and PRIORITY after restart = before" "$before" "$after"
check "phys's ledger usage after restart = before" within "$lu_p" "$(ledger_usage "$jp")" 1

say "a corrupt state file is kept aside; the plugin starts with no usage"
check "slurmctld stops" ctld_stop
check "the plugin saved its state file" test -s "$state"
printf 'fairway-priority-state 1\nlast_tick 12\n--users--\nphys root\n\n--fairshare--\nnot a fair-share section\n' > "$state"
mark=$(log_mark)
check "slurmctld starts with a corrupt state file" ctld_up
check "one error line names the file, says why, where it was kept" \
  wait_until 15 log_has "error: priority/fairway: state file $state is unusable (.*); kept aside as $state.corrupt-[0-9]*; starting with no usage"
check_eq "exactly one such line" 1 "$(log_since "$mark" | grep -c 'priority/fairway: state file .* is unusable')"
check "the corrupt file was kept aside" bash -c "ls $state.corrupt-* >/dev/null"
check "the corrupt file is no longer the state file" bash -c "! grep -q 'not a fair-share section' $state 2>/dev/null"
# No usage: U = 0, 2^0 = 1, both accounts get the full weight.
clean() { [ "$(sprio_field "$jp" F)" = "$W_FS" ] && [ "$(sprio_field "$jc" F)" = "$W_FS" ]; }
check "both accounts' jobs start again from FAIRSHARE $W_FS (no usage)" wait_until 15 clean
check "slurmctld keeps running" ctld_answers
j=$(submit -A phys -n 1 -t 1 --wrap "sleep 1")
check "jobs still run" wait_until 30 job_is "$j" COMPLETED
check "a fresh state file is written" wait_until 15 bash -c "head -1 $state 2>/dev/null | grep -q fairway-priority-state"

finish
