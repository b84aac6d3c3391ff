#!/bin/bash
# Compile both Slurm plugins with -Werror against every supported Slurm
# release that this machine does not run: the configured header trees
# unpacked by contrib/slurm-headers.sh, plus the tree of the installed
# Slurm (contrib/slurm-source.sh).  One out-of-tree build (configure
# --enable-compile-only) from a clean export of the sources, so the
# checkout's own build is left alone: the first tree builds both plugins
# whole (core and link included); every other tree rebuilds only the
# plugins' own objects (make plugin-objects SLURM_SRC=tree), since the core
# includes no Slurm header and compiles the same against every release.
#
#   contrib/compile-check.sh [VERSION ...]     (default: every tree)
# Prints one line per version; exit status 1 if any fails.  Logs and
# builds are kept under $FW_COMPILE_DIR (default: _logs/compile-check).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
out=${FW_COMPILE_DIR:-$top/_logs/compile-check}
CACHE=${FAIRWAY_CACHE:-${HOME:-/root}/.cache/fairway}
mkdir -p "$out"

# Trees: "VERSION DIR" lines.
trees=$(bash "$top/contrib/slurm-headers.sh") || exit 1
if [ -f "$CACHE/slurm/slurm/slurm_version.h" ]; then
  v=$(awk '$2 == "SLURM_VERSION_NUMBER" { print $3 }' "$CACHE/slurm/slurm/slurm_version.h")
  v=$(printf '%d.%02d.%d' $(( v >> 16 )) $(( (v >> 8) & 255 )) $(( v & 255 )))
  trees=$(printf '%s %s\n%s\n' "$v" "$(readlink -f "$CACHE/slurm")" "$trees" | sort -V -u)
fi
want=("$@")

# One source export with configure already generated, shared by all trees
# (VPATH builds need a source directory that is not configured in place).
src="$out/src"
rm -rf "$src" "$out"/build*; mkdir -p "$src"
(cd "$top" && git ls-files -z | xargs -0 tar -cf - ) | tar -xf - -C "$src" || exit 1
if ! (cd "$src" && autoreconf -fi) > "$out/autoreconf.log" 2>&1; then
  echo "compile-check: autoreconf failed; log: $out/autoreconf.log" >&2
  exit 1
fi

b="$out/build" failed=0
mkdir -p "$b"
while read -r ver dir; do
  [ -n "$ver" ] || continue
  if [ ${#want[@]} -gt 0 ] && ! printf '%s\n' "${want[@]}" | grep -qx "$ver"; then
    continue
  fi
  log="$out/$ver.log" t0=$SECONDS
  # not configured yet (first tree, or every configure so far failed)
  if [ ! -f "$b/Makefile" ]; then
    what="both plugins"
    (cd "$b" && "$src/configure" -q --enable-compile-only --with-slurm-source="$dir" &&
     make -j2 src/plugins/priority/fairway/priority_fairway.la \
              src/plugins/sched/fairway/sched_fairway.la) > "$log" 2>&1
  else
    what="both plugins' own objects"
    (cd "$b" && find src/plugins \( -name '*.lo' -o -name '*.o' \) -delete &&
     make -j2 plugin-objects SLURM_SRC="$(cd "$dir" && pwd -P)") > "$log" 2>&1
  fi
  if [ $? = 0 ]; then
    printf '  %-9s compiled (-Werror, %s) in %d s\n' "$ver" "$what" $((SECONDS - t0))
  else
    printf '  %-9s FAILED; log: %s\n' "$ver" "$log"
    grep -E 'error' "$log" | head -10 | sed 's/^/      /'
    failed=1
  fi
done <<< "$trees"
exit $failed
