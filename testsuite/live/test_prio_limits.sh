#!/bin/bash
# priority/fairway with slurmdbd + MariaDB: the QOS usage rules and Slurm's
# usage-based limits that a priority plugin must keep working.
#   QOS UsageFactor=2   charges twice the usage (QOS UsageRaw, sshare)
#   QOS Flags=NoDecay   its usage (and usage_tres_raw) does not decay while
#                       other QOS usage and association usage do
#   GrpTRESMins         usage_tres_raw (NoDecay QOS: exactly CPU-seconds) holds jobs
#   GrpWall             grp_used_wall (decayed as Slurm does) holds jobs, on
#                       a QOS and on an association
#   GrpTRESRunMins      grp_used_tres_run_secs drained while jobs run and
#                       back to 0 after they end; waiting jobs start as
#                       running ones finish
#   PriorityUsageResetPeriod=NOW  resets fair-share and limit usage (NoDecay
#                       QOS too) at reconfigure, once: not again on an
#                       association change, again on the next reconfigure
# Expected values come from Slurm's definitions computed here from sacct's
# job records: decay factor d = 1 - 0.693/half-life per second (Slurm's limit
# usage), 2^(-t/half-life) (fair-share usage), usage = CPUs x seconds.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/prio_lib.sh"

HL_MIN=5                 # PriorityDecayHalfLife in minutes
HL=$((HL_MIN * 60))
TICK=2                   # fairway.conf RecalcPeriod (seconds)
SLACK=$((TICK + 2))      # a value read now was computed at most this long ago
RUN=32                   # seconds each job of the first round sleeps
extra="$FW_LIVE_DIR/fw-p-lim.extra"
cat > "$extra" <<EOF
PriorityWeightAge=0
PriorityDecayHalfLife=$HL_MIN
EOF
fwconf="$FW_LIVE_DIR/fw-p-lim.fairway.conf"
echo "RecalcPeriod=0:0$TICK" > "$fwconf"
# 8 nodes: sched/fairway plans by whole nodes (one job per node here)
start_cluster fw-p-lim 17600 --nodes 8 --dbd --dbd-port "$(live_port 17690)" --slurm-extra "$extra" \
  --fairway-conf "$fwconf"

# ---- helpers -----------------------------------------------------------------
# awk arithmetic checks (exit status: 0 = holds)
within_rel() { # expected actual rel-tolerance
  awk -v e="$1" -v a="$2" -v t="$3" 'BEGIN { d = e - a; if (d < 0) d = -d
    exit !(a != "" && d <= t * (e < 0 ? -e : e) + 1e-9) }'
}
between() { # lo value hi
  awk -v l="$1" -v v="$2" -v h="$3" 'BEGIN { exit !(v != "" && v >= l && v <= h) }'
}
# QOS "name raw" lines (UsageRaw, 6 decimals) from one assoc_mgr snapshot.
qos_raws() {
  scontrol -o show assoc_mgr flags=qos 2>/dev/null |
    sed -n 's/^QOS=\([^(]*\)(.*UsageRaw=\([0-9.]*\).*/\1 \2/p'
}
qos_raw_of() { awk -v q="$1" '$1 == q {print $2}' <<< "$2"; } # qos snapshot
# One field of a QOS line (one-liner): qos_line QOS | field GrpWall
qos_line() { scontrol -o show assoc_mgr flags=qos qos="$1" 2>/dev/null | grep "^QOS=$1("; }
# The account's own association line (no user), one-liner.
acct_line() {
  scontrol -o show assoc_mgr flags=assoc accounts="$1" 2>/dev/null |
    grep "Account=$1 UserName= " | head -n1
}
# used part of KEY=LIMIT(USED) or KEY=TRES=LIMIT(USED) in a line
used_of() { # line KEY (e.g. GrpWall, GrpTRESMins=cpu)
  awk -v k="$2" '{ for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) {
      s = substr($i, length(k) + 2); sub(/^[^(]*[(]/, "", s); sub(/[)].*/, "", s); print s; exit } }' <<< "$1"
}
# assoc usage_raw (UsageRaw/Norm/Efctv=R/N/E) of an account line
assoc_raw() { sed -n 's/.*UsageRaw\/Norm\/Efctv=\([0-9.]*\)\/.*/\1/p' <<< "$1"; }
reason_is() { [ "$(squeue -h -j "$1" -o %r 2>/dev/null)" = "$2" ]; }
started() { local s; s=$(job_state "$1"); [ "$s" = RUNNING ] || [ "$s" = COMPLETED ]; }
n_running() { squeue -h -t R "$@" -o %i 2>/dev/null | wc -l; }
# sacct record of a finished job: "cpus elapsed start_epoch end_epoch"
job_rec() {
  local r; r=$(sacct -n -P -X -j "$1" -o AllocCPUS,ElapsedRaw,Start,End 2>/dev/null | head -n1)
  IFS='|' read -r c e s t <<< "$r"
  echo "$c $e $(epoch "$s") $(epoch "$t")"
}
sacct_completed() { # jobid...
  local j; for j; do [ "$(sacct -n -P -X -j "$j" -o State 2>/dev/null | head -n1)" = COMPLETED ] || return 1; done
}
# Slurm's decayed limit usage at time T of a job that ran [S, E) with rate
# CPUS (units/s): integral_S^E CPUS * d^(T-s) ds, d = 1 - 0.693/HL.
slurm_decayed() { # "cpus elapsed start end" T
  awk -v r="$1" -v T="$2" -v hl="$HL" 'BEGIN { split(r, x, " "); d = 1 - 0.693 / hl; l = -log(d)
    printf "%.6f\n", x[1] * (d ^ (T - x[4]) - d ^ (T - x[3])) / l }'
}

