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

# Tests that cannot run on Debian 13 yet, with the reason (run them anyway
# by naming them, or with FW_TRIXIE_ALL=1).  Debian 13's slurmdbd 24.11.5
# exits at start against Debian 13's MariaDB 11.8.9: "mysql_query failed:
# 5027 Number of columns in result (=1) set execeeds maxmimum allowed number
# of columns (=0)" for "select @var := concat('')" in
# _check_mysql_concat_is_sane (the same query works in the mariadb client).
blocked="test_prio_dbd test_prio_limits test_prio_preset"
tests=("$@")
if [ ${#tests[@]} = 0 ]; then
  for t in $(cd "$top/testsuite/live" && ls test_*.sh); do
    t=${t%.sh}
    if [ "${FW_TRIXIE_ALL:-0}" != 1 ] && [[ " $blocked " == *" $t "* ]]; then
      echo "    SKIP $t: needs slurmdbd, which fails to start with Debian 13's MariaDB (see contrib/trixie-test.sh)"
      continue
    fi
    tests+=("$t")
  done
fi

live_dir=/tmp/fairway-live-24.11
echo "==> live-cluster tests on Slurm 24.11 (logs in $ROOT$live_dir)"
chroot "$ROOT" env FW_LIVE_DIR="$live_dir" FW_PORT_OFFSET="${FW_PORT_OFFSET:-0}" \
  bash /build/fairway/testsuite/live/run.sh "${tests[@]}"
