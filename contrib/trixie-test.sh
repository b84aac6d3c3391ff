#!/bin/bash
# Build Fairway against Debian 13's Slurm 24.11 and run live-cluster tests
# on Debian 13's own daemons, inside the Debian 13 root that
# contrib/trixie-root.sh creates (and caches).  Everything runs inside the
# root: Debian 13's binaries need its glibc, and a 22.05 client cannot talk
# to a 24.11 slurmctld.
#
#   contrib/trixie-test.sh [live-test-name ...]     (default: every live test)
# Environment: FW_PORT_OFFSET (as testsuite/live/run.sh), FW_LOGDIR.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
source "$top/contrib/build.sh"

step "Debian 13 root with Slurm 24.11 (cached)" "$LOGDIR/trixie-root.log" \
  bash "$top/contrib/trixie-root.sh"
ROOT=$(tail -n1 "$LOGDIR/trixie-root.log")

# A clean copy of the checkout's files inside the root, built there against
# the root's configured Slurm tree.
export_and_build() {
  rm -rf "$ROOT/build/fairway"; mkdir -p "$ROOT/build/fairway"
  (cd "$top" && git ls-files -z | xargs -0 tar -cf -) | tar -xf - -C "$ROOT/build/fairway" || return 1
  chroot "$ROOT" /bin/bash -c 'cd /build/fairway && autoreconf -fi &&
    ./configure -q --with-slurm-source=/build/slurm && make -j2'
}
step "build Fairway in the root (Slurm 24.11)" "$LOGDIR/trixie-build.log" export_and_build

live_dir=/tmp/fairway-live-24.11
echo "==> live-cluster tests on Slurm 24.11 (logs in $ROOT$live_dir)"
chroot "$ROOT" env FW_LIVE_DIR="$live_dir" FW_PORT_OFFSET="${FW_PORT_OFFSET:-0}" \
  bash /build/fairway/testsuite/live/run.sh "$@"