# ---- associations and QOS ---------------------------------------------------
say "QOS uf2 (UsageFactor=2), nd (NoDecay), gw, rq; accounts pstd puf pnd pwall prun"
sacctmgr -i add qos uf2,nd,gw,rq > /dev/null
sacctmgr -i modify qos uf2 set UsageFactor=2 > /dev/null
sacctmgr -i modify qos nd set Flags=NoDecay > /dev/null
sacctmgr -i add account pstd,puf,pnd,pwall,prun parent=root > /dev/null
sacctmgr -i add user root account=pstd,puf,pnd,pwall,prun qos=normal,uf2,nd,gw,rq \
  defaultqos=normal > /dev/null
ctld_knows() {
  qos_line rq | grep -q . && qos_line uf2 | grep -q . &&
    sshare -a -n -P -o Account,User | sed 's/^ *//' | grep -qx 'prun|root'
}
check "slurmctld has the QOS and associations" wait_until 30 ctld_knows
check_eq "QOS uf2's UsageFactor" 2.000000 \
  "$(sacctmgr -n -P show qos uf2 format=UsageFactor)"
check_eq "QOS nd's flags" NoDecay "$(sacctmgr -n -P show qos nd format=Flags)"

# ---- round 1: all at once, one job per node ------------------------------------
say "round 1: pstd/normal 1 CPU, puf/uf2 1 CPU, pnd/nd 2 CPUs, 4 x pwall/gw 1 CPU, all ${RUN} s"
jA=$(submit -A pstd -q normal -n 1 -t 2 --wrap "sleep $RUN")
jB=$(submit -A puf -q uf2 -n 1 -t 2 --wrap "sleep $RUN")
jN=$(submit -A pnd -q nd -n 2 -t 2 --wrap "sleep $RUN")
jW=()
for _ in 1 2 3 4; do jW+=("$(submit -A pwall -q gw -n 1 -t 2 --wrap "sleep $RUN")"); done
all=("$jA" "$jB" "$jN" "${jW[@]}")
all_run() { [ "$(n_running)" = 7 ]; }
check "the 7 jobs run side by side" wait_until 30 all_run
# NoDecay QOS usage during the run: never decayed, so it equals CPUs x seconds
# run so far (charged up to the last tick).
sleep 10
mid=$(qos_raws); now=$(date +%s)
sN=$(epoch "$(job_field "$jN" StartTime)")
check "nd's UsageRaw while running ($(qos_raw_of nd "$mid")) = 2 CPUs x run time so far (+-tick)" \
  between "$((2 * (now - sN - SLACK)))" "$(qos_raw_of nd "$mid")" "$((2 * (now - sN)))"
