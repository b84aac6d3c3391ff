#!/bin/sh
# fairway-sim's command line end to end on the primer's job mix: exit codes,
# output files, summary numbers, --explain, error messages with file:line.
set -u
SIM=${SIM:-./src/sim/fairway-sim}
S=${srcdir:-.}/testsuite/sim/primer
OUT=$(mktemp -d "${TMPDIR:-/tmp}/fwsim.XXXXXX")
trap 'rm -rf "$OUT"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# serial: 9 h = 32400 s; easy: 7 h = 25200 s at 25/28 = 0.8928571429
"$SIM" -q --slurm-conf "$S/slurm.conf" --csv "$S/jobs.csv" --policy serial \
	--out-dir "$OUT/serial" || fail "serial run"
grep -q '"makespan_s": 32400,' "$OUT/serial/summary.json" || fail "serial makespan"
"$SIM" -q --slurm-conf "$S/slurm.conf" --csv "$S/jobs.csv" --policy easy \
	--out-dir "$OUT/easy" || fail "easy run"
grep -q '"makespan_s": 25200,' "$OUT/easy/summary.json" || fail "easy makespan"
grep -q '"utilisation": 0.8928571429,' "$OUT/easy/summary.json" || fail "easy utilisation"
for f in jobs.csv gantt.svg utilisation.svg waits.svg; do
	[ -s "$OUT/easy/$f" ] || fail "missing $f"
done
# 126 starts at 3h = 1704067200 + 10800 on all four nodes
grep -q '^126,mendle,bio-epi,batch,,done,1704067200,1704067200,1704078000,1704092400,' \
	"$OUT/easy/jobs.csv" || fail "job 126 line"

# the same mix from sacct (job 127 never started: skipped) and SWF: same run
"$SIM" -q --slurm-conf "$S/slurm.conf" --sacct "$S/jobs.sacct" --policy easy \
	--out-dir "$OUT/sacct" || fail "sacct run"
grep -q '"makespan_s": 25200,' "$OUT/sacct/summary.json" || fail "sacct makespan"
grep -q '"trace_jobs_never_started": 1,' "$OUT/sacct/summary.json" || fail "sacct skipped count"
"$SIM" -q --slurm-conf "$S/slurm.conf" --swf "$S/jobs.swf" --policy easy \
	--out-dir "$OUT/swf" || fail "swf run"
grep -q '"makespan_s": 25200,' "$OUT/swf/summary.json" || fail "swf makespan"
grep -q '^126,u3,g3,batch,,done,1704067200,1704067200,1704078000,1704092400,' \
	"$OUT/swf/jobs.csv" || fail "swf job 126 line"

# The primer preset of doc/examples replays the jack/jill example: jill's
# first three jobs (0 h, 6 h, 12 h), then jack's (18 h): "Jill's third job
# will run next ... Finally Jack's first job can run."
P=${srcdir:-.}/doc/examples/primer
"$SIM" -q --slurm-conf "$P/slurm.conf" --fairway-conf "$P/fairway.conf" \
	--csv "$S/jackjill.csv" --out-dir "$OUT/jj" || fail "jack/jill preset run"
order=$(awk -F, 'NR > 1 { print $9, $2 }' "$OUT/jj/jobs.csv" | sort -n | head -4 |
	awk '{ printf "%s ", $2 }')
[ "$order" = "jill jill jill jack " ] || fail "jack/jill order with the preset: $order"

# --explain at +2h30m: 126 waits for 125 (node1 until 3h)
"$SIM" -q --slurm-conf "$S/slurm.conf" --csv "$S/jobs.csv" --policy easy \
	--out-dir "$OUT/x" --explain 126 --at +150m > "$OUT/explain.txt" || fail "explain run"
grep -q 'planned start 2024-01-01T03:00:00 on node\[1-4\]' "$OUT/explain.txt" || fail "explain plan"
grep -q 'job 125 runs on node1 until at most 2024-01-01T03:00:00' "$OUT/explain.txt" || fail "explain holder"

# a malformed trace line: exit 1 naming file:line and the field
printf 'submit,nodes,run_time\n0,1,5\n0,two,5\n' > "$OUT/bad.csv"
"$SIM" -q --slurm-conf "$S/slurm.conf" --csv "$OUT/bad.csv" --out-dir "$OUT/b" 2> "$OUT/err.txt"
[ $? -eq 1 ] || fail "bad trace exit code"
grep -q "bad.csv:3: nodes=two: expected a whole number" "$OUT/err.txt" || fail "bad trace message: $(cat "$OUT/err.txt")"
# ... or skipped with a count
"$SIM" -q --skip-bad-lines --slurm-conf "$S/slurm.conf" --csv "$OUT/bad.csv" \
	--out-dir "$OUT/b" 2> "$OUT/err.txt" || fail "skip run"
grep -q "skipped 1 malformed line" "$OUT/err.txt" || fail "skip message"
grep -q '"trace_bad_lines_skipped": 1,' "$OUT/b/summary.json" || fail "skip count"

# usage errors: exit 2
"$SIM" --csv "$S/jobs.csv" 2>/dev/null; [ $? -eq 2 ] || fail "missing --slurm-conf"
"$SIM" --slurm-conf "$S/slurm.conf" --csv "$S/jobs.csv" --policy lifo 2>/dev/null
[ $? -eq 2 ] || fail "bad policy"
"$SIM" --slurm-conf "$S/slurm.conf" --csv "$S/jobs.csv" --start-time 0 2>/dev/null
[ $? -eq 2 ] || fail "--start-time with a CSV trace"
echo "PASS: fairway-sim command line"
