#!/bin/bash
# What a user can and cannot do with Fairway loaded (issue 8, "Users"):
#  - the fairway command trusts the plugins' abstract socket only when
#    slurmctld (SlurmUser) or root holds it: a user who takes the name
#    first gets no answer through it, and slurmctld keeps scheduling;
#    likewise over TCP (FairwayPort) it trusts only replies signed with a
#    MUNGE credential of SlurmUser or root that answer its own request
#    (not another, even a genuine one);
#    PrivateData=jobs holds on that socket as over TCP (test_explain_remote);
#  - a user cannot raise a job's priority beyond what Slurm allows: no
#    negative nice (at submission or later), no scontrol priority=, no
#    scontrol top; positive nice lowers Fairway's priority by exactly that;
#    an operator's negative nice does raise it (so the checks can fail);
#  - Fairway's state files are 0600 whatever slurmctld's umask, and a
#    leftover world-writable .new file or a planted symlink is replaced,
#    never written through; fairway-sim's outputs are not group/world-writable.
source "$(dirname "$0")/lib.sh"

name=fw-sec
port=$(live_port 17620)
FW=$FW_BUILD/src/cli/fairway
for u in fwalice fwbob; do
  id "$u" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$u"
done
as() { local u=$1; shift; runuser -u "$u" -- env SLURM_CONF="$SLURM_CONF" "$@"; }

# ---- an impostor on the priority plugin's socket name ---------------------
# Abstract socket names have no owner: bob takes the one priority/fairway
# will use (fw_server_name: fairway/<ClusterName>/<SlurmctldPort>/prio)
# before slurmctld starts.  setpriv execs python3 itself, so $! is its pid.
sockname=fairway/$name/$port/prio
setpriv --reuid="$(id -u fwbob)" --regid="$(id -g fwbob)" --clear-groups \
  /usr/bin/python3 - "$sockname" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind("\0" + sys.argv[1])
s.listen(8)
while True:
    c, _ = s.accept()
    try:
        c.recv(4096)
        c.sendall(b"Job 1 (rogue): priority 4294967295, you are first\n")
    except OSError:
        pass  # the fairway command hung up without asking
    c.close()
PY
rogue=$!
# Over TCP bob listens on FairwayPort (priority/fairway's) before slurmctld;
# he answers in turn in plain text, with a MUNGE credential of his own whose
# payload echoes the request (which he decodes from the caller's), and with
# a genuine signed answer of slurmctld's to another request (from file).
fw_port=$(live_port 17640)
munge_sock=$FW_LIVE_DIR/$name/munge/munge.sock   # contrib/cluster-start.sh
old_answer=$(mktemp); chmod 644 "$old_answer"
setpriv --reuid="$(id -u fwbob)" --regid="$(id -g fwbob)" --clear-groups \
  /usr/bin/python3 - "$fw_port" "$munge_sock" "$old_answer" <<'PY' &
import socket, subprocess, sys
port, sock, old_answer = int(sys.argv[1]), sys.argv[2], sys.argv[3]
try:
    s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("::", port))
except OSError:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", port))
# (SO_REUSEADDR: else the TIME-WAIT of his closed connections would keep
# slurmctld from taking the port for a minute once he is gone)
s.listen(8)
n = 0
while True:
    c, _ = s.accept()
    try:
        line = c.recv(8192).decode(errors="replace").strip()
        n += 1
        fake = "Job 1 (rogue): priority 4294967295, you are first\n"
        if n % 3 == 1:
            c.sendall(fake.encode())
        elif n % 3 == 0:
            c.sendall(open(old_answer, "rb").read())
        else:
            req = subprocess.run(["unmunge", "--socket", sock, "-m", "/dev/null"],
                                 input=line.removeprefix("MUNGE:"), capture_output=True,
                                 text=True).stdout
            cred = subprocess.run(["munge", "--socket", sock, "-s", req + "\n" + fake],
                                  capture_output=True, text=True).stdout.strip()
            c.sendall(("MUNGE:" + cred + "\n").encode())
    except OSError:
        pass  # the fairway command hung up
    c.close()
