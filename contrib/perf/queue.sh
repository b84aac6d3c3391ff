#!/bin/bash
# Deterministic benchmark queue for the scale rig (doc/performance.md).
#
#   contrib/perf/queue.sh list   --jobs N [--seed S] [--max-nodes M] [--shared]
#                               [--preempt] [--gpus]
#       prints "nodes limit_min run_s" per job (same seed -> same queue);
#       with --shared "nodes tasks cpus_per_task mem_mb limit_min run_s"
#   contrib/perf/queue.sh submit --jobs N [--seed S] [--max-nodes M] [--dir D]
#                               [--submitter BIN] [--shared]
#       submits them with sbatch (SLURM_CONF and, for a front-end cluster,
#       LD_LIBRARY_PATH from the cluster's env file), one after the other so
#       job ids and priorities follow the list; with --submitter, through
#       that build of contrib/perf/submit.c instead (same jobs, one process:
#       ~300 jobs/s instead of ~90).
#   contrib/perf/queue.sh fill --nodes N --cpus C [--dir D] [--submitter BIN]
#       (preemption rig) N scavenger jobs of one node and C CPUs each in
#       partition scav, named "fill", 120 min limit, sleeping 7,000 s:
#       they fill N nodes of C CPUs; prints "1 C 1 0 120 7000 scav fill"
#       per job with list-fill instead of fill.
#
# Jobs: exclusive batch jobs, node counts log-uniform in 1..M (M=128: as
# many 1-node as 64..128-node jobs per doubling), time limits uniform in
# 10..120 min, run times 50-95 % of the limit (sleep).
#
# --shared (nodes of 64 CPUs and 256 GB, CR_Core_Memory, DefMemPerCPU):
# jobs share nodes; none is --exclusive.  Per job, one of
#   45 %  tasks:    -n T (T log-uniform in 1..64), 1 CPU each, default memory
#   20 %  threads:  -n 1 -c C (C in 2, 4, 8, 16, 32), default memory
#   15 %  memory:   -n T (1..4) --mem M (M uniform in 32..240 GB): memory, not
#                   CPUs, limits how many share a node
#   20 %  multi-node: -N K (log-uniform in 2..M, M = --max-nodes, default 32)
#                   --ntasks-per-node P (P in 16, 32, 64), default memory
# time limits uniform in 5..60 min, run times 30-95 % of the limit, so
# jobs end (from 90 s on) and the schedulers have holes to fill.
#
# --preempt (with --shared): the same jobs, each in partition owner (40 %,
# may preempt scav under preempt/partition_prio) or scav (60 %), drawn
# from a second generator so the shapes are those of --shared's queue.
#
# --gpus (with --shared; for clusters where some nodes have 4 GPUs):
# 8 % of the jobs become GPU jobs, drawn from a third generator (the
# other jobs stay those of --shared's queue): 1 node (80 %) or 2, 1-8
# tasks per node, 1-4 GPUs per node (--gpus-per-node), no --mem (60 %)
# or 16-128 GB per node; limit and run time of the job they replace.
# Their lines end in "gpus=G".
set -euo pipefail

mode=${1:-}; shift || true
jobs=5000; seed=1; maxn=""; dir=/tmp; submitter=""; shared=0; preempt=0
gpus=0
fill_nodes=0; fill_cpus=64
while [ $# -gt 0 ]; do
  case "$1" in
    --jobs) jobs=$2; shift 2;;
    --seed) seed=$2; shift 2;;
    --max-nodes) maxn=$2; shift 2;;
    --dir) dir=$2; shift 2;;
    --submitter) submitter=$2; shift 2;;
    --shared) shared=1; shift;;
    --preempt) preempt=1; shared=1; shift;;
    --gpus) gpus=1; shared=1; shift;;
    --nodes) fill_nodes=$2; shift 2;;
    --cpus) fill_cpus=$2; shift 2;;
    *) echo "queue.sh: unknown option $1" >&2; exit 2;;
  esac
done

