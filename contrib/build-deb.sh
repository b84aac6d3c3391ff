#!/bin/bash
# Build a Debian package of Fairway for the Slurm installed on this machine
# (or in this root): both plugins into Debian's PluginDir, the fairway
# command, fairway-sim and the man pages.  Run after the build (make).
#
#   contrib/build-deb.sh [OUTDIR]      prints the path of the .deb
#
# Why the Depends pins slurmctld: Slurm's plugin loader refuses a plugin
# whose major.minor.micro differs from the running slurmctld's, so the
# package accepts exactly the upstream release it was built against (any
# Debian revision of it: Debian's patches change no structure, see
# doc/packaging.md) and nothing else.  The package is called
# fairway-slurm; its version says both: 0.1.0+slurm22.05.8.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/_deb}
mkdir -p "$out"
out=$(cd "$out" && pwd)

slurmver=$(dpkg-query -W -f='${Version}' slurmctld 2>/dev/null) || {
  echo "build-deb: slurmctld is not installed here" >&2; exit 1; }
up=${slurmver%%-*}
IFS=. read -r vmaj vmin vmic <<< "$up"
next="$vmaj.$vmin.$((vmic + 1))"
fwver=$(sed -n 's/^AC_INIT(\[fairway\], \[\([^]]*\)\].*/\1/p' "$top/configure.ac")
arch=$(dpkg --print-architecture)
pkg=fairway-slurm
version="$fwver+slurm$up"

[ -f "$top/plugins/sched_fairway.so" ] || {
  echo "build-deb: build Fairway first (make)" >&2; exit 1; }
grep -qx "SLURM_VERSION_STR = $up" "$top/Makefile" || {
  echo "build-deb: this build is not configured for Slurm $up (rerun ./configure)" >&2; exit 1; }

stage=$(mktemp -d)
chmod 755 "$stage"
trap 'rm -rf "$stage"' EXIT
make -s -C "$top" install DESTDIR="$stage" prefix=/usr > "$stage.log" 2>&1 || {
  echo "build-deb: make install failed; see $stage.log" >&2; exit 1; }
rm -f "$stage.log"
find "$stage" -name '*.la' -delete
find "$stage/usr/share/man" -type f -exec gzip -9n {} +
mkdir -p "$stage/usr/share/doc/$pkg"
install -m 644 "$top/README" "$stage/usr/share/doc/$pkg/README"

# Shared libraries the binaries use, as the Debian packages that ship them.
lib_packages() {
  local f lib real p
  for f in "$stage"/usr/bin/* "$stage"/usr/lib/*/slurm-wlm/*.so; do
    ldd "$f" | awk '/=> \//{print $3}'
  done | sort -u | while read -r lib; do
    real=$(readlink -f "$lib")
    p=$(dpkg -S "$real" 2>/dev/null || dpkg -S "${real#/usr}" 2>/dev/null || dpkg -S "$lib" 2>/dev/null || true)
    [ -n "$p" ] && echo "${p%%:*}"
  done | sort -u | paste -sd, | sed 's/,/, /g'
}
libs=$(lib_packages)

mkdir -p "$stage/DEBIAN"
cat > "$stage/DEBIAN/control" <<EOF
Package: $pkg
Version: $version
Architecture: $arch
Maintainer: Fairway developers <root@localhost>
Section: admin
Priority: optional
Depends: slurmctld (>= $up), slurmctld (<< $next~)${libs:+, $libs}
Installed-Size: $(du -sk "$stage/usr" | cut -f1)
Description: Fairway priority and backfill scheduling plugins for Slurm $up
 priority/fairway (a multifactor-style priority plugin) and sched/fairway
 (main and whole-queue backfill passes with reservation thresholds), built
 for Slurm $up exactly, installed into Slurm's PluginDir; the fairway
 command (explain a job's priority and plan) and fairway-sim (the same
 policy code on workload traces).
EOF
deb="$out/${pkg}_${version}_$arch.deb"
dpkg-deb --root-owner-group --build "$stage" "$deb" > /dev/null
echo "$deb"
