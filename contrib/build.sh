#!/bin/bash
# Steps shared by the two README commands: install packages, prepare the
# matching Slurm source tree, build Fairway.  Idempotent.  Sourced by
# contrib/fairway-test.sh and contrib/fairway-demo.sh.
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LOGDIR=${FW_LOGDIR:-$top/_logs}
mkdir -p "$LOGDIR"

# step NAME LOGFILE command... : run, print progress, on failure name the
# step and its log and stop.
step() {
  local name=$1 log=$2; shift 2
  local t0=$SECONDS
  printf '==> %-40s' "$name"
  if "$@" > "$log" 2>&1; then
    echo "done ($((SECONDS - t0)) s)"
  else
    echo "FAILED"
    echo "--- step '$name' failed; last lines of $log:" >&2
    tail -25 "$log" >&2
    echo "--- full log: $log" >&2
    exit 1
  fi
}

configure_and_build() {
  cd "$top" || return 1
  if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
    autoreconf -fi || return 1
  fi
  if [ ! -f Makefile ] || [ configure -nt config.status ]; then
    ./configure -q || return 1
  fi
  make -j2
}

fw_prepare() {
  if [ "$(id -u)" != 0 ]; then
    echo "run as root: packages are installed with apt and the local cluster runs slurmd" >&2
    exit 1
  fi
  step "install Debian packages" "$LOGDIR/install-deps.log" bash "$top/contrib/install-deps.sh"
  step "prepare Slurm source tree" "$LOGDIR/slurm-source.log" bash "$top/contrib/slurm-source.sh"
  step "configure and build Fairway" "$LOGDIR/build.log" configure_and_build
}
