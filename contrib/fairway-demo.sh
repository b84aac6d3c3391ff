#!/bin/bash
# README command 1: on a fresh Debian 12 machine, install everything, build,
# start a 4-node local cluster with Fairway loaded, submit the job mix of the
# scheduling primer (seed 004: jobs 123-126) and show what users see: sprio,
# squeue --start, and the final schedule as a node-by-hour table.
#
#   contrib/fairway-demo.sh [--hour SECONDS]   (default: one "hour" = 60 s)
#
# The primer's hours are scaled down: a job of H hours gets a time limit of
# H scaled minutes and runs a little shorter than its limit.
set -u
hour=60
while [ $# -gt 0 ]; do
  case "$1" in
    --hour) hour=$2; shift 2;;
    *) echo "usage: $0 [--hour SECONDS]" >&2; exit 2;;
  esac
done
[ "$hour" -ge 60 ] && [ $((hour % 60)) = 0 ] || {
  echo "--hour must be a multiple of 60 (Slurm time limits are whole minutes)" >&2; exit 2; }
source "$(dirname "$0")/build.sh"
fw_prepare

dir="$top/_logs/demo-cluster"
extra="$LOGDIR/demo-slurm.conf"
# bf_interval=5: the demo shows the first plan a few seconds after submission
# (Slurm's default backfill interval is 30 s).
cat > "$extra" <<EOF
FirstJobId=123
PriorityWeightAge=1000
PriorityWeightPartition=1000
SchedulerParameters=sched_interval=-1,bf_interval=5
EOF
bash "$top/contrib/cluster-stop.sh" --dir "$dir" >/dev/null 2>&1
step "start 4-node cluster with Fairway" "$LOGDIR/demo-cluster.log" \
  bash "$top/contrib/cluster-start.sh" --dir "$dir" --name demo --port 17900 \
  --slurm-extra "$extra"
source "$dir/env"
trap 'bash "$top/contrib/cluster-stop.sh" --dir "$dir" >/dev/null 2>&1' EXIT

# The primer's users; created as system users if missing so that squeue
# shows who submitted what.
for u in markov julie mendle; do
  id "$u" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$u"
done
jobs="$dir/jobs"; mkdir -p "$jobs"; chmod 1777 "$jobs"

min=$((hour / 60))
submit() { # user account hours nodes name
  local run=$(( $3 * hour - 5 ))
  sbatch --parsable --uid="$1" --account="$2" -N "$4" --exclusive \
    -t "$(( $3 * min ))" -J "$5" -D "$jobs" -o "$jobs/%j.out" \
    --wrap "sleep $run" | cut -d';' -f1
}
echo "==> submitting the primer's job mix (1 primer hour = $hour s)"
printf '    %-5s %-7s %-9s %-5s %-5s %s\n' Job User Account Time Nodes Name
for spec in "markov phys-part 2 2 neutro3" "markov phys-part 2 2 neutro3" \
            "julie bio-env 1 1 biodiv" "mendle bio-epi 4 4 denovo"; do
  set -- $spec
  id=$(submit "$@")
  printf '    %-5s %-7s %-9s %-5s %-5s %s\n' "$id" "$1" "$2" "${3}h" "$4" "$5"
  sleep 1   # keep the primer's submission order
done
# Wait for the first backfill pass to plan the waiting jobs, so that
# squeue --start shows their expected start times instead of N/A.
for _ in $(seq 60); do
  [ "$(squeue -h -j 126 -o %S 2>/dev/null)" != N/A ] && break
  sleep 0.5
done

echo
echo "==> sprio -l (Fairway's priority factors)"
sprio -l
echo
echo "==> squeue --start (when waiting jobs are expected to start)"
squeue --start
echo
echo "==> squeue"
squeue

echo
echo "==> waiting for the job mix to finish (about $((7 * hour)) s)"
t0=$SECONDS
last=""
while q=$(squeue -h -o '%i:%t' | sort | tr '\n' ' '); [ -n "$q" ]; do
  if [ "$q" != "$last" ]; then   # print only when a job changes state
    printf '    %4d s: %s\n' $((SECONDS - t0)) "$q"
    last=$q
  fi
  sleep 2
done
printf '    %4d s: all jobs finished\n' $((SECONDS - t0))

echo
echo "==> the schedule Fairway produced (one column per primer hour)"
python3 - "$hour" 123 124 125 126 <<'PY'
import subprocess, sys, datetime
hour = int(sys.argv[1]); ids = sys.argv[2:]
def field(text, key):
    for tok in text.split():
        if tok.startswith(key + "="):
            return tok.split("=", 1)[1]
    return ""
def nodes(expr):
    out = subprocess.run(["scontrol", "show", "hostnames", expr], capture_output=True, text=True).stdout
    return out.split()
jobs = []
for j in ids:
    t = subprocess.run(["scontrol", "show", "job", j], capture_output=True, text=True).stdout
    ts = lambda k: datetime.datetime.fromisoformat(field(t, k)).timestamp()
    jobs.append((j, ts("StartTime"), ts("EndTime"), nodes(field(t, "NodeList"))))
t0 = min(s for _, s, _, _ in jobs)
end = max(e for _, _, e, _ in jobs)
ncols = int(round((end - t0) / hour))
for node in ["n4", "n3", "n2", "n1"]:
    row = []
    for c in range(ncols):
        mid = t0 + (c + 0.5) * hour
        cell = "."
        for j, s, e, ns in jobs:
            if node in ns and s <= mid < e:
                cell = j
        row.append(f"{cell:>4}")
    print(f"    {node:6}" + "".join(row))
print("    Time  " + "".join(f"{c + 1:>3}h" for c in range(ncols)))
work = sum((e - s) * len(ns) for _, s, e, ns in jobs) / hour
print(f"    makespan {ncols} h; busy node-hours {work:.1f} of {4 * ncols} "
      f"({100 * work / (4 * ncols):.0f}%)")
PY