PY
rogue_tcp=$!
held() { ss -xlH | grep -q "@$sockname " && ss -tlnH | grep -q ":$fw_port "; }
wait_until 10 held || { echo "FAIL: the impostors did not start"; kill "$rogue" "$rogue_tcp"; exit 1; }

extra=$(mktemp)
cat > "$extra" <<'EOF2'
SchedulerParameters=sched_interval=-1,defer,bf_interval=1,bf_resolution=1
PrivateData=jobs
PartitionName=hold Nodes=n[1-4] State=DOWN PriorityJobFactor=1 MaxTime=INFINITE
EOF2
fwconf=$(mktemp); echo "FairwayPort=$fw_port" > "$fwconf"
start_cluster "$name" 17620 --slurm-extra "$extra" --fairway-conf "$fwconf"
rm -f "$extra" "$fwconf"
trap 'kill "$rogue" "$rogue_tcp" 2>/dev/null; rm -f "$old_answer"; stop_cluster' EXIT
state=$(sed -n 's/^StateSaveLocation=//p' "$SLURM_CONF")

say "bob holds @$sockname before slurmctld"
check "slurmctld log: priority/fairway cannot serve (name taken), nothing worse" \
  grep -q "priority/fairway: cannot serve the fairway command: cannot listen on abstract socket @$sockname" <(ctld_log)
j0=$(submit -t 1 --wrap true)
check "slurmctld still schedules: a job runs to completion" wait_until 30 job_is "$j0" COMPLETED

ja=$(sbatch --parsable --uid=fwalice -D "$JOBDIR" -o /dev/null -p hold -t 5 --wrap true)
out=$(as fwalice "$FW" priority "$ja" 2>&1); rc=$?
echo "$out" | sed 's/^/    /'
check "alice's fairway priority fails (exit $rc)" test "$rc" != 0
check "... saying who holds the socket (bob's uid) and that it is not SlurmUser" \
  grep -q "is held by uid $(id -u fwbob) (pid $rogue), not by SlurmUser root (uid 0): not asking it" <<< "$out"
check "... and prints nothing the impostor said" bash -c '! grep -q rogue <<< "$0"' "$out"
out=$(as fwalice "$FW" plan "$ja" 2>&1); rc=$?
check "sched/fairway's socket (slurmctld's) is still trusted: fairway plan works" \
  bash -c '[ "$0" = 0 ] && ! grep -q "not asking" <<< "$1"' "$rc" "$out"

say "bob listens on FairwayPort $fw_port: fairway --tcp (as from a login node)"
out=$(as fwalice "$FW" --tcp priority "$ja" 2>&1); rc=$?
echo "$out" | sed 's/^/    /'
check "a plain-text answer is refused (exit $rc)" \
  bash -c '[ "$0" != 0 ] && grep -q "port '"$fw_port"': the reply is not signed with MUNGE: not trusting it" <<< "$1" && ! grep -q rogue <<< "$1"' "$rc" "$out"
out=$(as fwalice "$FW" --tcp priority "$ja" 2>&1); rc=$?
echo "$out" | sed 's/^/    /'
check "an answer signed by bob's MUNGE credential is refused (exit $rc)" \
  bash -c '[ "$0" != 0 ] && grep -q "the reply is signed by uid $2, not by SlurmUser root (uid 0): not trusting it" <<< "$1" && ! grep -q rogue <<< "$1"' \
  "$rc" "$out" "$(id -u fwbob)"
# A genuine answer signed by slurmctld (sched/fairway's port), to root's
# request, never decoded: bob replays it as the answer to alice's.
python3 - "$((fw_port + 1))" "MUNGE:$(munge --socket="$munge_sock" --string="plan $ja")" > "$old_answer" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
s.sendall(sys.argv[2].encode() + b"\n")
while True:
    b = s.recv(4096)
    if not b: break
    sys.stdout.buffer.write(b)
