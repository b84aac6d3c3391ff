#!/bin/bash
# Island placement from topology.conf (issue 15) on every Slurm release:
# sched/fairway reads the file itself (Slurm's switch table is private to
# topology/tree from 24.05), so this passes on 22.05 and on 24.11 alike.
#
# Two leaf switches whose nodes interleave, s1 = n1,n3 and s2 = n2,n4 (so
# "the lowest free nodes" and "one island" differ), and a name that is not
# a node (Slurm warns and ignores it; so does Fairway).  fairway.conf(5),
# Islands: with TopologyPlacement=prefer a job is placed inside one island
# whenever one can hold it, even if that means a later start (it is split
# only when no island can ever hold it, or to start now); with strict, never
# split.  A 2-node job:
#  prefer - all four nodes busy (n1-n3 until +5 min, n4 until +10 min): it
#    is planned on s1 (n[1,3], free first) at the end of n3's job; then
#    n1, n2, n3 freed at once: it starts on n[1,3], not on n[1-2];
#  strict (reconfigure) - the same nodes busy, then n1 and n2 freed (one
#    per island): it waits; n3 freed: it starts on n[1,3];
#  then a topology.conf with an Include line (Slurm follows it, Fairway
#    does not): one error line naming file, line, key and value, no
#    islands, slurmctld goes on scheduling.
# Without islands (before this change on 24.11; checked on 22.05 by
# disabling the reading) the job is planned on n[1-2] and, under strict,
# starts there at once when n1 and n2 are free.  The prefer start on
# n[1,3] alone does not tell: Slurm's own topology/tree picks n[1,3] too
# inside the nodes Fairway allows.
source "$(dirname "$0")/lib.sh"

topo="$FW_LIVE_DIR/islands-topology.conf"
cat > "$topo" <<'EOF'
# two leaf switches, nodes interleaved; ghost1 is no node of slurm.conf
SwitchName=s1 Nodes=n[1,3]
SwitchName=s2 Nodes=n[2,4],ghost1
SwitchName=top Switches=s[1-2]
EOF
printf 'TopologyPlacement=prefer\n' > "$FW_LIVE_DIR/islands-fairway.conf"
start_cluster fw-islands 17750 --topology "$topo" \
  --fairway-conf "$FW_LIVE_DIR/islands-fairway.conf" --sched-params "bf_interval=1,bf_resolution=1,bf_window=60"
conf_dir=$(dirname "$SLURM_CONF")

say "topology.conf read from beside slurm.conf, its warning located"
check "islands logged (2 leaf switches, no node outside)" wait_until 10 \
  grep -q "sched/fairway: islands from $conf_dir/topology.conf: 2 leaf switches (2 with nodes), 0 nodes under none" \
  "$_cluster_dir/log/slurmctld.log"
line=$(grep "sched/fairway: warning: $conf_dir/topology.conf:3: Nodes=ghost1:" "$_cluster_dir/log/slurmctld.log")
echo "    $line"
check "the unknown node is one warning line naming file, line, key, value" [ -n "$line" ]
check "no topology error from sched/fairway" bash -c "! grep -q 'sched/fairway: .*no islands' '$_cluster_dir/log/slurmctld.log'"

# fill: four 1-node jobs, n1-n3 for 5 min, n4 for 10 min (ids on stdout)
fill() {
  local ids="" id
  for n in 1 2 3 4; do
    id=$(submit -w n$n -c 2 -t $((n == 4 ? 10 : 5)) --wrap "sleep 600")
    ids="$ids $id"
  done
  echo $ids
}

say "prefer: all nodes busy, the 2-node job is planned inside one island"
read -r a b c d <<< "$(fill)"
for j in $a $b $c $d; do
  check "filler $j runs" wait_until 15 job_is "$j" RUNNING
done
j=$(submit -N 2 -c 2 -t 1 --wrap "sleep 3")
sleep 4
check_eq "the 2-node job waits" PENDING "$(job_state "$j")"
cend=$(( $(epoch "$(job_field "$c" StartTime)") + 300 ))
check_eq "... planned on island s1" "n[1,3]" "$(sched_nodes "$j")"
check "... at the end of n3's job (its start + 5 min)" start_is "$j" "$cend" 3

say "prefer: n1, n2, n3 free: the job starts inside island s1"
scancel "$a" "$b" "$c"
check "the 2-node job starts" wait_until 20 job_is "$j" RUNNING
check_eq "... on n[1,3], not on the lowest free nodes n[1-2]" "n[1,3]" "$(job_field "$j" NodeList)"
check "it completes" wait_until 30 job_is "$j" COMPLETED
scancel "$d"
check "the cluster is idle again" wait_until 30 queue_empty

say "strict (scontrol reconfigure): one free node per island is not enough"
mark=$(stat -c %s "$_cluster_dir/log/slurmctld.log")
echo "TopologyPlacement=strict" > "$conf_dir/fairway.conf"
scontrol reconfigure
check "topology.conf is read again at reconfigure" wait_until 30 bash -c \
  "tail -c +$((mark + 1)) '$_cluster_dir/log/slurmctld.log' | grep -q 'sched/fairway: islands from $conf_dir/topology.conf'"
check "slurmctld answers" wait_until 30 bash -c "scontrol ping | grep -q UP"
read -r a b c d <<< "$(fill)"
for j in $a $b $c $d; do
  check "filler $j runs" wait_until 15 job_is "$j" RUNNING
done
j=$(submit -N 2 -c 2 -t 1 --wrap "sleep 3")
sleep 3
scancel "$a" "$b"
check "n1 and n2 are idle" wait_until 20 bash -c \
  "[ \"\$(sinfo -h -n n1,n2 -t idle -o %D)\" = 2 ]"
sleep 4
check_eq "the 2-node job does not start split over the islands" PENDING "$(job_state "$j")"
check_eq "... planned on n[1,3]" "n[1,3]" "$(sched_nodes "$j")"
scancel "$c"
check "n3 free: the 2-node job starts" wait_until 20 job_is "$j" RUNNING
check_eq "... on n[1,3]" "n[1,3]" "$(job_field "$j" NodeList)"
scancel "$d"
check "it completes" wait_until 30 job_is "$j" COMPLETED

say "a topology.conf Fairway cannot read: one error line, slurmctld goes on"
# Slurm follows Include (relative names: beside slurm.conf); Fairway does
# not, and says so.
printf 'SwitchName=s2 Nodes=n[2,4]\n' > "$conf_dir/topology-more.conf"
printf 'SwitchName=s1 Nodes=n[1,3]\nInclude topology-more.conf\nSwitchName=top Switches=s[1-2]\n' \
  > "$conf_dir/topology.conf"
mark=$(stat -c %s "$_cluster_dir/log/slurmctld.log")
scontrol reconfigure
want="error: sched/fairway: $conf_dir/topology.conf:2: Include=topology-more.conf: Fairway does not follow Include lines in topology.conf: no islands (TopologyPlacement has no effect)"
check "one error line naming file, line, key, value" wait_until 30 bash -c \
  "tail -c +$((mark + 1)) '$_cluster_dir/log/slurmctld.log' | grep -qF '$want'"
tail -c +$((mark + 1)) "$_cluster_dir/log/slurmctld.log" | grep -F "sched/fairway: $conf_dir/topology.conf" | sed 's/^/    /'
check "slurmctld answers" wait_until 30 bash -c "scontrol ping | grep -q UP"
k=$(submit -N 2 -c 2 -t 1 --wrap "true")
check "a 2-node job still runs (no islands)" wait_until 30 job_is "$k" COMPLETED
finish
