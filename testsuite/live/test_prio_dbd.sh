#!/bin/bash
# priority/fairway with slurmdbd + MariaDB (the production setup):
# fair-share on Slurm's associations created with sacctmgr, usage charged to
# the job's association and its ancestors up to root, sshare/sprio showing
# Fairway's values (checked against the formulas computed here from sshare's
# raw shares and usage and from sacct's job records), restart survival,
# Slurm's GrpTRESMins limit fed by Fairway's usage bookkeeping, and
# reconfigure applying new weights to pending jobs at once.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/prio_lib.sh"

W_FS=10000      # PriorityWeightFairshare
W_PART=1000     # PriorityWeightPartition
extra="$FW_LIVE_DIR/fw-p-dbd.extra"
# Age off so that priorities do not move between observations; a second
# partition that is DOWN keeps jobs pending (sprio lists them).
cat > "$extra" <<EOF
PriorityWeightAge=0
PriorityWeightFairshare=$W_FS
PriorityWeightPartition=$W_PART
PriorityDecayHalfLife=7-0
PartitionName=hold Nodes=n[1-4] State=DOWN PriorityJobFactor=1 MaxTime=INFINITE
EOF
fwconf="$FW_LIVE_DIR/fw-p-dbd.fairway.conf"
echo "RecalcPeriod=0:02" > "$fwconf"
start_cluster fw-p-dbd 17300 --dbd --dbd-port "$(live_port 17390)" --slurm-extra "$extra" \
  --fairway-conf "$fwconf"
t_start=$(date +%Y-%m-%dT%H:%M:%S)

say "associations: phys (70 shares) and chem (30 shares), user root in both"
sacctmgr -i add account phys,chem parent=root > /dev/null
sacctmgr -i modify account phys set fairshare=70 > /dev/null
sacctmgr -i modify account chem set fairshare=30 > /dev/null
sacctmgr -i add user root account=phys,chem > /dev/null
check "sshare lists phys/root and chem/root" \
  wait_until 30 bash -c "sshare -a -n -P -o Account,User | sed 's/^ *//' | grep -qx 'chem|root'"

say "jobs run: phys 3 x 2 CPUs x 15 s, chem 1 x 1 CPU x 2 s"
for i in 1 2 3; do submit -A phys -n 2 -t 1 --wrap "sleep 15" > /dev/null; done
submit -A chem -n 1 -t 1 --wrap "sleep 2" > /dev/null
# usage grows while phys's jobs run (charged every RecalcPeriod)
u_mid=""
phys_running_usage() { # sets u_mid (wait_until runs it in this shell)
  local u; u=$(sshare_usage phys)
  [ "${u:-0}" -gt 0 ] && [ -n "$(squeue -h -A phys -t R -o %i)" ] && u_mid=$u
}
wait_until 30 phys_running_usage
check "phys usage visible in sshare while its jobs run (${u_mid:-none})" test -n "$u_mid"
check "queue drains" wait_until 60 queue_empty

# Independent usage: CPU-seconds from slurmdbd's job records (billing is
# CPUs without TRESBillingWeights; decay over a minute at a 7-day half-life
# is < 1e-4).
sacct_cpu_sec() { # account
  sacct -n -P -X -a -A "$1" -S "$t_start" -o AllocCPUS,ElapsedRaw,State 2>/dev/null |
    awk -F'|' '$3 == "COMPLETED" {s += $1 * $2} END {print s + 0}'
}
sacct_done() { # N: slurmdbd has N completed jobs since the test started
  [ "$(sacct -n -P -X -a -S "$t_start" -o State 2>/dev/null | grep -c COMPLETED)" = "$1" ]
}
check "slurmdbd has the 4 completed jobs" wait_until 30 sacct_done 4
exp_phys=$(sacct_cpu_sec phys); exp_chem=$(sacct_cpu_sec chem)
# sshare shows usage once the next recalculation has run
usage_settled() { [ "$(sshare_usage phys)" -ge "$((exp_phys - 1))" ] 2>/dev/null; }
wait_until 15 usage_settled
u_phys=$(sshare_usage phys); u_chem=$(sshare_usage chem); u_root=$(sshare_usage root)
u_phys_user=$(sshare_usage phys root)
usage_near() { # expected actual: |e - a| <= 1 + e/1000 (sshare truncates to an integer)
  awk -v e="$1" -v a="$2" 'BEGIN { d = e - a; if (d < 0) d = -d; exit !(a != "" && d <= 1 + e / 1000) }'
}
check "phys usage $u_phys = sacct's CPU-seconds $exp_phys" usage_near "$exp_phys" "$u_phys"
check "phys/root usage $u_phys_user = its account's" usage_near "$exp_phys" "$u_phys_user"
check "chem usage $u_chem = sacct's CPU-seconds $exp_chem" usage_near "$exp_chem" "$u_chem"
check "root usage $u_root = phys + chem ($((exp_phys + exp_chem)))" usage_near "$((exp_phys + exp_chem))" "$u_root"
check "usage grew after the mid-run sample ($u_mid -> $u_phys)" test "$u_phys" -gt "${u_mid:-0}"

