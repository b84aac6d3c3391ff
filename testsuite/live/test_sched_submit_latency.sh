#!/bin/bash
# A job submitted in the same second as the change sched/fairway last saw
# (Slurm's change stamps have one-second resolution) starts at once, not at
# the next backfill pass (bf_interval=30 here).  Each round submits a job
# a random 0-0.5 s after the previous one ended (a job-state change in that
# second, which the agent, looking every 0.5 s, has often already seen) and
# requires it to start within 5 s.  With the plugin before the fix, 1 of
# 12 rounds waited for the backfill pass (and 2 of 6 fresh clusters missed
# a job submitted right after start), so 20 rounds catch it most runs.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fault_lib.sh"

extra=$(mktemp)
cat > "$extra" <<'EOF2'
SchedulerParameters=sched_interval=-1,defer,bf_interval=30
EOF2
start_cluster fw-flat 17590 --nodes 2 --slurm-extra "$extra"
rm -f "$extra"

say "20 rounds: submit right after the previous job ended"
slow=0; worst=0
for i in $(seq 20); do
  j=$(submit -N1 -t 1 --wrap 'true')
  t0=$(date +%s%N)
  if ! wait_until 5 bash -c "[ \"\$(squeue -h -j $j -o %T)\" != PENDING ]"; then
    slow=$((slow + 1)); echo "    job $j still pending after 5 s"
  fi
  ms=$(( ($(date +%s%N) - t0) / 1000000 )); [ $ms -gt $worst ] && worst=$ms
  wait_until 60 job_is "$j" COMPLETED || fail "job $j did not complete"
  sleep "0.$((RANDOM % 5))"
done
echo "    slowest start: $worst ms (polled every 0.5 s)"
check_eq "every job started within 5 s" 0 "$slow"
finish
