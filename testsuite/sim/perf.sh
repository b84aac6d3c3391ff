#!/bin/sh
# Performance run of fairway-sim (doc/perf-sim.md): a deterministic
# 30,000-job, year-long synthetic trace on the 320-node cluster of
# testsuite/sim/year, every policy, best of three.
# usage: testsuite/sim/perf.sh [builddir]   (from the source tree)
set -eu
B=${1:-.}
Y=$(dirname "$0")/year
T=$(mktemp -d "${TMPDIR:-/tmp}/fwperf.XXXXXX")
trap 'rm -rf "$T"' EXIT
"$B/src/sim/fairway-sim-gentrace" --jobs 30000 --seed 20240101 > "$T/year.swf"
echo "trace: $(grep -vc '^;' "$T/year.swf") jobs, sha256 $(sha256sum < "$T/year.swf" | cut -c1-16)"
# serial (one job at a time) is for small cases: on this trace the queue
# grows to thousands of jobs for years of simulated time.
for p in fairway easy conservative fifo; do
	best=""
	for i in 1 2 3; do
		/usr/bin/time -f "%e %U %M" -o "$T/time" "$B/src/sim/fairway-sim" -q \
			--slurm-conf "$Y/slurm.conf" --topology "$Y/topology.conf" \
			--sacctmgr-dump "$Y/sacctmgr.dump" --swf "$T/year.swf" \
			--policy "$p" --out-dir "$T/$p"
		t=$(cut -d' ' -f1 "$T/time")
		if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then
			best=$t; line=$(cat "$T/time")
		fi
	done
	set -- $line
	python3 - "$T/$p/summary.json" "$p" "$1" "$2" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p, wall, user, rss = sys.argv[2:6]
print(f"{p:13s} total {wall:>5s} s (user {user} s, {int(rss)//1024} MB)  "
      f"run {d['wall_time_s']:.2f} s  util {100*d['utilisation']:.1f}%  "
      f"wait mean {d['wait_mean_s']/3600:.2f} h  bsld {d['bounded_slowdown_mean']:.2f}  "
      f"backfilled {d['jobs_backfilled']}  passes main {d['main_passes']} "
      f"bf {d['backfill_passes']} prio {d['priority_passes']} "
      f"skipped {d['passes_skipped_nothing_fits']}")
PY
done
