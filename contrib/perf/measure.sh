#!/bin/bash
# Scale rig: the same deterministic queue under several schedulers in the
# same front-end slurmctld build, one after the other (doc/performance.md).
#
#   contrib/perf/measure.sh [options]
#     --nodes N        nodes behind the one front-end slurmd (default 2000)
#     --jobs J         queued jobs (default 5000)
#     --duration S     seconds measured after the queue is released (default 240)
#     --scheds LIST    space-separated, run in this order (default
#                      "backfill-full backfill fairway"):
#                        backfill-full  sched/backfill, bf_max_job_test and
#                                       bf_max_time covering the whole queue,
#                                       bf_continue (else every submission
#                                       during a lock yield ends the cycle)
#                        backfill       sched/backfill with its defaults
#                        fairway        sched/fairway (whole queue always)
#                        fairway-easy   the same with ReservationDepth=easy
#                                       in fairway.conf (one reservation per
#                                       partition, the rest estimated)
#     --window MIN     bf_window for backfill-full and fairway (default 10080;
#                      the queue's time limits need ~3 days at 2000 nodes)
#     --port P         SlurmctldPort (default 23000; slurmd P+1)
#     --out DIR        results (default /tmp/perf-rig/<nodes>x<jobs>)
#     --seed S         queue seed (default 1)
#     --max-nodes M    largest job (default 128)
#     --perf           perf record -g slurmctld while cycles run (fairway only)
#     --shared         shared-node mode: nodes of --cpus 64 and --mem 262144
#                      MB, SelectTypeParameters=CR_Core_Memory, DefMemPerCPU
#                      =4000, the queue of queue.sh --shared (sub-node jobs:
#                      -n/-c/--mem, some multi-node; --max-nodes default 32)
#     --cpus C, --mem MB  node size (shared mode; defaults above)
#     --preempt        preemption (implies --shared): PreemptType=
#                      preempt/partition_prio, PreemptMode=REQUEUE, partitions
#                      scav (PriorityTier=1) and owner (PriorityTier=10) on
#                      all nodes.  Before the queue, every node is filled by
#                      one scavenger job of --cpus CPUs (queue.sh fill: named
#                      "fill", 120 min); once they run, the queue of
#                      queue.sh --preempt (40 % owner jobs, which may preempt
#                      them, 60 % scav) is submitted and released.  OUT/
#                      preempt.md gets a row per scheduler: fill jobs running
#                      at the release, requeued preemptions (slurmctld log),
#                      owner and scav jobs started.
#     --gpus G         (implies --shared) the last G nodes get 4 GPUs each
#                      (Gres=gpu:a100:4, GresTypes=gpu, by count: the
#                      front-end slurmd reports no devices) and the queue
#                      is queue.sh --gpus (8 % of the jobs ask for 1-4 GPUs
#                      per node with --gpus-per-node)
#     --gpu-weight W   with --gpus: the GPU nodes get Weight=W (others 1), so
#                      both schedulers' select plugin takes them last
#     --plugins DIR    directory of sched_fairway.so (default <top>/plugins)
#
# For each scheduler: start a front-end cluster (contrib/cluster-start.sh
# --frontend), set the partition DOWN, submit the queue (queue.sh), set it
# UP (time 0: every scheduler sees the same queue at once), then for
# --duration seconds time squeue (whole queue) and sbatch (a held 1-node
# job, never started) in turn, twice a second, take sdiag, and every 5 s
# the allocated CPUs (sinfo %C: utilisation.txt).  After the run, the
# slurmctld log is searched for starts sched/fairway decided and
# select_nodes() refused ("start of ... refused by select_nodes()").  The
# cluster is stopped by PID after each run and on any failure.
# Prints and appends one table row per scheduler to OUT/results.md.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
nodes=2000; jobs=5000; duration=240; scheds="backfill-full backfill fairway"
window=10080; port=23000; out=""; seed=1; use_perf=0; maxn=""
shared=0; cpus=64; mem=262144; plugins=""; preempt=0; gpus=0; gpu_weight=""
while [ $# -gt 0 ]; do
  case "$1" in
    --nodes) nodes=$2; shift 2;;
    --jobs) jobs=$2; shift 2;;
    --duration) duration=$2; shift 2;;
    --scheds) scheds=$2; shift 2;;
    --window) window=$2; shift 2;;
    --port) port=$2; shift 2;;
    --out) out=$2; shift 2;;
    --seed) seed=$2; shift 2;;
    --max-nodes) maxn=$2; shift 2;;
    --perf) use_perf=1; shift;;
    --shared) shared=1; shift;;
    --preempt) preempt=1; shared=1; shift;;
    --gpus) gpus=$2; shared=1; shift 2;;
    --gpu-weight) gpu_weight=$2; shift 2;;
    --cpus) cpus=$2; shift 2;;
    --mem) mem=$2; shift 2;;
    --plugins) plugins=$2; shift 2;;
    -h|--help) sed -n '2,61p' "$0"; exit 0;;
    *) echo "measure.sh: unknown option $1" >&2; exit 2;;
  esac
