#!/bin/bash
# Unpack the configured Slurm header trees used for compile-only checks
# (one per release Fairway supports but this machine does not run) into the
# cache, once.  Prints one "VERSION DIR" line per tree.
#
# Usage: contrib/slurm-headers.sh [ARCHIVE_DIR]
#   ARCHIVE_DIR holds slurm-X.Y.Z-headers.tar.xz (default: $FW_SLURM_HEADERS,
#   else ../shared/slurm-headers beside the checkout's parent).
# Environment: FAIRWAY_CACHE (default: $HOME/.cache/fairway)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
src=${1:-${FW_SLURM_HEADERS:-$(cd "$top/.." && pwd)/shared/slurm-headers}}
CACHE=${FAIRWAY_CACHE:-${HOME:-/root}/.cache/fairway}
dest_root="$CACHE/headers"

shopt -s nullglob
archives=("$src"/slurm-*-headers.tar.xz)
if [ ${#archives[@]} -eq 0 ]; then
  echo "slurm-headers: no slurm-*-headers.tar.xz in $src" >&2
  exit 1
fi
mkdir -p "$dest_root"
for a in "${archives[@]}"; do
  ver=$(basename "$a"); ver=${ver#slurm-}; ver=${ver%-headers.tar.xz}
  dest="$dest_root/$ver"
  # Re-unpack when the archive is newer than the unpacked tree.
  if [ ! -f "$dest/.fairway-unpacked" ] || [ "$a" -nt "$dest/.fairway-unpacked" ]; then
    rm -rf "$dest"; mkdir -p "$dest"
    tar -xJf "$a" -C "$dest"
    touch "$dest/.fairway-unpacked"
  fi
  # The archive may hold the tree at its top or one directory down.
  vh=$(find "$dest" -path '*/slurm/slurm_version.h' | head -n1)
  [ -n "$vh" ] || { echo "slurm-headers: no slurm/slurm_version.h in $a" >&2; exit 1; }
  echo "$ver $(dirname "$(dirname "$vh")")"
done