PY
check "slurmctld's answer on TCP is a MUNGE credential" grep -q "^MUNGE:" "$old_answer"
out=$(as fwalice "$FW" --tcp priority "$ja" 2>&1); rc=$?
echo "$out" | sed 's/^/    /'
check "a genuine answer of slurmctld's to another request is refused (exit $rc)" \
  bash -c '[ "$0" != 0 ] && grep -q "the signed reply answers another request: not trusting it" <<< "$1"' "$rc" "$out"
out=$(as fwalice "$FW" --tcp plan "$ja" 2>&1); rc=$?
check "sched/fairway's TCP port (slurmctld's, signed replies) is trusted" \
  bash -c '[ "$0" = 0 ] && ! grep -q "not trusting" <<< "$1"' "$rc" "$out"

kill "$rogue" "$rogue_tcp"; wait "$rogue" "$rogue_tcp" 2>/dev/null
say "without the impostors, after a restart slurmctld serves the name and the port and is trusted"
restart_ctld || fail "slurmctld did not restart"
out=$(as fwalice "$FW" priority "$ja" 2>&1)
check "alice's fairway priority answers from slurmctld" grep -q "^Job $ja .*user fwalice" <<< "$out"
out=$(as fwalice "$FW" --tcp priority "$ja" 2>&1)
check "... and over TCP (reply signed by SlurmUser)" grep -q "^Job $ja .*user fwalice" <<< "$out"
out=$(as fwbob "$FW" explain "$ja" 2>&1)
check_eq "PrivateData=jobs on the local socket too: bob gets no answer about alice's job from either plugin" \
  2 "$(grep -c "job $ja: no such job (or not visible to you)" <<< "$out")"

# ---- priorities: what Slurm allows a user, Fairway allows, and no more ----
say "alice's jobs in a DOWN partition (they pend with a computed priority)"
prio() { squeue -h -j "$1" -o %Q; }
j1=$(sbatch --parsable --uid=fwalice -D "$JOBDIR" -o /dev/null -p hold -t 5 --wrap true)
j2=$(sbatch --parsable --uid=fwalice -D "$JOBDIR" -o /dev/null -p hold -t 5 --nice=100 --wrap true)
p1=$(prio "$j1"); p2=$(prio "$j2")
echo "    job $j1 priority $p1; job $j2 (--nice=100) priority $p2"
# The age term grows by 1000/86400 per second: the two differ by < 1 point.
check "--nice=100 lowers Fairway's priority by 100 (+-1)" near "$p2" "$((p1 - 100))" 1

as_sbatch() { # user args... -> exit code; output in $out
  out=$(runuser -u "$1" -- env SLURM_CONF="$SLURM_CONF" sbatch --parsable -D /tmp -o /dev/null "${@:2}" 2>&1)
}
as_sbatch fwalice -p hold -t 5 --nice=-100 --wrap true; rc=$?
echo "    sbatch --nice=-100 as alice: rc $rc: $out"
check "alice cannot submit with a negative nice" \
  bash -c '[ "$0" != 0 ] && grep -qi "nice" <<< "$1"' "$rc" "$out"
as_sbatch fwalice -p hold -t 5 --priority=4000000 --wrap true; rc=$?
jp=$out
if [ "$rc" = 0 ]; then
  # Slurm ignores a user's --priority (job_mgr: priority = NO_VAL)
  check "alice's --priority=4000000 is ignored: Fairway's priority ($(prio "$jp")) is her plain job's ($p1 +-1)" \
    near "$(prio "$jp")" "$p1" 1
  scancel "$jp"
else
  pass "alice's --priority=4000000 is refused ($jp)"
fi

