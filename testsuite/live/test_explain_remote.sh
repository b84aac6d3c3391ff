#!/bin/bash
# The fairway command from another host: with FairwayPort set, the plugins
# also answer on TCP, and the caller's uid is the one a MUNGE credential
# vouches for.  Under PrivateData=jobs a user sees their own job's breakdown
# and plan, not another user's; requests without a valid, fresh credential
# are refused; answers are signed with MUNGE too.  (--tcp takes the network
# path on the controller host, as a login node would.)
source "$(dirname "$0")/lib.sh"

fw_port=$(live_port 17280)   # priority/fairway; sched/fairway uses +1
extra=$(mktemp); fwconf=$(mktemp)
cat > "$extra" <<'EOF2'
SchedulerParameters=sched_interval=-1,defer,bf_interval=1,bf_resolution=1
PrivateData=jobs
EOF2
echo "FairwayPort=$fw_port" > "$fwconf"
start_cluster fw-remote 17260 --slurm-extra "$extra" --fairway-conf "$fwconf"
rm -f "$extra" "$fwconf"

for u in fwalice fwbob; do
  id "$u" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$u"
done
FW=$FW_BUILD/src/cli/fairway
as() { local u=$1; shift; runuser -u "$u" -- env SLURM_CONF="$SLURM_CONF" "$@"; }
sock=$(sed -n 's/^AuthInfo=socket=//p' "$SLURM_CONF")

check "slurmctld log: priority/fairway serves TCP port $fw_port" \
  grep -q "priority/fairway: serving the fairway command on .* TCP port $fw_port" <(ctld_log)
check "slurmctld log: sched/fairway serves TCP port $((fw_port + 1))" \
  grep -q "sched/fairway: serving the fairway command on .* TCP port $((fw_port + 1))" <(ctld_log)

say "alice's job waits behind a whole-cluster job"
blk=$(submit -N4 --exclusive -t 2 --wrap "sleep 100")
wait_until 20 job_is "$blk" RUNNING || fail "blocking job did not start"
ja=$(sbatch --parsable --uid=fwalice -D "$JOBDIR" -o /dev/null -N2 --exclusive -t 1 --wrap true)
wait_until 10 bash -c "[ \"\$(squeue -h -j $ja -o %S)\" != N/A ]"

say "alice asks over TCP about her own job"
out=$(as fwalice "$FW" --tcp explain "$ja" 2>&1)
echo "$out" | sed 's/^/    /'
check "alice sees her job's priority breakdown" grep -q "^Job $ja .*user fwalice" <<< "$out"
check "alice sees the sprio columns of her job" grep -q "sprio:" <<< "$out"
check "alice sees her job's plan (start time)" grep -qi "start" <<< "$(as fwalice "$FW" --tcp plan "$ja")"

say "bob may not see alice's job (PrivateData=jobs)"
out=$(as fwbob "$FW" --tcp explain "$ja" 2>&1)
echo "$out" | sed 's/^/    /'
check "bob gets no priority breakdown" bash -c "! grep -q 'user fwalice' <<< \"\$0\"" "$out"
check_eq "both services refuse bob alike" 2 "$(grep -c "job $ja: no such job (or not visible to you)" <<< "$out")"
check "root (an operator) sees alice's job" grep -q "^Job $ja .*user fwalice" <<< "$("$FW" --tcp priority "$ja")"

say "requests without a valid, fresh MUNGE credential are refused"
raw() { # port line -> reply
  python3 - "$1" "$2" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
s.sendall(sys.argv[2].encode() + b"\n")
out = b""
while True:
    b = s.recv(4096)
    if not b: break
    out += b
print(out.decode(errors="replace"), end="")
PY
}
check "a plain request is refused" grep -q "must be MUNGE-authenticated" <<< "$(raw "$fw_port" "priority $ja")"
cred=$(munge --socket="$sock" --string="priority $ja")
first=$(raw "$fw_port" "MUNGE:$cred")
# The answer itself comes in a MUNGE credential made by SlurmUser (root
# here) whose payload is "<request credential>\n<reply>" (fw_server.h).
ans=$(sed -n 's/^MUNGE://p' <<< "$first" | unmunge --socket="$sock" -N -k UID -m /dev/stdout -o /dev/stdout)
echo "$ans" | head -3 | sed 's/^/    /'
check "a fresh root credential is answered, signed with MUNGE by uid 0" grep -Eq "^UID: +0$" <<< "$ans"
check "... with the request's credential, then the job's breakdown" \
  bash -c 'grep -qxF "$1" <<< "$2" && grep -q "^Job $0 " <<< "$2"' "$ja" "$cred" "$ans"
check "the same credential replayed is refused" grep -qi "authentication failed.*replay" <<< "$(raw "$fw_port" "MUNGE:$cred")"
# Flip one character in the middle of the credential's encoded body.
mid=$(( ${#cred} / 2 )); c=${cred:$mid:1}; [ "$c" = A ] && r=B || r=A
bad="${cred:0:$mid}$r${cred:$((mid + 1))}"
check "a tampered credential is refused" grep -q "authentication failed" <<< "$(raw "$fw_port" "MUNGE:$bad")"

say "without FairwayPort the command says what to set"
out=$(FAIRWAY_PORT= SLURM_CONF=/nonexistent/slurm.conf "$FW" --tcp plan "$ja" 2>&1)
check "--tcp without FairwayPort explains itself" grep -q "needs FairwayPort" <<< "$out"

scancel "$blk" "$ja"
finish