say "fair-share: chem used less than its share, phys more"
jp=$(submit -A phys -p hold -n 1 -t 1 --wrap true)
jc=$(submit -A chem -p hold -n 1 -t 1 --wrap true)
has_prio() { [ -n "$(sprio_field "$1" F)" ]; }
wait_until 15 has_prio "$jp"; wait_until 15 has_prio "$jc"
fs_p=$(sprio_field "$jp" F); fs_c=$(sprio_field "$jc" F)
check "chem's job has the higher fair-share factor ($fs_c > $fs_p)" test "${fs_c:-0}" -gt "${fs_p:-0}"

# Fair Tree, computed from sshare's raw shares and raw usage: root's children
# (accounts phys, chem and the user root/root) are ordered by
# LevelFS = S/U, S = RawShares / sum of siblings' RawShares,
# U = RawUsage / root's RawUsage (no usage: infinite, users first on ties);
# each user gets rank/users, the first visited user the highest rank.  Here
# every account has one user, so each user's factor follows its account.
fairtree_expect() {
  sshare_rows | awk -F'|' -v W="$W_FS" '
    $1 == "root" && $2 == "" { uroot = $5; next }
    ($1 == "root" && $2 != "") || ($2 == "" && $1 != "root") {
      # a child of root: an account, or the user root/root
      name = ($2 == "") ? $1 : "root/" $2; isuser[name] = ($2 != "")
      sh[name] = $3; us[name] = $5; tot += $3; kids[++n] = name; next }
    $2 != "" { users++ }
    END {
      users += 0
      for (i = 1; i <= n; i++) {
        k = kids[i]; s = sh[k] / tot; u = us[k] / uroot
        lfs[k] = (u == 0) ? 1e300 : s / u
      }
      # selection sort, LevelFS descending, users before accounts on ties
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) {
        a = kids[i]; b = kids[j]
        if (lfs[b] > lfs[a] || (lfs[b] == lfs[a] && isuser[b] && !isuser[a])) { kids[i] = b; kids[j] = a }
      }
      nusers = n   # one user per child of root here
      for (i = 1; i <= n; i++) printf "%s %d\n", kids[i], int(W * (nusers - i + 1) / nusers + 0.5)
    }'
}
expect=$(fairtree_expect)
echo "    expected (Fair Tree): $(echo $expect)"
e_p=$(awk '$1=="phys"{print $2}' <<< "$expect"); e_c=$(awk '$1=="chem"{print $2}' <<< "$expect")
check_eq "sprio FAIRSHARE of phys's job (Fair Tree rank)" "$e_p" "$fs_p"
check_eq "sprio FAIRSHARE of chem's job (Fair Tree rank)" "$e_c" "$fs_c"
check_eq "sprio PARTITION = weight x 1.0" "$W_PART" "$(sprio_field "$jp" P)"
check "sprio columns as multifactor shows them (only Slurm's keys: rounded columns, truncated PRIORITY, SITE 0)" sprio_mf_ok
check_eq "job record's priority = sprio's (phys)" "$(sprio_field "$jp" Y)" "$(job_field "$jp" Priority)"

say "slurmctld restart: usage and priorities survive"
before_u="$u_phys $u_chem $u_root"
before_p="$(sprio_field "$jp" Y) $(sprio_field "$jc" Y)"
mark=$(log_mark)
check "slurmctld restarts" restart_ctld
log_has() { log_since "$mark" | grep -q "$1"; }
check "priority/fairway restored its state" wait_until 15 log_has "priority/fairway: restored"
wait_until 15 has_prio "$jc"
after_u="$(sshare_usage phys) $(sshare_usage chem) $(sshare_usage root)"
after_p="$(sprio_field "$jp" Y) $(sprio_field "$jc" Y)"
read -r b1 b2 b3 <<< "$before_u"; read -r a1 a2 a3 <<< "$after_u"
all_near() { usage_near "$b1" "$a1" && usage_near "$b2" "$a2" && usage_near "$b3" "$a3"; }
check "usage after restart ($after_u) = before ($before_u)" all_near
check_eq "priorities after restart = before" "$before_p" "$after_p"

say "GrpTRESMins: Fairway's usage feeds Slurm's limit"
# Slurm holds an association's jobs once its used TRES-minutes (usage_tres_raw,
# which the priority plugin maintains) reach GrpTRESMins.  phys used ~90
# CPU-seconds (1 whole CPU-minute), chem ~2: with GrpTRESMins=cpu=1 on both,
# phys's next job must wait and chem's may run.
sacctmgr -i modify account phys,chem set GrpTRESMins=cpu=1 > /dev/null
lim_ok() { scontrol show assoc_mgr flags=assoc accounts=chem 2>/dev/null | grep -q 'GrpTRESMins=cpu=1('; }
check "slurmctld has the limits" wait_until 15 lim_ok
assoc_used() { # account Field: used value of cpu in Field=cpu=LIMIT(USED) of the account line
  scontrol show assoc_mgr flags=assoc accounts="$1" 2>/dev/null |
    awk -v f="$2" '/UserName= /{on=1; next} /UserName=/{on=0} on && index($0, f "=cpu=") {
      s = $0; sub(".*" f "=cpu=[^(]*[(]", "", s); sub("[)].*", "", s); print s; exit }'
}
check_eq "Slurm's GrpTRESMins usage of phys in whole CPU-minutes (sacct: $exp_phys s)" \
  "$((exp_phys / 60))" "$(assoc_used phys GrpTRESMins)"