check "round 1 ends" wait_until 60 queue_empty
check "slurmdbd has the 7 jobs" wait_until 30 sacct_completed "${all[@]}"
rA=$(job_rec "$jA"); rB=$(job_rec "$jB"); rN=$(job_rec "$jN")
echo "    sacct (cpus elapsed start end): A=$rA B=$rB N=$rN"
sleep "$SLACK"   # a tick after the last job end
# acct_policy_job_begin() added CPUs x time limit (x UsageFactor) to the
# running TRES-seconds; what was not drained while running goes at the end.
check_eq "no running CPU-minutes left: QOS uf2 (UsageFactor=2)" 0 \
  "$(used_of "$(qos_line uf2)" GrpTRESRunMins=cpu)"
check_eq "no running CPU-minutes left: QOS nd" 0 "$(used_of "$(qos_line nd)" GrpTRESRunMins=cpu)"
check_eq "no running CPU-minutes left: root association" 0 \
  "$(used_of "$(acct_line root)" GrpTRESRunMins=cpu)"

# ---- (1) UsageFactor ----------------------------------------------------------
say "UsageFactor=2: twice the usage of the same job in QOS normal"
s1=$(qos_raws); t1=$(date +%s)
aN1=$(assoc_raw "$(acct_line pnd)"); ta1=$(date +%s)   # for NoDecay, below
uA=$(qos_raw_of normal "$s1"); uB=$(qos_raw_of uf2 "$s1")
read -r _ eA sA _ <<< "$rA"; read -r _ eB sB _ <<< "$rB"
# same shape, same time: decay cancels; only their elapsed times may differ
expect_ratio=$(awk -v a="$eA" -v b="$eB" 'BEGIN { printf "%.4f", 2 * b / a }')
ratio=$(awk -v a="$uA" -v b="$uB" 'BEGIN { if (a > 0) printf "%.4f", b / a }')
check "QOS UsageRaw uf2/normal = $ratio, expected 2 x $eB/$eA = $expect_ratio (+-3%)" \
  within_rel "$expect_ratio" "$ratio" 0.03
shA=$(sshare_usage pstd); shB=$(sshare_usage puf)
# sshare's RawUsage is truncated to an integer: +-1 on each side
sh_ok() {
  awk -v a="$shA" -v b="$shB" -v r="$expect_ratio" 'BEGIN {
    exit !(a > 0 && b >= (a - 1) * r * 0.97 - 1 && b <= (a + 1) * r * 1.03 + 1) }'
}
check "sshare RawUsage puf ($shB) = $expect_ratio x pstd ($shA)" sh_ok
# charged exactly once, decayed as Slurm: the integral of 1 CPU x d^(T-s)
# over the job's run, T = the last tick (t1 - SLACK .. t1)
q_lo=$(slurm_decayed "$rA" "$t1"); q_hi=$(slurm_decayed "$rA" $((t1 - SLACK)))
check "QOS normal's UsageRaw $uA = Slurm's decayed CPU-seconds of its job [$q_lo, $q_hi] (+-1%)" \
  between "$(awk -v v="$q_lo" 'BEGIN{print v * 0.99}')" "$uA" "$(awk -v v="$q_hi" 'BEGIN{print v * 1.01}')"

# ---- (6) GrpTRESMins from usage_tres_raw (NoDecay: exact CPU-seconds) ----------
say "NoDecay QOS nd: usage and usage_tres_raw = CPUs x seconds, exactly"
read -r cN eN _ _ <<< "$rN"
check "nd's UsageRaw $(qos_raw_of nd "$s1") = $cN CPUs x $eN s (not decayed)" \
  within_rel "$((cN * eN))" "$(qos_raw_of nd "$s1")" 0.000001
check_eq "nd's GrpTRESMins usage in whole CPU-minutes (usage_tres_raw)" \
  "$((cN * eN / 60))" "$(used_of "$(qos_line nd)" GrpTRESMins=cpu)"
