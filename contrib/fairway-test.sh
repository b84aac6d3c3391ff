#!/bin/bash
# README command 2: on a fresh Debian 12 machine, install everything, build,
# and run the whole test suite (unit tests plain and under ASan/UBSan, a
# short fuzzing run of every parser, then live-cluster tests on real
# slurmctld/slurmd daemons, on Debian 12's Slurm 22.05 and then on Debian 13's
# Slurm 24.11 in a Debian 13 root).  .ci/run calls this.
#   contrib/fairway-test.sh [live-test-name ...]
# The Slurm 24.11 stage runs alongside the others (its own daemons in the
# root, its own ports: FW_PORT_OFFSET_24_11, default FW_PORT_OFFSET + 1000);
# its output goes to _logs/slurm-24.11.log and is printed when it ends.
set -u
source "$(dirname "$0")/build.sh"
t_all=$SECONDS

# ---- stages running alongside the main sequence ----------------------------
# bg_start NAME LOG command...: run in a session of its own (so that it can
# be stopped as a whole), output to LOG only.  bg_report prints the output of
# the stages that have ended (called between steps, so that nothing
# interleaves); bg_join waits for all of them.  A failed one names its log
# and makes the run fail.
bg_names=() bg_failed=0
declare -A bg_pid=() bg_log=() bg_t0=() bg_hint=()
bg_start() {
  local name=$1 log=$2; shift 2
  rm -f "$log.exit"
  # LOG.exit (its exit status) appears when it has ended
  setsid bash -c 'f=$1; shift; "$@"; rc=$?; echo $rc > "$f"; exit $rc' bg "$log.exit" "$@" \
    > "$log" 2>&1 < /dev/null &
  bg_pid[$name]=$!; bg_log[$name]=$log; bg_t0[$name]=$(date +%s)
  bg_names+=("$name")
  echo "==> $name: started alongside (output in $log, shown when it ends)"
}
bg_finish() { # NAME: wait for it, print its output and result
  local name=$1 rc
  wait "${bg_pid[$name]}"; rc=$?
  echo "==> $name (ran alongside), its output:"
  sed 's/^/  | /' "${bg_log[$name]}"
  if [ "$rc" = 0 ]; then
    echo "==> $name: $(( $(stat -c %Y "${bg_log[$name]}.exit") - bg_t0[$name] )) s"
  else
    echo "--- $name failed (exit $rc); output: ${bg_log[$name]}${bg_hint[$name]:+; ${bg_hint[$name]}}" >&2
    bg_failed=1
  fi
  unset "bg_pid[$name]"
}
bg_report() { # the stages that have ended
  local name
  for name in "${bg_names[@]}"; do
    [ -n "${bg_pid[$name]:-}" ] && [ -f "${bg_log[$name]}.exit" ] && bg_finish "$name"
  done
  return 0
}
bg_join() {
  local name
  for name in "${bg_names[@]}"; do
    [ -n "${bg_pid[$name]:-}" ] || continue
    [ -f "${bg_log[$name]}.exit" ] || echo "==> waiting for $name"
    bg_finish "$name"
  done
  [ "$bg_failed" = 0 ]
}
# A failed step exits: the stages alongside still end (their clusters are
# stopped by their own tests) and are reported.  Interrupted: they are
# stopped (each test's exit trap stops its cluster).
trap 'rc=$?; bg_join || [ "$rc" != 0 ] || rc=1; exit $rc' EXIT
trap 'for p in "${bg_pid[@]}"; do kill -TERM -- "-$p" 2>/dev/null; done; exit 130' INT TERM

fw_prepare
# The package for 22.05 first: the 24.11 stage checks that Debian 13 refuses it.
step "Debian package for Slurm 22.05 (build)" "$LOGDIR/deb-build.log" \
  bash "$top/contrib/deb-build.sh" "$top/_logs/deb"
deb22=$(tail -n1 "$LOGDIR/deb-build.log")
# Second stage: the same live tests on Debian 13's Slurm 24.11, inside a
# cached Debian 13 root (FW_SKIP_SLURM_24_11=1 leaves it out), alongside the
# 22.05 stages: the live tests mostly wait for jobs.
if [ "${FW_SKIP_SLURM_24_11:-0}" != 1 ]; then
  bg_hint["Slurm 24.11 stage"]="live-test logs under $(bash "$top/contrib/trixie-root.sh" --print-dir)/tmp/fairway-live-24.11-*"
  bg_start "Slurm 24.11 stage" "$LOGDIR/slurm-24.11.log" \
    env FW_PORT_OFFSET="${FW_PORT_OFFSET_24_11:-$(( ${FW_PORT_OFFSET:-0} + 1000 ))}" \
    FW_DEB_OTHER="$deb22" bash "$top/contrib/trixie-test.sh" "$@"
fi
# Both plugins compiled with -Werror against every supported Slurm release
# (22.05.8 and the header trees of 23.02-26.05; contrib/compile-check.sh).
step "compile checks (Slurm 22.05 .. 26.05)" "$LOGDIR/compile-check.log" \
  bash "$top/contrib/compile-check.sh"
sed -n 's/^  \([0-9]\)/    \1/p' "$LOGDIR/compile-check.log"
bg_report
step "unit tests (Check, plain + ASan/UBSan)" "$LOGDIR/unit.log" make -C "$top" -j2 check
# Every parser fuzzed briefly (FW_FUZZ_SECONDS per target, default 20: the suite also runs two Slurm versions and must stay under an hour; the long runs are in doc/reliability.md);
# executions per target are printed from its log.
step "fuzzing (libFuzzer, testsuite/fuzz)" "$LOGDIR/fuzz.log" \
  env FW_FUZZ_DIR="$top/_logs/fuzz" bash "$top/testsuite/fuzz/run.sh"
sed -n '/^target /,$p' "$LOGDIR/fuzz.log" | sed 's/^/    /'
bg_report
export FW_LIVE_DIR=${FW_LIVE_DIR:-$top/_logs/live}
echo "==> live-cluster tests, Slurm 22.05 (logs in $FW_LIVE_DIR)"
t0=$SECONDS
if ! bash "$top/testsuite/live/run.sh" "$@"; then
  echo "--- live-cluster tests failed; see $FW_LIVE_DIR" >&2
  exit 1
fi
echo "==> live-cluster tests, Slurm 22.05: $((SECONDS - t0)) s"
bg_report
# The Debian package for this Slurm: installed, used from PluginDir and
# purged in a fresh Debian 12 root (nothing is installed on this machine).
step "Debian package: install, PluginDir cluster, job, purge (Debian 12)" \
  "$LOGDIR/deb-test-22.05.log" bash "$top/contrib/deb-test.sh" bookworm "$deb22"
# Slurm's own tests, same selection against both plugin sets; fails when a
# test passes with Slurm's plugins only and is not a documented difference
# (testsuite/slurm-pytest/differences.txt).  Table: doc/slurm-testsuite.md.
step "Slurm's pytest suite, Fairway vs Slurm plugins" "$LOGDIR/slurm-pytest.log" \
  env FW_PYTEST_DIR="$top/_logs/slurm-pytest" bash "$top/testsuite/slurm-pytest/run.sh"
grep -E "^(Slurm's|Fairway's) plugins:" "$LOGDIR/slurm-pytest.log" | sed 's/^/    /'
bg_join || exit 1
echo "==> all tests passed ($((SECONDS - t_all)) s)"
