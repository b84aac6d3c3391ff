#!/bin/sh
# The table of doc/policy-starvation.md: the starvation-bounded preset of
# doc/examples/starvation against FCFS-ordered EASY on the development
# trace (as is, and with its submit times compressed to three loads) and
# on fairway-sim-gentrace traces at three loads, each pair with
# one fairway-sim --compare command.
# usage: testsuite/sim/starvation.sh [builddir [svg-out]]  (from the source tree)
# PRESET=dir runs another preset directory; SELECT_TYPE=select/linear
# writes that SelectType into both clusters (default: none, so Slurm's
# default select/cons_tres).  Every job of these traces holds whole nodes
# (1-CPU nodes for lublin-aaroh, multiples of 32 processors on 32-CPU nodes
# for the generated traces), so both give the same numbers; select/linear
# replays them much faster (no node-sharing planner).
set -eu
B=${1:-.}
SVG=${2:-}
P=${PRESET:-$(dirname "$0")/../../doc/examples/starvation}
LUBLIN=${LUBLIN:-/work/shared/traces/lublin-aaroh.swf}
T=$(mktemp -d "${TMPDIR:-/tmp}/fwstarve.XXXXXX")
trap 'rm -rf "$T"' EXIT

# cluster NODES CPUS: the nodes and partition lines of a cluster
cluster() {
	if [ -n "${SELECT_TYPE:-}" ]; then echo "SelectType=$SELECT_TYPE"; fi
	echo "NodeName=c[001-$(printf %03d "$1")] CPUs=$2 RealMemory=192000"
	echo "PartitionName=batch Nodes=c[001-$(printf %03d "$1")] Default=YES MaxTime=2-0 State=UP"
}
# confs NODES CPUS: base.conf (no weights: FCFS order) and preset.conf
# (the preset's slurm.conf with this cluster)
confs() {
	{ cluster "$1" "$2"
	  echo "SchedulerParameters=bf_interval=30,bf_window=2880,bf_resolution=60"; } > "$T/base.conf"
	{ cluster "$1" "$2"
	  grep -v '^NodeName\|^PartitionName\|^ClusterName' "$P/slurm.conf"; } > "$T/preset.conf"
}
# offered load of a SWF trace: processor-seconds / (processors x last submit)
offered() {
	awk -v P="$1" '!/^;/ { s += $4 * $5; if ($2 > m) m = $2 }
		END { printf "%.2f", s / (P * m) }' "$2"
}
# run NAME TRACE PROCS
run() {
	"$B/src/sim/fairway-sim" -q --swf "$2" --out-dir "$T/$1" \
		--compare easy --slurm-conf "$T/base.conf" --policy easy \
		--compare preset --slurm-conf "$T/preset.conf" \
		--fairway-conf "$P/fairway.conf" --policy fairway
	load=$(offered "$3" "$2")
	awk -F'\t' -v t="$1" -v l="$load" 'NR > 1 {
		printf "| %s | %s | %s | %.0f | %.0f | %.0f | %.2f | %.1f%% |\n",
			t, l, $1 == "easy" ? "EASY (FCFS order)" : "preset",
			$4, $6, $7, $8, 100 * $9 }' "$T/$1/compare.tsv"
}

echo "| trace | offered load | policy | mean wait (s) | p95 wait (s) | max wait (s) | mean bsld | utilisation |"
echo "|---|---|---|---|---|---|---|---|"
if [ -r "$LUBLIN" ]; then
	confs 256 1
	run lublin-aaroh "$LUBLIN" 256
	# Its offered load is 0.04 on its 256 nodes (almost nothing waits):
	# the same jobs with submit times multiplied by F (0.05, 0.043, 0.038)
	# load the machine like the generated traces.
	for F in 0.05 0.043 0.038; do
		awk -v f="$F" '/^;/ { print; next } { $2 = int($2 * f); print }' \
			"$LUBLIN" > "$T/lublin-x$F.swf"
		run "lublin-aaroh-x$F" "$T/lublin-x$F.swf" 256
	done
fi
confs 100 32
for L in 0.82 1.0 1.14; do
	"$B/src/sim/fairway-sim-gentrace" --jobs 7000 --days 90 --nodes 100 \
		--seed 11 --load "$L" > "$T/g$L.swf"
	run "gentrace-$L" "$T/g$L.swf" 3200
	if [ -n "$SVG" ] && [ "$L" = 1.0 ]; then
		cp "$T/gentrace-$L/compare-waits.svg" "$SVG"
	fi
done