done
[ -n "$maxn" ] || { [ "$shared" = 1 ] && maxn=32 || maxn=128; }
[ -n "$plugins" ] || plugins="$top/plugins"
[ -n "$out" ] || out=/tmp/perf-rig/${nodes}x$jobs$([ "$shared" = 1 ] && echo -shared)$([ "$preempt" = 1 ] && echo -preempt)$([ "$gpus" = 0 ] || echo -gpus)
mkdir -p "$out"
log() { echo "[$(date +%T)] measure: $*" >&2; }
die() { echo "measure: ERROR: $*" >&2; exit 1; }
[[ "$gpus" =~ ^[0-9]+$ ]] && [ "$gpus" -le "$nodes" ] || die "--gpus wants 0..$nodes nodes, got '$gpus'"
# One run per output directory: a second one would remove the first's
# cluster directory (munge socket included) under its running daemons.
# The daemons do not inherit the lock (9>&- where the cluster starts).
exec 9> "$out/.lock"
flock -n 9 || die "another measure.sh is using $out"

# Every running job is a slurmstepd, a shell and a sleep under the one
# front-end slurmd (about 1.8 MB together): a shared cluster of thousands
# of nodes runs thousands at once, past the default kernel.pid_max of
# 32768 (slurmctld then dies in pthread_create; doc/performance.md).
pidmax=$(cat /proc/sys/kernel/pid_max 2>/dev/null || echo 0)
if [ "$shared" = 1 ] && [ "$nodes" -ge 5000 ] && [ "$pidmax" -lt 1000000 ]; then
  die "kernel.pid_max is $pidmax: with --shared on $nodes nodes thousands of jobs run at once; sysctl -w kernel.pid_max=4194304 first"
fi

fe=$(bash "$here/build-frontend.sh" | tail -n1)
[ -d "$fe" ] || die "front-end build missing"
[ -f "$plugins/sched_fairway.so" ] || die "build the plugins first (make)"
# The queue goes in through one process (contrib/perf/submit.c), linked
# against libslurm: the front-end build's copy is found via LD_LIBRARY_PATH.
submitter="$out/submit"
gcc -O2 -Wall -Wextra -Werror -o "$submitter" "$here/submit.c" -lslurm \
  || die "cannot build $here/submit.c (libslurm-dev)"

