#!/bin/bash
# Bad configuration of priority/fairway on a live slurmctld: a bad
# fairway.conf line or a bad Priority* value in slurm.conf is reported in
# one log line naming file, line, key and value, and slurmctld refuses to
# start (a clean fatal exit, no crash) - also for errors of the cross-checks
# after all input, which name the line that set the key; at reconfigure the previous
# configuration stays in effect.  sched/backfill is the scheduler here so
# that priority/fairway is the only reader of fairway.conf.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/prio_lib.sh"

extra="$FW_LIVE_DIR/fw-p-config.extra"
cat > "$extra" <<EOF
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=5
PriorityWeightFairshare=1000
PartitionName=hold Nodes=n[1-4] State=DOWN MaxTime=INFINITE
EOF
fwconf="$FW_LIVE_DIR/fw-p-config.fairway.conf"
printf '# site factors\nPriorityWeightCPUs=100\nPriorityWeightMemGB=20\n' > "$fwconf"
start_cluster fw-p-config 17360 --mem 2048 --slurm-extra "$extra" --fairway-conf "$fwconf"
etc="$_cluster_dir/etc"
good_slurm=$(cat "$SLURM_CONF"); good_fw=$(cat "$etc/fairway.conf")

# expect_refusal DESCRIPTION REGEX: start slurmctld with the current files;
# it must exit within 30 s, log exactly one line matching REGEX (an error
# line of priority/fairway) and end with Slurm's fatal, not a crash.
expect_refusal() {
  local what=$1 re=$2 p
  mark=$(log_mark)
  ctld_start
  p=$(ctld_pid)
  if ! wait_until 30 not_running "$p"; then
    fail "$what: slurmctld still running after 30 s"; ctld_stop; return
  fi
  local lines; lines=$(log_since "$mark")
  # Slurm retries a plugin whose init() failed once through its plugin rack,
  # so init() runs (and logs) at most twice; each run logs one line.
  local n; n=$(grep -cE "$re" <<< "$lines")
  if [ "$n" -ge 1 ] && [ "$n" -le 2 ]; then pass "$what: logged $(grep -E "$re" <<< "$lines" | head -1 | sed 's/^\[[^]]*\] //')"
  else fail "$what: expected the line /$re/ once, found $n:"; grep priority/fairway <<< "$lines" | head -5; fi
  # (a failed init() leaves no thread behind: slurmctld exited)
  check "$what: no other error line of priority/fairway" \
    test "$(grep 'error: priority/fairway:' <<< "$lines" | grep -cvE "$re")" = 0
  check "$what: slurmctld refused with Slurm's fatal" grep -q 'fatal: failed to initialize priority plugin' <<< "$lines"
  check "$what: no crash" bash -c "! grep -qiE 'segfault|segmentation|core dumped|assert' <<< \"\$1\"" _ "$lines"
}
restore() { echo "$good_slurm" > "$SLURM_CONF"; echo "$good_fw" > "$etc/fairway.conf"; }

say "stop the running controller; try bad files one by one"
check "slurmctld stops" ctld_stop

printf '# site factors\nPriorityWeightCPUs=100\nPriorityWeightMemGB=lots\n' > "$etc/fairway.conf"
expect_refusal "fairway.conf: bad value" \
  "error: priority/fairway: $etc/fairway.conf:3: PriorityWeightMemGB=lots: .*; refusing to start"

printf '# site factors\nPriorityWeightCPUs=100\nPriorityWeightMemGB=20\nPriorityWeightFoo=1\n' > "$etc/fairway.conf"
expect_refusal "fairway.conf: unknown key" \
  "error: priority/fairway: $etc/fairway.conf:4: PriorityWeightFoo=1: .*unknown.*; refusing to start"

printf 'PriorityWeightCPUs=100\nPriorityWeightAge=5\n' > "$etc/fairway.conf"
expect_refusal "fairway.conf: a slurm.conf key" \
  "error: priority/fairway: $etc/fairway.conf:2: PriorityWeightAge=5: .*slurm.conf.*; refusing to start"

restore
set_conf "$SLURM_CONF" PriorityWeightTRES "CPU=many"
line=$(grep -n '^PriorityWeightTRES=' "$SLURM_CONF" | cut -d: -f1)
expect_refusal "slurm.conf: bad PriorityWeightTRES" \
  "error: priority/fairway: $SLURM_CONF:$line: PriorityWeightTRES=CPU=many: .*; refusing to start"

restore
set_conf "$SLURM_CONF" PriorityWeightTRES "CPU=1,GRES/nosuch=5"
line=$(grep -n '^PriorityWeightTRES=' "$SLURM_CONF" | cut -d: -f1)
expect_refusal "slurm.conf: PriorityWeightTRES names an unknown TRES" \
  "error: priority/fairway: $SLURM_CONF:$line: PriorityWeightTRES=.*nosuch.*; refusing to start"

# Cross-checks run after all input; their error names the line that set
# the key (found by fuzzing: it named no line, and fairway.conf even for
# slurm.conf keys).
printf '# no slurmdbd: the tree\nAccount=phys\nUser=alice Account=phys,chem\n' > "$etc/fairway.conf"
expect_refusal "fairway.conf: a user under an undefined account" \
  "error: priority/fairway: $etc/fairway.conf:3: Account=chem: .*not defined.*; refusing to start"

restore
set_conf "$SLURM_CONF" SchedulerParameters "bf_interval=5,bf_max_job_user=5,bf_max_job_assoc=3"
line=$(grep -n '^SchedulerParameters=' "$SLURM_CONF" | cut -d: -f1)
expect_refusal "slurm.conf: two SchedulerParameters that exclude each other (a cross-check)" \
  "error: priority/fairway: $SLURM_CONF:$line: bf_max_job_user=5: .*bf_max_job_assoc.*; refusing to start"

say "good files again: slurmctld starts"
restore
check "slurmctld starts" ctld_up
check "priority/fairway loaded" wait_until 10 bash -c "grep -q 'priority/fairway loaded' $_cluster_dir/log/slurmctld.log"
j=$(submit -p hold -n 4 -t 1 --mem=1G --wrap true)
has_site() { [ -n "$(sprio_field "$j" S)" ]; }
wait_until 10 has_site
# 4 CPUs x 100 + 1 GB x 20 (no PriorityWeightJobSize: in SITE)
check_eq "fairway.conf weights apply: SITE = 4 x 100 + 1 x 20" 420 "$(sprio_field "$j" S)"

say "reconfigure with a bad fairway.conf: the previous configuration stays"
printf 'PriorityWeightCPUs=oops\n' > "$etc/fairway.conf"
mark=$(log_mark)
scontrol reconfigure
log_has() { log_since "$mark" | grep -q "$1"; }
check "one line: file:line: key=value, reconfigure rejected" wait_until 15 log_has \
  "error: priority/fairway: $etc/fairway.conf:1: PriorityWeightCPUs=oops: .*; reconfigure rejected, the previous configuration stays in effect"
check "slurmctld still answers" ctld_answers
check_eq "the old weights still apply (SITE)" 420 "$(sprio_field "$j" S)"
restore

finish
