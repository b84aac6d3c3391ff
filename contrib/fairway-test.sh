#!/bin/bash
# README command 2: on a fresh Debian 12 machine, install everything, build,
# and run the whole test suite (unit tests plain and under ASan/UBSan, a
# short fuzzing run of every parser, then live-cluster tests on real
# slurmctld/slurmd daemons).  .ci/run calls this.
#   contrib/fairway-test.sh [live-test-name ...]
set -u
source "$(dirname "$0")/build.sh"
fw_prepare
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
# Slurm's own tests, same selection against both plugin sets; fails when a
# test passes with Slurm's plugins only and is not a documented difference
# (testsuite/slurm-pytest/differences.txt).  Table: doc/slurm-testsuite.md.
step "Slurm's pytest suite, Fairway vs Slurm plugins" "$LOGDIR/slurm-pytest.log" \
  env FW_PYTEST_DIR="$top/_logs/slurm-pytest" bash "$top/testsuite/slurm-pytest/run.sh"
grep -E "^(Slurm's|Fairway's) plugins:" "$LOGDIR/slurm-pytest.log" | sed 's/^/    /'
echo "==> all tests passed"
