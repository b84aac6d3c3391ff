#!/bin/bash
# README command 2: on a fresh Debian 12 machine, install everything, build,
# and run the whole test suite (unit tests plain and under ASan/UBSan, a
# short fuzzing run of every parser, then live-cluster tests on real
# slurmctld/slurmd daemons).  .ci/run calls this.
#   contrib/fairway-test.sh [live-test-name ...]
set -u
source "$(dirname "$0")/build.sh"
fw_prepare
# Both plugins compiled with -Werror against every supported Slurm release
# (22.05.8 and the header trees of 23.02-26.05; contrib/compile-check.sh).
step "compile checks (Slurm 22.05 .. 26.05)" "$LOGDIR/compile-check.log" \
  bash "$top/contrib/compile-check.sh"
sed -n 's/^  \([0-9]\)/    \1/p' "$LOGDIR/compile-check.log"
step "unit tests (Check, plain + ASan/UBSan)" "$LOGDIR/unit.log" make -C "$top" -j2 check
# Every parser fuzzed briefly (FW_FUZZ_SECONDS per target, default 60);
# executions per target are printed from its log.
step "fuzzing (libFuzzer, testsuite/fuzz)" "$LOGDIR/fuzz.log" \
  env FW_FUZZ_DIR="$top/_logs/fuzz" bash "$top/testsuite/fuzz/run.sh"
sed -n '/^target /,$p' "$LOGDIR/fuzz.log" | sed 's/^/    /'
export FW_LIVE_DIR=${FW_LIVE_DIR:-$top/_logs/live}
echo "==> live-cluster tests (logs in $FW_LIVE_DIR)"
if ! bash "$top/testsuite/live/run.sh" "$@"; then
  echo "--- live-cluster tests failed; see $FW_LIVE_DIR" >&2
  exit 1
fi
echo "==> all tests passed"