upd() { runuser -u "$1" -- env SLURM_CONF="$SLURM_CONF" scontrol update "${@:2}" 2>&1; }
out=$(upd fwalice jobid="$j1" nice=-100); rc=$?
echo "    scontrol update nice=-100 as alice: rc $rc: $out"
check "alice cannot give her job a negative nice" test "$rc" != 0
check_eq "... its nice stays 0" 0 "$(job_field "$j1" Nice)"
check "... and its priority is not raised ($(prio "$j1") <= $p1 + 1)" test "$(prio "$j1")" -le $((p1 + 1))
out=$(upd fwalice jobid="$j1" priority=$((p1 + 100000))); rc=$?
echo "    scontrol update priority=$((p1 + 100000)) as alice: rc $rc: $out"
check "alice cannot set a higher priority" test "$rc" != 0
check "... her job's priority is not raised ($(prio "$j1") <= $p1 + 1)" test "$(prio "$j1")" -le $((p1 + 1))
out=$(runuser -u fwalice -- env SLURM_CONF="$SLURM_CONF" scontrol top "$j1" 2>&1); rc=$?
echo "    scontrol top as alice: rc $rc: $out"
check "alice cannot use scontrol top (enable_user_top is not set)" test "$rc" != 0
out=$(upd fwbob jobid="$j1" nice=500); rc=$?
check "bob cannot change alice's job" test "$rc" != 0
out=$(upd fwalice jobid="$j2" nice=0); rc=$?
check "alice may take back her own positive nice (Slurm allows nice >= 0)" test "$rc" = 0
check "... which brings that job to her plain job's priority, not above" \
  wait_until 10 bash -c "p=\$(squeue -h -j $j2 -o %Q); [ \"\$p\" -ge $((p1 - 1)) ] && [ \"\$p\" -le $((p1 + 2)) ]"
scontrol update jobid="$j1" nice=-100
check "an operator's nice=-100 does raise it by 100 (so the checks above can fail)" \
  wait_until 10 bash -c "near() { local d=\$((\$1 - \$2)); [ \${d#-} -le \$3 ]; }; near \$(squeue -h -j $j1 -o %Q) $((p1 + 100)) 2"

# ---- files ------------------------------------------------------------------
say "state files: 0600 whatever the umask; leftovers replaced, never followed"
target=$(mktemp "$FW_LIVE_DIR/$name-target.XXXXXX"); echo untouched > "$target"; chmod 644 "$target"
install -m 666 /dev/null "$state/fairway_priority_state.new"
ln -sfn "$target" "$state/fairway_sched_state.new"
umask 000
restart_ctld || fail "slurmctld did not restart under umask 000"
umask 022
wait_until 30 test -e "$state/fairway_sched_state" -a -e "$state/fairway_priority_state" ||
  fail "the plugins did not save their state"
ls -l "$state"/fairway_* | sed 's/^/    /'
for f in "$state"/fairway_*; do
  [ -L "$f" ] && { fail "$(basename "$f") is a symlink"; continue; }
  check_eq "$(basename "$f") mode (saved under umask 000)" 600 "$(stat -c %a "$f")"
done
check_eq "the planted symlink's target was not written through" untouched "$(cat "$target")"
check "no world-writable file in StateSaveLocation is Fairway's" \
  bash -c '[ -z "$(find "$0" -name "fairway_*" -perm -o+w)" ]' "$state"
rm -f "$target"

say "fairway-sim outputs under umask 000"
simout=$(mktemp -d "$FW_LIVE_DIR/$name-sim.XXXXXX"); rmdir "$simout"
(umask 000; "$FW_BUILD/src/sim/fairway-sim" -q --slurm-conf "$FW_TOP/testsuite/sim/primer/slurm.conf" \
   --csv "$FW_TOP/testsuite/sim/primer/jobs.csv" --policy easy --out-dir "$simout")
check "fairway-sim wrote its report" test -s "$simout/jobs.csv"
check "nothing fairway-sim wrote is group/world-writable" \
  bash -c '[ -z "$(find "$0" -perm /022)" ]' "$simout"
rm -rf "$simout"

scancel "$ja" "$j1" "$j2" 2>/dev/null
finish