cdir=""
stop_cluster() {
  [ -n "$cdir" ] || return 0
  bash "$top/contrib/cluster-stop.sh" --dir "$cdir" >/dev/null 2>&1 || true
  cdir=""
}
sampler_pid=""; perf_pid=""; watch_pid=""; util_pid=""
cleanup() {
  [ -n "$sampler_pid" ] && kill "$sampler_pid" 2>/dev/null
  [ -n "$util_pid" ] && kill "$util_pid" 2>/dev/null
  [ -n "$watch_pid" ] && kill "$watch_pid" 2>/dev/null
  [ -n "$perf_pid" ] && kill -INT "$perf_pid" 2>/dev/null && wait "$perf_pid" 2>/dev/null
  stop_cluster
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# slurm.conf lines for one scheduler (appended through --slurm-extra).
sched_conf() {
  local maxjobs=$((jobs * 2 + 20000))
  echo "PriorityType=priority/basic"
  echo "MaxJobCount=$maxjobs"
  echo "MinJobAge=600"
  echo "SlurmctldTimeout=300"
  if [ "$shared" = 1 ]; then
    echo "SelectTypeParameters=CR_Core_Memory"
    echo "DefMemPerCPU=4000"
  fi
  if [ "$preempt" = 1 ]; then
    # Jobs of a higher PriorityTier partition preempt (requeue) jobs of a
    # lower one on the same nodes (Slurm's preempt/partition_prio).
    echo "PreemptType=preempt/partition_prio"
    echo "PreemptMode=REQUEUE"
    echo "PartitionName=scav Nodes=n[1-$nodes] MaxTime=INFINITE State=UP PriorityTier=1 PreemptMode=REQUEUE"
    echo "PartitionName=owner Nodes=n[1-$nodes] MaxTime=INFINITE State=UP PriorityTier=10"
  fi
  case "$1" in
    backfill-full)
      echo "SchedulerType=sched/backfill"
      echo "SchedulerParameters=bf_max_job_test=$((jobs + 1000)),bf_max_time=3600,bf_continue,bf_window=$window";;
    backfill)
      echo "SchedulerType=sched/backfill"
      echo "SchedulerParameters=bf_interval=30";;  # = the default
    fairway|fairway-easy)
      echo "SchedulerType=sched/fairway"
      echo "SchedulerParameters=sched_interval=-1,defer,bf_window=$window";;
    *) die "unknown scheduler $1";;
  esac
}

# usec timestamps
now_us() { date +%s%6N; }

# Time squeue (whole queue), sbatch (held job) and squeue of that one job
# until $1 (epoch s).  The whole-queue squeue grows with the queue on the
# client side too (50,000 jobs: ~1 s to receive and print); the one-job
# squeue is the controller's responsiveness (a job read lock).
sample_latency() {
  local until=$1 f=$2 t0 t1 t2 t3 id
  : > "$f"
  while [ "$(date +%s)" -lt "$until" ]; do
    t0=$(now_us)
    squeue -h -o %i > /dev/null 2>&1 || true
    t1=$(now_us)
    id=$(sbatch --parsable -Q -H -N 1 -t 1 -D /tmp -o /dev/null -J lat --wrap true 2>/dev/null) || id=1
    t2=$(now_us)
    squeue -h -j "${id%%;*}" -o %i > /dev/null 2>&1 || true
    t3=$(now_us)
    echo "$((t1 - t0)) $((t2 - t1)) $((t3 - t2))" >> "$f"
    sleep 0.5
  done
}

# One line per finished backfill cycle (sdiag every 2 s): time since the
# queue was released, cycle count, last cycle (us), depth, depth tried.
# For sched/fairway also `fairway stats`' breakdown of that pass
# (cycles-passes.txt).
watch_cycles() {
  local until=$1 t_up=$2 f=$3 sched=$4 seen=0 v
  echo "# s cycles last_us depth depth_try" > "$f"
  while [ "$(date +%s)" -lt "$until" ]; do
    sleep 2
    sdiag > "$f.sdiag" 2>/dev/null || continue
    v=$(sdiag_vals "$f.sdiag" | awk -F= '{a[$1]=$2} END {print a["cycles"]+0, a["last"]+0, a["depth"]+0, a["depth_try"]+0}')
    set -- $v
    if [ "$1" != "$seen" ]; then
      seen=$1
      echo "$(( $(date +%s) - t_up )) $v" >> "$f"
      # sched/fairway: where that pass's time went (fairway(1) stats)
      [ "${sched%-easy}" = fairway ] &&
        "$top/src/cli/fairway" stats 2>/dev/null | sed -n "s/^last backfill pass: /$(( $(date +%s) - t_up )) /p" >> "${f%.txt}-passes.txt"
    fi
  done
  rm -f "$f.sdiag"
}