# ---- (5) GrpTRESRunMins ---------------------------------------------------------
say "GrpTRESRunMins=cpu=4 on prun: 4 jobs of 1 CPU x 2 min limit, 12 s each"
sacctmgr -i modify account prun set GrpTRESRunMins=cpu=4 > /dev/null
pr_lim() { acct_line prun | grep -q 'GrpTRESRunMins=cpu=4('; }
check "slurmctld has prun's GrpTRESRunMins" wait_until 15 pr_lim
jR=()
# (QOS rq: QOS normal's usage must stay still for the NoDecay comparison)
for _ in 1 2 3 4; do jR+=("$(submit -A prun -q rq -n 1 -t 2 --wrap "sleep 12")"); done
two_run() { [ "$(n_running -A prun)" = 2 ]; }
check "two start (2 x 2 CPU-minutes = the limit)" wait_until 20 two_run
# the next in line waits for the limit (the one behind it may show Priority)
rm_reason() { squeue -h -A prun -t PD -o %r | grep -qx AssocGrpCPURunMinutesLimit; }
check "the next one waits: AssocGrpCPURunMinutesLimit" wait_until 10 rm_reason
# A job that select_nodes() refuses for its own usage limit blocks nothing
# (Slurm's main scheduler goes on past ESLURM_ACCOUNTING_POLICY): a job of
# another account with the lowest priority starts at once in the main pass,
# not later as a backfilled job that overtook the waiting prun jobs (QOS rq:
# QOS normal's usage must stay still, see below).
jL=$(submit -A pstd -q rq --priority=1 -n 1 -t 1 --wrap "sleep 2")
low_started() { [ "$(job_field "$jL" JobState)" != PENDING ]; }
check "a lower-priority job of another account starts" wait_until 15 low_started
# ... while the first two prun jobs (12 s each) still run, not when they end
lag=$(( $(epoch "$(job_field "$jL" StartTime)") - $(epoch "$(job_field "${jR[0]}" StartTime)") ))
check "it started past the limited ones, ${lag} s after the first prun job (< 10 s)" test "$lag" -lt 10
check_eq "it was started by the main pass, not backfilled past them" Main "$(job_field "$jL" Scheduler)"
sleep 6
now=$(date +%s); line=$(acct_line prun)
rm_used=$(used_of "$line" GrpTRESRunMins=cpu)
runmins() { # T: whole CPU-minutes left of prun's running jobs at T
  local j s=0 st
  for j in $(squeue -h -A prun -t R -o %i); do
    st=$(epoch "$(job_field "$j" StartTime)"); s=$((s + st + 120 - $1))
  done
  echo $((s / 60))
}
r_lo=$(runmins "$now"); r_hi=$(runmins $((now - SLACK)))
check "prun's running minutes drain while the jobs run: $rm_used in [$r_lo, $r_hi] (4 at start)" \
  between "$r_lo" "$rm_used" "$r_hi"
check "the limit was drained below 4 ($rm_used)" test "${rm_used:-4}" -lt 4
max_run=0
all_done_watch() { # record the most running at once until all 4 ended
  local n; n=$(n_running -A prun); [ "$n" -gt "$max_run" ] && max_run=$n
  [ -z "$(squeue -h -A prun -o %i)" ]
}
check "the waiting two start as the first two finish; all 4 end" wait_until 90 all_done_watch
check "never more than 2 running ($max_run)" test "$max_run" -le 2
sleep "$SLACK"
check_eq "prun's running CPU-minutes back to 0 after the jobs ended" 0 \
  "$(used_of "$(acct_line prun)" GrpTRESRunMins=cpu)"
check_eq "root's running CPU-minutes back to 0" 0 \
  "$(used_of "$(acct_line root)" GrpTRESRunMins=cpu)"
check_eq "QOS rq's running CPU-minutes back to 0" 0 \
  "$(used_of "$(qos_line rq)" GrpTRESRunMins=cpu)"

# ---- (2) NoDecay: 30 s later ----------------------------------------------------
say "NoDecay: nd's usage stays, normal QOS and association usage decay"
left=$((t1 + 30 - $(date +%s))); [ "$left" -gt 0 ] && sleep "$left"
s2=$(qos_raws); t2=$(date +%s)
aN2=$(assoc_raw "$(acct_line pnd)"); ta2=$(date +%s)
dt=$((t2 - t1)); dta=$((ta2 - ta1))
check "nd's UsageRaw after $dt s: $(qos_raw_of nd "$s2") = $(qos_raw_of nd "$s1")" \
  within_rel "$(qos_raw_of nd "$s1")" "$(qos_raw_of nd "$s2")" 0.000001