# A 31-bit LCG (glibc's constants) in awk: portable and the same on every
# machine, unlike awk's rand().
list_whole() {
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
list_shared() {
  awk -v n="$jobs" -v seed="$seed" -v maxn="$maxn" '
    function rnd() { s = (s * 1103515245 + 12345) % 2147483648; return s / 2147483648 }
    BEGIN {
      s = seed; lg = log(maxn / 2) / log(2)
      for (i = 0; i < n; i++) {
        k = rnd(); nodes = 1; cpt = 1; mem = 0
        if (k < 0.45) {
          tasks = int(2 ^ (rnd() * 6) + 0.5)
        } else if (k < 0.65) {
          tasks = 1; cpt = 2 ^ (1 + int(rnd() * 5))
        } else if (k < 0.80) {
          tasks = 1 + int(rnd() * 4); mem = 1024 * (32 + int(rnd() * 209))
        } else {
          nodes = int(2 ^ (1 + rnd() * lg) + 0.5)
          tasks = nodes * 2 ^ (4 + int(rnd() * 3))
        }
        limit = 5 + int(rnd() * 56)
        run = int(limit * 60 * (0.30 + 0.65 * rnd()))
        print nodes, tasks, cpt, mem, limit, run
      }
    }'
}
# --preempt: a partition per job from its own generator (seed + 7777).
add_partitions() {
  awk -v seed="$seed" '
    function rnd() { s = (s * 1103515245 + 12345) % 2147483648; return s / 2147483648 }
    BEGIN { s = seed + 7777 }
    { print $0, (rnd() < 0.40 ? "owner" : "scav") }'
}
# --gpus: 8 % GPU jobs from their own generator (seed + 4242).
add_gpus() {
  awk -v seed="$seed" '
    function rnd() { s = (s * 1103515245 + 12345) % 2147483648; return s / 2147483648 }
    BEGIN { s = seed + 4242 }
    {
      if (rnd() >= 0.08) { print; next }
      nodes = rnd() < 0.80 ? 1 : 2
      tasks = nodes * (1 + int(rnd() * 8))
      mem = rnd() < 0.60 ? 0 : 1024 * (16 + int(rnd() * 113))
      g = 1 + int(rnd() * 4)
      $1 = nodes; $2 = tasks; $3 = 1; $4 = mem
      print $0, "gpus=" g
    }'
}
list() {
  local l=list_whole
  [ "$shared" = 0 ] || l=list_shared
  if [ "$preempt" = 1 ]; then $l | add_partitions; else $l; fi |
    if [ "$gpus" = 1 ]; then add_gpus; else cat; fi
}
list_fill() {
  awk -v n="$fill_nodes" -v c="$fill_cpus" \
    'BEGIN { for (i = 0; i < n; i++) print 1, c, 1, 0, 120, 7000, "scav", "fill" }'
}

[ -n "$maxn" ] || { [ "$shared" = 1 ] && maxn=32 || maxn=128; }

case "$mode" in
  list) list;;
  list-fill) list_fill;;
  fill)
    [ -n "${SLURM_CONF:-}" ] || { echo "queue.sh: SLURM_CONF not set (source the cluster's env)" >&2; exit 1; }
    if [ -n "$submitter" ]; then
      list_fill | "$submitter" "$dir" >/dev/null
      exit
    fi
    list_fill | while read -r _ tasks _ _ limit run part name; do
      sbatch -Q -N 1 -n "$tasks" -p "$part" -t "$limit" -D "$dir" -o /dev/null \
        -J "$name" --wrap "sleep $run" >/dev/null
    done;;
  submit)
    [ -n "${SLURM_CONF:-}" ] || { echo "queue.sh: SLURM_CONF not set (source the cluster's env)" >&2; exit 1; }
    if [ -n "$submitter" ]; then
      list | "$submitter" "$dir" >/dev/null
      exit
    fi
    if [ "$shared" = 1 ]; then
      list | while read -r nodes tasks cpt mem limit run part g; do
        case "$part" in gpus=*) g=$part; part="";; esac
        sbatch -Q -N "$nodes" -n "$tasks" -c "$cpt" \
          $( [ -z "$part" ] || echo "-p $part" ) \
          $( [ -z "$g" ] || echo "--gpus-per-node=${g#gpus=}" ) \
          $( [ "$mem" = 0 ] || echo "--mem=$mem" ) \
          $( [ "$nodes" = 1 ] || echo "--ntasks-per-node=$((tasks / nodes))" ) \
          -t "$limit" -D "$dir" -o /dev/null -J "q$nodes" --wrap "sleep $run" >/dev/null
      done
      exit
    fi
    list | while read -r nodes limit run; do
      sbatch -Q --exclusive -N "$nodes" -t "$limit" -D "$dir" -o /dev/null \
        -J "q$nodes" --wrap "sleep $run" >/dev/null
    done;;
  *) sed -n '2,45p' "$0" >&2; exit 2;;
esac