# Allocated CPUs every 5 s until $1: "s allocated total" (sinfo %C is
# allocated/idle/other/total over the cluster).
watch_util() {
  local until=$1 t_up=$2 f=$3 v
  echo "# s cpus_allocated cpus_total" > "$f"
  while [ "$(date +%s)" -lt "$until" ]; do
    v=$(sinfo -h -o %C 2>/dev/null | awk -F/ 'NR == 1 { print $1, $4 }')
    [ -z "$v" ] || echo "$(( $(date +%s) - t_up )) $v" >> "$f"
    sleep 5
  done
}

# "mean % / % at the end" of utilisation.txt (allocated over total CPUs)
util_summary() {
  awk '!/^#/ && $3 > 0 { n++; sum += $2 / $3; last = $2 / $3 }
    END { if (!n) print "-"; else printf "%.1f %% / %.1f %%", 100 * sum / n, 100 * last }' "$1"
}

# p50 and p99 (ms) of column $2 of file $1
pct() {
  awk -v c="$2" '{print $c}' "$1" | sort -n | awk '
    { v[NR] = $1 }
    END { if (!NR) { print "-"; exit }
          i50 = int(NR * 0.50 + 0.5); if (i50 < 1) i50 = 1
          i99 = int(NR * 0.99 + 0.5); if (i99 < 1) i99 = 1; if (i99 > NR) i99 = NR
          printf "%.0f / %.0f ms (n=%d)", v[i50] / 1000, v[i99] / 1000, NR }'
}

# sdiag backfill block -> "key=value" lines
sdiag_vals() {
  awk '
    /^Jobs started:/ { print "started=" $3 }
    /^Main schedule statistics/ { sec = "main" }
    /^Backfilling stats/ { sec = "bf" }
    /^Latency for/ || /^Remote Procedure Call/ { sec = "" }
    sec == "bf" && /Total backfilled jobs \(since last slurm start\)/ { print "backfilled=" $NF }
    sec == "bf" && /Total cycles:/ { print "cycles=" $NF }
    sec == "bf" && /^\tLast cycle:/ { print "last=" $NF }
    sec == "bf" && /^\tMax cycle:/ { print "max=" $NF }
    sec == "bf" && /^\tMean cycle:/ { print "mean=" $NF }
    sec == "bf" && /^\tLast depth cycle:/ { print "depth=" $NF }
    sec == "bf" && /Last depth cycle \(try sched\)/ { print "depth_try=" $NF }
    sec == "bf" && /Last queue length:/ { print "queue=" $NF }
    sec == "main" && /^\tLast cycle:/ { print "main_last=" $NF }
    sec == "main" && /^\tMean cycle:/ { print "main_mean=" $NF }
  ' "$1"
}
val() { sed -n "s/^$2=//p" "$1" | head -n1; }
sec3() { awk -v u="${1:-0}" 'BEGIN { if (u == "" || u == "N/A") print "-"; else printf "%.3f s", u / 1e6 }'; }

