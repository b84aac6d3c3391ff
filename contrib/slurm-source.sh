#!/bin/bash
# Obtain and configure the Slurm source tree that matches the installed
# slurmctld, so Fairway's plugins can be compiled against Slurm's internal
# headers and config.h.  The tree is cached and reused.
#
# Usage: contrib/slurm-source.sh [--print-dir]
#   Prints the path of the configured tree on its last line.
# Environment: FAIRWAY_CACHE (default: $HOME/.cache/fairway)
set -euo pipefail

CACHE=${FAIRWAY_CACHE:-${HOME:-/root}/.cache/fairway}

binver=$(dpkg-query -W -f='${Version}' slurmctld 2>/dev/null || true)
if [ -z "$binver" ]; then
  echo "slurm-source: slurmctld is not installed; run contrib/install-deps.sh first" >&2
  exit 1
fi
upver=${binver%%-*}            # 22.05.8
dest="$CACHE/slurm-$binver"
tree_link="$CACHE/slurm"

if [ "${1:-}" = "--print-dir" ]; then echo "$tree_link"; exit 0; fi

if [ -f "$dest/.fairway-configured" ]; then
  ln -sfn "$(find "$dest" -mindepth 1 -maxdepth 1 -type d -name 'slurm*' | head -n1)" "$tree_link"
  echo "slurm-source: cached tree for $binver"
  readlink -f "$tree_link"
  exit 0
fi

rm -rf "$dest"; mkdir -p "$dest"
cd "$dest"
echo "slurm-source: apt-get source slurm-wlm=$binver"
apt-get source -qq "slurm-wlm=$binver" > apt-source.log 2>&1 || {
  echo "slurm-source: apt-get source failed (needs a deb-src entry; see contrib/install-deps.sh); log: $dest/apt-source.log" >&2
  exit 1
}
tree=$(find "$dest" -mindepth 1 -maxdepth 1 -type d -name 'slurm*' | head -n1)
[ -n "$tree" ] || { echo "slurm-source: no source directory unpacked in $dest" >&2; exit 1; }
cd "$tree"
echo "slurm-source: configuring $tree (about 20 s; log: $tree/fairway-configure.log)"
./configure --sysconfdir=/etc/slurm --with-munge --disable-debug \
  --enable-multiple-slurmd --prefix=/usr --libdir=/usr/lib/x86_64-linux-gnu \
  > fairway-configure.log 2>&1 || {
  echo "slurm-source: Slurm's configure failed; log: $tree/fairway-configure.log" >&2
  exit 1
}
# The plugins need slurm/slurm_version.h and config.h only; both exist now.
IFS=. read -r vmaj vmin vmic <<< "$upver"
want=$(printf '0x%02x%02x%02x' "$vmaj" "$vmin" "$vmic")
grep -q "SLURM_VERSION_NUMBER $want" slurm/slurm_version.h || {
  echo "slurm-source: configured tree is not version $upver" >&2; exit 1; }
touch "$dest/.fairway-configured"
ln -sfn "$tree" "$tree_link"
echo "slurm-source: ready"
echo "$tree"