r_norm=$(awk -v a="$(qos_raw_of normal "$s1")" -v b="$(qos_raw_of normal "$s2")" 'BEGIN { printf "%.6f", b / a }')
lo=$(awk -v t=$((dt + SLACK)) -v hl="$HL" 'BEGIN { printf "%.6f", (1 - 0.693 / hl) ^ t }')
hi=$(awk -v t=$((dt - SLACK)) -v hl="$HL" 'BEGIN { printf "%.6f", (1 - 0.693 / hl) ^ t }')
check "normal QOS usage decayed by $r_norm = (1-0.693/$HL)^($dt+-$SLACK) in [$lo, $hi]" \
  between "$lo" "$r_norm" "$hi"
r_as=$(awk -v a="$aN1" -v b="$aN2" 'BEGIN { if (a > 0) printf "%.6f", b / a }')
lo=$(awk -v t=$((dta + SLACK)) -v hl="$HL" 'BEGIN { printf "%.6f", 2 ^ (-t / hl) - 0.001 }')
hi=$(awk -v t=$((dta - SLACK)) -v hl="$HL" 'BEGIN { printf "%.6f", 2 ^ (-t / hl) + 0.001 }')
check "pnd's association usage (fair-share) still decays: x$r_as = 2^(-($dta+-$SLACK)/$HL) in [$lo, $hi]" \
  between "$lo" "$r_as" "$hi"

# ---- (6) GrpTRESMins holds jobs -------------------------------------------------
sacctmgr -i modify qos nd set GrpTRESMins=cpu=$((cN * eN / 60)) > /dev/null
nd_lim() { qos_line nd | grep -q "GrpTRESMins=cpu=$((cN * eN / 60))("; }
check "slurmctld has nd's GrpTRESMins" wait_until 15 nd_lim
jNd=$(submit -A pnd -q nd -n 1 -t 1 --wrap true)
check "nd's next job waits: QOSGrpCPUMinutesLimit" wait_until 20 reason_is "$jNd" QOSGrpCPUMinutesLimit

# ---- (4) GrpWall on a QOS and on an association --------------------------------
say "GrpWall: 4 jobs x ${RUN} s of wall time (decayed) passed 1 minute"
wall_expect() { # T -> expected used minutes of the 4 gw jobs at T
  local j s=0 T=$1
  for j in "${jW[@]}"; do s=$(awk -v a="$s" -v b="$(slurm_decayed "$(echo "$(job_rec "$j")" |
    awk '{print 1, $2, $3, $4}')" "$T")" 'BEGIN { print a + b }'); done
  awk -v s="$s" 'BEGIN { printf "%.4f\n", s / 60 }'
}
now=$(date +%s); line=$(qos_line gw)
w_used=$(used_of "$line" GrpWall)
w_hi=$(wall_expect $((now - SLACK))); w_lo=$(wall_expect "$now")
check "QOS gw's GrpWall usage $w_used min = Slurm's decayed wall time [$w_lo, $w_hi] (+-2%)" \
  between "$(awk -v v="$w_lo" 'BEGIN{print v * 0.98}')" "$w_used" "$(awk -v v="$w_hi" 'BEGIN{print v * 1.02}')"
sacctmgr -i modify qos gw set GrpWall=1 > /dev/null
gw_lim() { qos_line gw | grep -q 'GrpWall=1('; }
check "slurmctld has gw's GrpWall" wait_until 15 gw_lim
jGw=$(submit -A pstd -q gw -n 1 -t 1 --wrap true)
check "gw's next job waits: QOSGrpWallLimit" wait_until 20 reason_is "$jGw" QOSGrpWallLimit
sacctmgr -i modify account pwall set GrpWall=1 > /dev/null
pw_lim() { acct_line pwall | grep -q 'GrpWall=1('; }
check "slurmctld has pwall's GrpWall" wait_until 15 pw_lim
now=$(date +%s); a_used=$(used_of "$(acct_line pwall)" GrpWall)
w_hi=$(wall_expect $((now - SLACK))); w_lo=$(wall_expect "$now")
check "account pwall's GrpWall usage $a_used min = [$w_lo, $w_hi] (+-2%)" \
  between "$(awk -v v="$w_lo" 'BEGIN{print v * 0.98}')" "$a_used" "$(awk -v v="$w_hi" 'BEGIN{print v * 1.02}')"
