#!/bin/bash
# Build Fairway against Debian 13's Slurm 24.11 and run live-cluster tests
# on Debian 13's own daemons, inside the Debian 13 root that
# contrib/trixie-root.sh creates (and caches).  Everything runs inside the
# root: Debian 13's binaries need its glibc, and a 22.05 client cannot talk
# to a 24.11 slurmctld.
#
#   contrib/trixie-test.sh [live-test-name ...]     (default: every live test)
# Environment: FW_PORT_OFFSET (as testsuite/live/run.sh), FW_LOGDIR;
# FW_SKIP_DEB=1 leaves out the Debian package, FW_SKIP_SLURM_PYTEST=1 Slurm's
# own pytest suite (the last step: testsuite/slurm-pytest/run.sh on 24.11's
# suite, Fairway's plugins against Slurm's; fails on a difference that
# testsuite/slurm-pytest/differences.txt does not list).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
source "$top/contrib/build.sh"

step "Debian 13 root with Slurm 24.11 (cached)" "$LOGDIR/trixie-root.log" \
  bash "$top/contrib/trixie-root.sh"
ROOT=$(tail -n1 "$LOGDIR/trixie-root.log")
# The root may be shared by several checkouts on this machine: each builds
# and runs its tests in its own directories inside it.
id=$(printf '%s' "$top" | md5sum | cut -c1-8)
src=/build/fairway-$id

# A clean copy of the checkout's files inside the root, built there against
# the root's configured Slurm tree.
export_and_build() {
  rm -rf "$ROOT$src"; mkdir -p "$ROOT$src"
  (cd "$top" && git ls-files -z | xargs -0 tar -cf -) | tar -xf - -C "$ROOT$src" || return 1
  chroot "$ROOT" /bin/bash -c "cd $src && autoreconf -fi &&
    ./configure -q --with-slurm-source=/build/slurm && make -j2"
}
step "build Fairway in the root (Slurm 24.11)" "$LOGDIR/trixie-build.log" export_and_build

# Tests that cannot run on Debian 13 yet, with the reason (run them anyway
# by naming them, or with FW_TRIXIE_ALL=1).  None at the moment.
blocked=""
tests=("$@")
if [ ${#tests[@]} = 0 ]; then
  for t in $(cd "$top/testsuite/live" && ls test_*.sh); do
    t=${t%.sh}
    if [ "${FW_TRIXIE_ALL:-0}" != 1 ] && [[ " $blocked " == *" $t "* ]]; then
      echo "    SKIP $t (see contrib/trixie-test.sh)"
      continue
    fi
    tests+=("$t")
  done
fi

live_dir=/tmp/fairway-live-24.11-$id
echo "==> live-cluster tests on Slurm 24.11 (logs in $ROOT$live_dir)"
chroot "$ROOT" env FW_LIVE_DIR="$live_dir" FW_PORT_OFFSET="${FW_PORT_OFFSET:-0}" \
  bash $src/testsuite/live/run.sh "${tests[@]}"
rc=$?

# The Debian package for Slurm 24.11, built in the root, then installed,
# used and purged in a fresh Debian 13 root (FW_DEB_OTHER: a package for
# another Slurm, which dpkg must refuse there).
if [ "${FW_SKIP_DEB:-0}" != 1 ]; then
  step "Debian package for Slurm 24.11 (built in the root)" "$LOGDIR/deb-build-24.11.log" \
    chroot "$ROOT" bash $src/contrib/deb-build.sh /build/deb-$id
  deb="$ROOT$(tail -n1 "$LOGDIR/deb-build-24.11.log")"
  step "Debian package: install, PluginDir cluster, job, purge (Debian 13)" \
    "$LOGDIR/deb-test-24.11.log" bash "$top/contrib/deb-test.sh" trixie "$deb" ${FW_DEB_OTHER:-}
  sed -n 's/^  ok: a package for/    a package for/p' "$LOGDIR/deb-test-24.11.log"
fi

# Slurm 24.11's own pytest suite (testsuite/python of the root's configured
# tree), the same selection as on 22.05 (testsuite/slurm-pytest/*.txt, with
# the [24.11+] entries), against both plugin sets on the same cluster shape.
# Table: doc/slurm-testsuite.md.
if [ "${FW_SKIP_SLURM_PYTEST:-0}" != 1 ]; then
  pytest_dir=/tmp/fairway-slurm-pytest-24.11-$id
  step "Slurm 24.11 pytest suite, both plugins" "$LOGDIR/slurm-pytest-24.11.log" \
    chroot "$ROOT" env FW_PORT_OFFSET="${FW_PORT_OFFSET:-0}" FW_SLURM_SOURCE=/build/slurm \
      FW_PYTEST_DIR="$pytest_dir" bash $src/testsuite/slurm-pytest/run.sh
  grep -E "^(Slurm's|Fairway's) plugins:" "$LOGDIR/slurm-pytest-24.11.log" | sed 's/^/    /'
  echo "    (logs in $ROOT$pytest_dir)"
fi
exit $rc
