#!/bin/bash
# Deterministic benchmark queue for the scale rig (doc/performance.md).
#
#   contrib/perf/queue.sh list   --jobs N [--seed S] [--max-nodes M]
#       prints "nodes limit_min run_s" per job (same seed -> same queue)
#   contrib/perf/queue.sh submit --jobs N [--seed S] [--max-nodes M] [--dir D]
#                               [--submitter BIN]
#       submits them with sbatch (SLURM_CONF and, for a front-end cluster,
#       LD_LIBRARY_PATH from the cluster's env file), one after the other so
#       job ids and priorities follow the list; with --submitter, through
#       that build of contrib/perf/submit.c instead (same jobs, one process:
#       ~300 jobs/s instead of ~90).
#
# Jobs: exclusive batch jobs, node counts log-uniform in 1..M (M=128: as
# many 1-node as 64..128-node jobs per doubling), time limits uniform in
# 10..120 min, run times 50-95 % of the limit (sleep).
set -euo pipefail

mode=${1:-}; shift || true
jobs=5000; seed=1; maxn=128; dir=/tmp; submitter=""
while [ $# -gt 0 ]; do
  case "$1" in
    --jobs) jobs=$2; shift 2;;
    --seed) seed=$2; shift 2;;
    --max-nodes) maxn=$2; shift 2;;
    --dir) dir=$2; shift 2;;
    --submitter) submitter=$2; shift 2;;
    *) echo "queue.sh: unknown option $1" >&2; exit 2;;
  esac
done

# A 31-bit LCG (glibc's constants) in awk: portable and the same on every
# machine, unlike awk's rand().
list() {
  awk -v n="$jobs" -v seed="$seed" -v maxn="$maxn" '
    function rnd() { s = (s * 1103515245 + 12345) % 2147483648; return s / 2147483648 }
    BEGIN {
      s = seed; lg = log(maxn) / log(2)
      for (i = 0; i < n; i++) {
        nodes = int(2 ^ (rnd() * lg) + 0.5)
        limit = 10 + int(rnd() * 111)
        run = int(limit * 60 * (0.50 + 0.45 * rnd()))
        print nodes, limit, run
      }
    }'
}

case "$mode" in
  list) list;;
  submit)
    [ -n "${SLURM_CONF:-}" ] || { echo "queue.sh: SLURM_CONF not set (source the cluster's env)" >&2; exit 1; }
    if [ -n "$submitter" ]; then
      list | "$submitter" "$dir" >/dev/null
      exit
    fi
    list | while read -r nodes limit run; do
      sbatch -Q --exclusive -N "$nodes" -t "$limit" -D "$dir" -o /dev/null \
        -J "q$nodes" --wrap "sleep $run" >/dev/null
    done;;
  *) sed -n '2,18p' "$0" >&2; exit 2;;
esac
