#!/bin/bash
# Build a Debian package of Fairway for the Slurm this checkout is configured
# and built against (run after ./configure && make): both plugins into that
# Slurm's PluginDir, the fairway command, fairway-sim and the man pages.
# Slurm's loader refuses a plugin built for any other version (micro
# included), so Depends: pins the exact slurmctld package version installed
# here, and the package name carries the Slurm version.
#
#   contrib/deb-build.sh [OUTDIR]      (default: _logs/deb)
# Prints the path of the .deb on its last line.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/_logs/deb}
mkvar() { sed -n "s/^$1 = //p" "$top/Makefile"; }

[ -f "$top/Makefile" ] || { echo "deb-build: configure and build first" >&2; exit 1; }
ctld=$(dpkg-query -W -f='${Version}' slurmctld) || {
  echo "deb-build: slurmctld is not installed" >&2; exit 1; }
slurm=${ctld%%-*}                       # 22.05.8
plugindir=$(mkvar plugindir)
tree_ver=$(awk '$2 == "SLURM_VERSION_NUMBER" { print $3 }' "$(mkvar SLURM_SRC)/slurm/slurm_version.h")
want=$(echo "$slurm" | awk -F. '{ printf("0x%02x%02x%02x", $1, $2, $3) }')
[ "$tree_ver" = "$want" ] || {
  echo "deb-build: the build is for Slurm $tree_ver, the installed slurmctld is $slurm" >&2; exit 1; }

pkg="fairway-slurm-$slurm"
version="$(mkvar PACKAGE_VERSION)+slurm$slurm"
arch=$(dpkg --print-architecture)
stage=$(mktemp -d); trap 'rm -rf "$stage"' EXIT
make -C "$top" -s install DESTDIR="$stage/root" prefix=/usr > "$stage/install.log" 2>&1 || {
  cat "$stage/install.log" >&2; exit 1; }
for f in priority_fairway.so sched_fairway.so; do
  [ -f "$stage/root$plugindir/$f" ] || { echo "deb-build: $f not installed" >&2; exit 1; }
done
gzip -9n "$stage"/root/usr/share/man/man*/*.[0-9]
# Packages of the shared libraries the programs and plugins link (the
# fairway command links libslurm; the plugins libmunge).
libdeps=$(for f in "$stage"/root/usr/bin/* "$stage/root$plugindir"/*.so; do
    objdump -p "$f" | awk '$1 == "NEEDED" { print $2 }'
  done | sort -u | while read -r so; do
    path=$(ldconfig -p | awk -v so="$so" '$1 == so && /x86-64/ { print $NF; exit }')
    [ -n "$path" ] && { dpkg -S "$path" 2>/dev/null || dpkg -S "$(readlink -f "$path")" 2>/dev/null; } |
      cut -d: -f1 | head -n1
  done | sort -u | paste -sd, | sed 's/,/, /g')
mkdir -p "$stage/root/DEBIAN"
cat > "$stage/root/DEBIAN/control" <<EOF
Package: $pkg
Version: $version
Architecture: $arch
Maintainer: Fairway project <fairway@invalid>
Installed-Size: $(du -sk "$stage/root/usr" | cut -f1)
Depends: slurmctld (= $ctld)${libdeps:+, $libdeps}
Section: admin
Priority: optional
Description: Fairway priority and scheduler plugins for Slurm $slurm
 priority/fairway and sched/fairway, built for exactly Slurm $slurm
 ($ctld), installed into $plugindir; the fairway command and the
 fairway-sim simulator.
EOF
mkdir -p "$out"
deb="$out/${pkg}_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$stage/root" "$deb" > /dev/null
echo "$deb"