results="$out/results.md"
if [ ! -f "$results" ]; then
  {
    echo "| nodes | jobs | scheduler | cycles | cycle last / mean / max | depth (try) | started | backfilled | pending: StartTime set / in window / none | squeue p50/p99 | sbatch p50/p99 | squeue -j p50/p99 | CPUs allocated mean / end | starts refused |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  } > "$results"
fi

# --preempt: owner and scav DOWN, scav UP for the fill jobs until every
# node runs one, then scav DOWN again so the queue is released at once.
# The wait goes on while the count still grows (at most 20 min, and 2 min
# without a new fill job ends it): on a loaded machine the one front-end
# slurmd takes more than 5 min to spawn 2,000 jobs, and a partial fill is
# not the state being measured.  Prints how many fill jobs run.
fill_nodes() {
  local s=$1 i n=0 last=0 still=0
  scontrol update PartitionName=owner State=DOWN
  log "$s: filling $nodes nodes with scavenger jobs"
  bash "$here/queue.sh" fill --nodes "$nodes" --cpus "$cpus" --dir /tmp --submitter "$submitter"
  for i in $(seq 600); do
    n=$(squeue -h -t R -n fill -o %i | wc -l)
    [ "$n" -ge "$nodes" ] && break
    if [ "$n" -gt "$last" ]; then last=$n; still=0; else still=$((still + 1)); fi
    [ "$still" -ge 60 ] && break
    sleep 2
  done
  [ "$n" -ge "$nodes" ] || log "$s: only $n of $nodes fill jobs run after about $((i * 2)) s (the rows below are not the full state)"
  scontrol update PartitionName=scav State=DOWN
  echo "$n"
}

# --preempt: one row of OUT/preempt.md for scheduler $1 (run dir $2).
preempt_row() {
  local s=$1 rdir=$2 fill=$3 requeued f="$out/preempt.md"
  [ -f "$f" ] || {
    echo "| nodes | jobs | scheduler | fill jobs running at release | preemptions (requeued, slurmctld log) | owner / scav jobs of the queue started |"
    echo "|---|---|---|---|---|---|"
  } > "$f"
  requeued=$(grep -c 'has been requeued to reclaim resources' "$cdir/log/slurmctld.log" || true)
  local ow sc
  ow=$(squeue -h -p owner -t R,CG -o %j | grep -c '^q' || true)
  sc=$(squeue -h -p scav -t R,CG -o %j | grep -c '^q' || true)
  echo "| $nodes | $jobs | $s | $fill | ${requeued:-0} | $ow / $sc (running at the end) |" | tee -a "$f"
}

run_one() {
  local s=$1 rdir="$out/$s" extra ctld t_up until
  rm -rf "$rdir"; mkdir -p "$rdir"
  extra="$rdir/extra.conf"
  sched_conf "$s" > "$extra"
  local fwconf=""
  if [ "$s" = fairway-easy ]; then
    fwconf="$rdir/fairway.conf"
    echo "ReservationDepth=easy" > "$fwconf"
  fi
  cdir="$rdir/cluster"
  # A previous run's daemons may still be shutting down (or another run).
  local i
  for i in $(seq 60); do
    ss -Hltn "( sport = :$port or sport = :$((port + 1)) )" | grep -q . || break
    [ "$i" = 60 ] && die "ports $port/$((port + 1)) still in use after 60 s"
    sleep 1
  done
  log "$s: starting $nodes nodes (front-end) on port $port"
  bash "$top/contrib/cluster-start.sh" 9>&- --dir "$cdir" --name "perf$s" --port "$port" \
    --nodes "$nodes" --plugins "$plugins" --frontend "$fe" --slurm-extra "$extra" \
    ${fwconf:+--fairway-conf "$fwconf"} \
    $([ "$shared" = 1 ] && echo "--cpus $cpus --mem $mem") \
    $([ "$gpus" = 0 ] || echo "--gres $((nodes - gpus + 1))-$nodes:gpu:a100:4") \
    ${gpu_weight:+--gres-weight "$gpu_weight"} \
    > "$rdir/cluster-start.log" 2>&1 || { tail -20 "$rdir/cluster-start.log" >&2; die "cluster did not start; see $cdir/log"; }
  # shellcheck disable=SC1091
  source "$cdir/env"
  ctld=$(awk '$1=="slurmctld"{print $2}' "$cdir/pids")
  scontrol update PartitionName=batch State=DOWN
  local fill_running=-
  [ "$preempt" = 0 ] || fill_running=$(fill_nodes "$s")
  log "$s: submitting $jobs jobs (seed $seed)"
  local t0; t0=$(date +%s)
  bash "$here/queue.sh" submit --jobs "$jobs" --seed "$seed" --max-nodes "$maxn" --dir /tmp \
    --submitter "$submitter" $([ "$shared" = 1 ] && echo --shared) $([ "$preempt" = 1 ] && echo --preempt) \
    $([ "$gpus" = 0 ] || echo --gpus)
  log "$s: submitted in $(( $(date +%s) - t0 )) s; releasing the queue for $duration s"
  sdiag -r > /dev/null
  scontrol update PartitionName=batch State=UP
  if [ "$preempt" = 1 ]; then
    scontrol update PartitionName=scav State=UP
    scontrol update PartitionName=owner State=UP
  fi
  t_up=$(date +%s); until=$((t_up + duration))
  if [ "$use_perf" = 1 ] && [ "${s%-easy}" = fairway ]; then
    perf record -g -F 499 -p "$ctld" -o "$rdir/perf.data" > "$rdir/perf.log" 2>&1 &
    perf_pid=$!
  fi
  watch_cycles "$until" "$t_up" "$rdir/cycles.txt" "$s" &
  watch_pid=$!
  sample_latency "$until" "$rdir/latency.txt" &
  sampler_pid=$!
  watch_util "$until" "$t_up" "$rdir/utilisation.txt" &
  util_pid=$!
  wait "$sampler_pid" || true
  wait "$watch_pid" || true
  wait "$util_pid" || true
  sampler_pid=""; watch_pid=""; util_pid=""
  if [ -n "$perf_pid" ]; then kill -INT "$perf_pid" 2>/dev/null; wait "$perf_pid" 2>/dev/null || true; perf_pid=""; fi
  kill -0 "$ctld" 2>/dev/null || die "slurmctld died during the run; see $cdir/log/slurmctld.log"
  sdiag > "$rdir/sdiag.txt"
  sdiag_vals "$rdir/sdiag.txt" > "$rdir/vals"
  # Pending benchmark jobs (not the held latency probes): StartTime set,
  # inside the window, or none.
  squeue -h -t PD -n "$(seq -f 'q%g' 1 "$((maxn > 128 ? maxn : 128))" | paste -sd,)" -o '%i %S' > "$rdir/pending.txt"
  local wend; wend=$(date -d "@$(( $(date +%s) + window * 60 ))" +%Y-%m-%dT%H:%M:%S)
  read -r pset pwin pnone < <(awk -v wend="$wend" '
    { if ($2 == "N/A") none++; else { set++; if ($2 <= wend) win++ } }
    END { print set + 0, win + 0, none + 0 }' "$rdir/pending.txt")
  local started backfilled
  started=$(val "$rdir/vals" started)
  backfilled=$(val "$rdir/vals" backfilled)
  # Starts sched/fairway decided that select_nodes() refused (sf_pass.c)
  local refused
  refused=-
  [ "${s%-easy}" != fairway ] || refused=$(grep -c 'refused by select_nodes()' "$cdir/log/slurmctld.log" || true)
  local row
  row="| $nodes | $jobs | $s | $(val "$rdir/vals" cycles) | $(sec3 "$(val "$rdir/vals" last)") / $(sec3 "$(val "$rdir/vals" mean)") / $(sec3 "$(val "$rdir/vals" max)") | $(val "$rdir/vals" depth) ($(val "$rdir/vals" depth_try)) | $started | $backfilled | $pset / $pwin / $pnone | $(pct "$rdir/latency.txt" 1) | $(pct "$rdir/latency.txt" 2) | $(pct "$rdir/latency.txt" 3) | $(util_summary "$rdir/utilisation.txt") | ${refused:-0} |"
  echo "$row" >> "$results"
  echo "$row"
  [ "$preempt" = 0 ] || preempt_row "$s" "$rdir" "$fill_running"
  cp "$cdir/log/slurmctld.log" "$rdir/slurmctld.log" 2>/dev/null || true
  log "$s: stopping the cluster"
  stop_cluster
}

for s in $scheds; do run_one "$s"; done
log "results: $results"
