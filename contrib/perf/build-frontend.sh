#!/bin/bash
# Build the front-end slurmctld and libslurmfull.so used by the scale rig
# (doc/performance.md): one front-end slurmd then serves thousands of nodes.
#
#   contrib/perf/build-frontend.sh [--print-dir]
#
# - fetches a second copy of Debian's slurm-wlm source (same version as the
#   installed slurmctld) into $FAIRWAY_CACHE/slurm-fe-2 (never touches the
#   normal tree $FAIRWAY_CACHE/slurm used by the plugin build);
# - applies step_mgr-frontend-batch-bitmap.patch (front-end slurmctld crashes
#   when the first batch job ends without it) and
#   node_mgr-frontend-gres-index.patch (it crashes when the front end
#   registers with more running jobs than there are nodes);
# - configures with --enable-front-end and builds only src/common, src/api
#   (libslurmfull.so) and src/slurmctld (a few minutes on 2 cores);
# - installs Debian's slurm-wlm-emulator (front-end slurmd/slurmstepd) and
#   puts the slurmctld/slurmd/slurmstepd alternatives back to the normal
#   binaries, so the rest of the test suite is unaffected.
# Prints the tree on its last line.  Cached: a finished tree is reused.
# Environment: FAIRWAY_CACHE (default: $HOME/.cache/fairway)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
CACHE=${FAIRWAY_CACHE:-${HOME:-/root}/.cache/fairway}
# A tree of its own for each patch set: a tree built with fewer patches
# (another checkout's script) stays as it is.
dest="$CACHE/slurm-fe-2"
patch_files="$here/step_mgr-frontend-batch-bitmap.patch $here/node_mgr-frontend-gres-index.patch"
log() { echo "build-frontend: $*" >&2; }
die() { echo "build-frontend: ERROR: $*" >&2; exit 1; }

binver=$(dpkg-query -W -f='${Version}' slurmctld 2>/dev/null || true)
[ -n "$binver" ] || die "slurmctld is not installed; run contrib/install-deps.sh first"

fe_tree() { find "$dest" -mindepth 1 -maxdepth 1 -type d -name 'slurm*' | head -n1; }
if [ "${1:-}" = "--print-dir" ]; then fe_tree; exit 0; fi

# ---- emulator binaries, alternatives restored -----------------------------
# slurm-wlm-emulator raises the priority of its alternatives: /usr/sbin/slurmctld
# etc. would become the emulator.  Everything in Fairway names slurmctld-wlm /
# slurmd-wlm explicitly, but put the links back anyway.
restore_alternatives() {
  local n
  for n in slurmctld slurmd slurmstepd; do
    if update-alternatives --list "$n" >/dev/null 2>&1 && [ -x "/usr/sbin/$n-wlm" ]; then
      update-alternatives --quiet --set "$n" "/usr/sbin/$n-wlm"
    fi
  done
}
if ! command -v slurmd-wlm-emulator >/dev/null; then
  before=$(readlink -f /usr/sbin/slurmctld || true)
  log "installing slurm-wlm-emulator (front-end slurmd/slurmstepd)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    -o Dpkg::Options::=--force-confold slurm-wlm-emulator > "$CACHE/emulator-install.log" 2>&1 \
    || die "apt-get install slurm-wlm-emulator failed; log: $CACHE/emulator-install.log"
  restore_alternatives
  after=$(readlink -f /usr/sbin/slurmctld || true)
  [ "$before" = "$after" ] || die "/usr/sbin/slurmctld was $before, now $after"
fi
restore_alternatives
[ "$(readlink -f /usr/sbin/slurmctld)" = /usr/sbin/slurmctld-wlm ] \
  || die "/usr/sbin/slurmctld does not point to slurmctld-wlm"

# ---- source tree ------------------------------------------------------------
if [ -f "$dest/.fairway-fe-built" ] && [ "$(cat "$dest/.fairway-fe-built")" = "$binver" ]; then
  log "cached front-end build for $binver"
  fe_tree
  exit 0
fi
rm -rf "$dest"; mkdir -p "$dest"
cd "$dest"
log "apt-get source slurm-wlm=$binver into $dest"
apt-get source -qq "slurm-wlm=$binver" > apt-source.log 2>&1 \
  || die "apt-get source failed (needs a deb-src entry; see contrib/install-deps.sh); log: $dest/apt-source.log"
tree=$(fe_tree)
[ -n "$tree" ] || die "no source directory unpacked in $dest"
cd "$tree"
for p in $patch_files; do
  patch -p1 < "$p" >> fe-patch.log || die "patch $p failed; log: $tree/fe-patch.log"
done
# dpkg-source's patches are newer than configure: make would rerun autotools.
for f in configure.ac auxdir/*.m4 aclocal.m4 $(find . -name Makefile.am) $(find . -name Makefile.in); do
  touch -r configure "$f"
done
log "configuring with --enable-front-end (log: $tree/fe-configure.log)"
./configure --sysconfdir=/etc/slurm --with-munge --disable-debug \
  --enable-front-end --prefix=/usr --libdir=/usr/lib/x86_64-linux-gnu \
  > fe-configure.log 2>&1 || die "configure failed; log: $tree/fe-configure.log"
grep -q '^#define HAVE_FRONT_END 1' config.h || die "config.h lacks HAVE_FRONT_END"
pkglib=/usr/lib/x86_64-linux-gnu/slurm-wlm
log "building src/common src/api src/slurmctld (-j2; log: $tree/fe-make.log)"
for d in src/common src/api src/slurmctld; do
  make -j2 -C "$d" pkglibdir="$pkglib" >> fe-make.log 2>&1 || die "make -C $d failed; log: $tree/fe-make.log"
done
[ -f src/api/.libs/libslurmfull.so ] || die "src/api/.libs/libslurmfull.so not built"
[ -x src/slurmctld/.libs/slurmctld ] || [ -x src/slurmctld/slurmctld ] || die "slurmctld not built"
echo "$binver" > "$dest/.fairway-fe-built"
log "ready"
echo "$tree"