check_eq "no TRES run minutes left after phys's jobs ended (drained)" 0 "$(assoc_used phys GrpTRESRunMins)"
jlim=$(submit -A phys -n 1 -t 1 --wrap "sleep 1")
jok=$(submit -A chem -n 1 -t 1 --wrap "sleep 1")
check "chem's job (under its limit) runs" wait_until 30 job_is "$jok" COMPLETED
limit_reason() { [ "$(squeue -h -j "$jlim" -o %r)" = AssocGrpCPUMinutesLimit ]; }
wait_until 15 limit_reason
check_eq "phys's job waits for its limit" "AssocGrpCPUMinutesLimit PENDING" \
  "$(squeue -h -j "$jlim" -o '%r %T')"
scancel "$jlim"
sacctmgr -i modify account phys,chem set GrpTRESMins=cpu=-1 > /dev/null

say "reconfigure: new weights and formula apply to pending jobs at once"
# A long RecalcPeriod proves the change comes from the reconfigure, not
# from the next periodic recalculation.
echo "RecalcPeriod=10:00" > "$_cluster_dir/etc/fairway.conf"
set_conf "$SLURM_CONF" PriorityWeightFairshare 20000
set_conf "$SLURM_CONF" PriorityWeightPartition 3000
set_conf "$SLURM_CONF" PriorityFlags NO_FAIR_TREE
mark=$(log_mark)
scontrol reconfigure
new_weights() { [ "$(sprio_field "$jc" P)" = 3000 ]; }
check "sprio shows the new partition weight within 20 s" wait_until 20 new_weights
# Slurm's classic formula: for a user alone in an account under root,
# S = RawShares(account) / sum of root's children's RawShares (sshare) and
# U = usage(account) / usage(root), taken from slurmdbd's job records
# (CPU-seconds of every job completed so far; sshare's RawUsage is
# truncated to an integer, too coarse for chem's 2 CPU-seconds, and the
# decay cancels in the ratio); factor 2^(-U/S).
classic_expect() {
  local up uc; up=$(sacct_cpu_sec phys); uc=$(sacct_cpu_sec chem)
  sshare_rows | awk -F'|' -v W=20000 -v up="$up" -v uc="$uc" '
    ($1 == "root" && $2 != "") || ($2 == "" && $1 != "root") { sh[$1] = $3; tot += $3 }
    END { us["phys"] = up; us["chem"] = uc
          for (a in us) { S = sh[a] / tot; U = us[a] / (up + uc)
            printf "%s %d %.6f\n", a, int(W * 2 ^ (-U / S) + 0.5), 2 ^ (-U / S) } }'
}
check "slurmdbd has chem's fifth job" wait_until 30 sacct_done 5
expect=$(classic_expect)
echo "    expected (classic): $(echo $expect)"
within() { # expected actual tolerance
  awk -v e="$1" -v a="$2" -v t="$3" 'BEGIN { d = e - a; if (d < 0) d = -d; exit !(a != "" && d <= t) }'
}
e_p=$(awk '$1=="phys"{print $2}' <<< "$expect"); e_c=$(awk '$1=="chem"{print $2}' <<< "$expect")
f_p=$(sprio_field "$jp" F); f_c=$(sprio_field "$jc" F)
# +-2 points: usage is charged per second, sacct's elapsed is whole seconds
check "FAIRSHARE of phys's job $f_p = 20000 x 2^(-U/S) = $e_p" within "$e_p" "$f_p" 2
check "FAIRSHARE of chem's job $f_c = 20000 x 2^(-U/S) = $e_c" within "$e_c" "$f_c" 2
# sshare computes the classic FairShare column itself by loading
# priority_fairway.so (priority_p_calc_fs_factor) in the client.
sshare_fs() { sshare_rows | awk -F'|' -v a="$1" '$1==a && $2=="root" {print $7}'; }
check "sshare's FairShare of phys/root ($(sshare_fs phys)) = 2^(-U/S)" \
  within "$(awk '$1=="phys"{print $3}' <<< "$expect")" "$(sshare_fs phys)" 0.0001
check "sprio columns as multifactor shows them after reconfigure" sprio_mf_ok
check_eq "job record follows (chem)" "$(sprio_field "$jc" Y)" "$(job_field "$jc" Priority)"
check "plugin logged the reload" log_has "priority/fairway: configuration reloaded"

finish