jAw=$(submit -A pwall -q normal -n 1 -t 1 --wrap true)
check "pwall's next job waits: AssocGrpWallLimit" wait_until 20 reason_is "$jAw" AssocGrpWallLimit
check "nd's job still waits (NoDecay: its usage does not shrink)" reason_is "$jNd" QOSGrpCPUMinutesLimit

# ---- (3) PriorityUsageResetPeriod=NOW ---------------------------------------------
say "PriorityUsageResetPeriod=NOW + reconfigure: every usage back to 0, limits free"
before_root=$(sshare_usage root)
set_conf "$SLURM_CONF" PriorityUsageResetPeriod NOW
scontrol reconfigure
puf_zero() { [ "$(sshare_usage puf)" = 0 ]; }
check "fair-share usage of puf reset (root had $before_root)" wait_until 20 puf_zero
check_eq "QOS uf2's usage reset" 0.000000 "$(qos_raw_of uf2 "$(qos_raws)")"
check "slurmctld reports PriorityUsageResetPeriod = NOW" \
  bash -c "scontrol show config | grep -Eq '^PriorityUsageResetPeriod += NOW'"
# the jobs held by usage-based limits run now
check "nd's job (GrpTRESMins) runs after the reset" wait_until 30 started "$jNd"
check "gw's job (QOS GrpWall) runs after the reset" wait_until 30 started "$jGw"
check "pwall's job (assoc GrpWall) runs after the reset" wait_until 30 started "$jAw"
wait_until 30 queue_empty
# each of them ran about a second on one CPU
snap=$(qos_raws)
check "NoDecay QOS nd's usage reset too ($(qos_raw_of nd "$snap") < 5, was $((cN * eN)))" \
  awk -v u="$(qos_raw_of nd "$snap")" 'BEGIN { exit !(u != "" && u < 5) }'
check "gw's GrpWall usage reset ($(used_of "$(qos_line gw)" GrpWall) min < 0.1)" \
  awk -v u="$(used_of "$(qos_line gw)" GrpWall)" 'BEGIN { exit !(u != "" && u < 0.1) }'
check "pwall's GrpWall usage reset" \
  awk -v u="$(used_of "$(acct_line pwall)" GrpWall)" 'BEGIN { exit !(u != "" && u < 0.1) }'
check "root's fair-share usage reset ($(sshare_usage root) < 10)" \
  awk -v u="$(sshare_usage root)" 'BEGIN { exit !(u != "" && u < 10) }'

say "NOW resets once: not again when the association tree changes"
jP=$(submit -A puf -q normal -n 2 -t 1 --wrap "sleep 8")
check "puf's job completes" wait_until 40 job_is "$jP" COMPLETED
sleep "$SLACK"
u1=$(sshare_usage puf); q1=$(qos_raw_of normal "$(qos_raws)")
sacctmgr -i add account pextra parent=root > /dev/null
extra_seen() { sshare -a -n -P -o Account,User | sed 's/^ *//' | grep -qx 'pextra|'; }
check "slurmctld has the new account" wait_until 20 extra_seen
sleep $((2 * TICK + 1))
u2=$(sshare_usage puf); q2=$(qos_raw_of normal "$(qos_raws)")
# kept = only decayed: 2^(-10/300) and (1-0.693/300)^10 are above 0.97
check "puf's usage kept across the association change ($u1 -> $u2)" \
  awk -v a="$u1" -v b="$u2" 'BEGIN { exit !(a >= 10 && b >= a * 0.95 - 1) }'
check "QOS normal's usage kept ($q1 -> $q2)" \
  awk -v a="$q1" -v b="$q2" 'BEGIN { exit !(a > 10 && b >= a * 0.95) }'
say "... and again at the next reconfigure (Slurm re-reads the period)"
scontrol reconfigure
check "puf's usage reset by the second reconfigure" wait_until 20 puf_zero

finish
