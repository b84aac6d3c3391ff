#!/bin/bash
# README command 2: on a fresh Debian 12 machine, install everything, build,
# and run the whole test suite (unit tests plain and under ASan/UBSan, a
# short fuzzing run of every parser, then live-cluster tests on real
# slurmctld/slurmd daemons, on Debian 12's Slurm 22.05 and then on Debian 13's
# Slurm 24.11 in a Debian 13 root).  .ci/run calls this.
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
# Every parser fuzzed briefly (FW_FUZZ_SECONDS per target, default 20: the suite also runs two Slurm versions and must stay under an hour; the long runs are in doc/reliability.md);
# executions per target are printed from its log.
step "fuzzing (libFuzzer, testsuite/fuzz)" "$LOGDIR/fuzz.log" \
  env FW_FUZZ_DIR="$top/_logs/fuzz" bash "$top/testsuite/fuzz/run.sh"
sed -n '/^target /,$p' "$LOGDIR/fuzz.log" | sed 's/^/    /'
export FW_LIVE_DIR=${FW_LIVE_DIR:-$top/_logs/live}
echo "==> live-cluster tests, Slurm 22.05 (logs in $FW_LIVE_DIR)"
t0=$SECONDS
if ! bash "$top/testsuite/live/run.sh" "$@"; then
  echo "--- live-cluster tests failed; see $FW_LIVE_DIR" >&2
  exit 1
fi
echo "==> live-cluster tests, Slurm 22.05: $((SECONDS - t0)) s"
# The Debian package for this Slurm: installed, used from PluginDir and
# purged in a fresh Debian 12 root (nothing is installed on this machine).
step "Debian package for Slurm 22.05 (build)" "$LOGDIR/deb-build.log" \
  bash "$top/contrib/deb-build.sh" "$top/_logs/deb"
deb22=$(tail -n1 "$LOGDIR/deb-build.log")
step "Debian package: install, PluginDir cluster, job, purge (Debian 12)" \
  "$LOGDIR/deb-test-22.05.log" bash "$top/contrib/deb-test.sh" bookworm "$deb22"
# Second stage: the same live tests on Debian 13's Slurm 24.11, inside a
# cached Debian 13 root (FW_SKIP_SLURM_24_11=1 leaves it out).
if [ "${FW_SKIP_SLURM_24_11:-0}" != 1 ]; then
  t0=$SECONDS
  if ! FW_DEB_OTHER="$deb22" bash "$top/contrib/trixie-test.sh" "$@"; then
    echo "--- Slurm 24.11 stage failed; logs under $("$top/contrib/trixie-root.sh" --print-dir)/tmp/fairway-live-24.11-*" >&2
    exit 1
  fi
  echo "==> Slurm 24.11 stage (root, build, live tests): $((SECONDS - t0)) s"
fi
# Slurm's own tests, same selection against both plugin sets; fails when a
# test passes with Slurm's plugins only and is not a documented difference
# (testsuite/slurm-pytest/differences.txt).  Table: doc/slurm-testsuite.md.
step "Slurm's pytest suite, Fairway vs Slurm plugins" "$LOGDIR/slurm-pytest.log" \
  env FW_PYTEST_DIR="$top/_logs/slurm-pytest" bash "$top/testsuite/slurm-pytest/run.sh"
grep -E "^(Slurm's|Fairway's) plugins:" "$LOGDIR/slurm-pytest.log" | sed 's/^/    /'
echo "==> all tests passed"
