#!/bin/bash
# Typed GPUs and a count-only GRES in sched/fairway's plan (issue 14, the
# part that whole-node planning can already do right): n1-n2 have
# gpu:a100:2, n3 gpu:v100:2, n2-n4 100 "tmpdisk" (no device file).
#  - a job asking for gpu:a100:1 waits for an a100 while the v100 node is
#    free, and is planned for the a100 job's end on n1/n2 (by hand: its
#    start + its 1-minute limit);
#  - gpu:v100:1 starts at once on n3; tmpdisk:50 starts on a node that has
#    tmpdisk; tmpdisk:150 never fits: Slurm refuses it at submission, or
#    Fairway leaves it unplanned with a reason that says why.
# Before this change the planner counted GPUs only: the a100 job was
# planned (and started) on n3's v100s, and tmpdisk was not planned at all.
source "$(dirname "$0")/lib.sh"

start_cluster fw-gres 17700 --sched-params "bf_interval=1,bf_resolution=1,bf_window=60" \
  --gres 1-2:gpu:a100:2 --gres 3:gpu:v100:2 --gres 2-4:tmpdisk:100
for n in n1 n2 n3 n4; do echo "    $n: $(scontrol show node $n | tr ' ' '\n' | sed -n 's/^Gres=//p')"; done

say "a100 jobs wait for a100s while a v100 is free"
a=$(submit -N 2 --gres=gpu:a100:2 -t 1 --wrap "sleep 20")
check "the 2-node a100 job starts" wait_until 15 job_is "$a" RUNNING
check_eq "... on n1-n2" "n[1-2]" "$(job_field "$a" NodeList)"
b=$(submit --gres=gpu:a100:1 -t 1 --wrap "sleep 1")
sleep 4
check_eq "a gpu:a100:1 job waits (n3 has only v100s)" PENDING "$(job_state "$b")"
aend=$(( $(epoch "$(job_field "$a" StartTime)") + 60 ))
check "... planned at the a100 job's limit" start_is "$b" "$aend" 3
sn=$(sched_nodes "$b"); echo "    SchedNodeList=$sn"
check "... on an a100 node" bash -c "[ '$sn' = n1 ] || [ '$sn' = n2 ]"
c=$(submit --gres=gpu:v100:1 -t 1 --wrap "sleep 20")
check "a gpu:v100:1 job starts at once" wait_until 10 job_is "$c" RUNNING
check_eq "... on n3" n3 "$(job_field "$c" NodeList)"

say "a count-only GRES"
d=$(submit --gres=tmpdisk:50 -t 1 --wrap "sleep 1")
check "a tmpdisk:50 job runs" wait_until 15 job_is "$d" COMPLETED
dn=$(job_field "$d" NodeList); echo "    ran on $dn"
check "... on a node with tmpdisk (n2-n4)" bash -c "[[ '$dn' =~ ^n[234]$ ]]"
out=$(sbatch --parsable -D "$JOBDIR" --gres=tmpdisk:150 -t 1 --wrap "true" 2>&1); rc=$?
if [ "$rc" != 0 ]; then
  echo "    Slurm refuses tmpdisk:150 at submission: $out"
  pass "a request no node can hold is refused (by slurmctld)"
else
  e=${out%%;*}; sleep 3
  r=$(job_field "$e" Reason); echo "    tmpdisk:150: Reason=$r"
  check_eq "a request no node can hold is not started" PENDING "$(job_state "$e")"
  check "... and is not planned" start_is "$e" none
  scancel "$e"
fi
scancel "$a" "$c" 2>/dev/null
check "the a100 job then starts" wait_until 30 job_is "$b" COMPLETED
bn=$(job_field "$b" NodeList)
check "... on an a100 node" bash -c "[ '$bn' = n1 ] || [ '$bn' = n2 ]"
finish
