#!/bin/bash
# Build the libFuzzer harnesses of this directory against the core and
# simulator sources (clang, -fsanitize=fuzzer,address,undefined; leaks are
# errors), replay every kept regression input (regress/<target>/), then
# fuzz each target for FW_FUZZ_SECONDS (default 20) starting from its seed
# corpus (corpus/<target>/) plus what earlier runs in the same work dir
# kept.  Fails on any crash, leak, UB, timeout (10 s) or rejection that
# does not say why and where (fuzz_util.h); prints executions per target.
# Documented in doc/reliability.md.
#   testsuite/fuzz/run.sh [target ...]
# Environment: FW_FUZZ_SECONDS, FW_FUZZ_DIR (build and work dir, default
# _fuzz/ at the top), FW_FUZZ_CC (default clang).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
secs=${FW_FUZZ_SECONDS:-20}
out=${FW_FUZZ_DIR:-$top/_fuzz}
CC=${FW_FUZZ_CC:-clang}

# target  harness source  extra flags
TARGETS=(
  "fairway_conf  fuzz_fairway_conf.c"
  "slurm_keys    fuzz_slurm_keys.c"
  "slurm_conf    fuzz_slurm_conf.c"
  "swf           fuzz_swf.c"
  "csv           fuzz_csv.c"
  "sacct         fuzz_sacct.c"
  "sacctmgr_dump fuzz_sacctmgr_dump.c"
  "state         fuzz_state.c"
)

SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
CFLAGS="-g -O1 $SAN -I$top/src/core -I$top/src/sim"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

die() { echo "fuzz: $*" >&2; exit 1; }

# The parsers under test: the whole core and the simulator's input side
# (everything but the two mains), instrumented for coverage.
build_lib() {
  local lib=$out/libparsers.a objs=() s o
  mkdir -p "$out/obj"
  for s in "$top"/src/core/*.c "$top"/src/sim/*.c; do
    case $(basename "$s") in sim_main.c|sim_gentrace.c) continue ;; esac
    o=$out/obj/$(basename "$s" .c).o
    if [ ! -f "$o" ] || [ "$s" -nt "$o" ] || [ -n "$(find "$top/src/core" "$top/src/sim" -name '*.h' -newer "$o" -print -quit)" ]; then
      $CC -std=c11 -fsanitize=fuzzer-no-link $CFLAGS -c "$s" -o "$o" || return 1
    fi
    objs+=("$o")
  done
  rm -f "$lib"
  ar rcs "$lib" "${objs[@]}"
}

build_target() {
  local name=$1 src=$2; shift 2
  $CC -std=gnu11 -Wall -Wextra -Werror -fsanitize=fuzzer $CFLAGS "$@" \
    "$here/$src" "$out/libparsers.a" -lm -o "$out/fuzz_$name"
}

# Every kept input once: a crash found earlier must stay fixed.
replay() {
  local name=$1 dir=$here/regress/$1 files
  [ -d "$dir" ] || return 0
  files=("$dir"/*)
  [ -e "${files[0]}" ] || return 0
  "$out/fuzz_$name" -runs=1 "${files[@]}" > "$out/$name.replay.log" 2>&1 || {
    tail -40 "$out/$name.replay.log" >&2
    return 1
  }
  echo "${#files[@]}"
}

fuzz() {
  local name=$1 work=$out/corpus/$1 log=$out/$1.log
  rm -rf "$out/crashes/$name"
  mkdir -p "$work" "$out/crashes/$name"
  "$out/fuzz_$name" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -max_len=8192 -print_final_stats=1 -artifact_prefix="$out/crashes/$name/" \
    "$work" "$here/corpus/$name" > "$log" 2>&1
}

wanted() {
  local t=$1; shift
  [ $# -eq 0 ] && return 0
  for w in "$@"; do [ "$w" = "$t" ] && return 0; done
  return 1
}

command -v "$CC" > /dev/null || die "$CC not found (contrib/install-deps.sh installs clang)"
mkdir -p "$out"
build_lib || die "cannot build the parsers with $CC"
failed=0
printf '%-14s %10s %9s %7s %8s %s\n' target executions exec/s corpus replayed result
for spec in "${TARGETS[@]}"; do
  read -r name src flags <<< "$spec"
  wanted "$name" "$@" || continue
  # shellcheck disable=SC2086
  build_target "$name" "$src" $flags || die "cannot build harness $name"
  if ! nreg=$(replay "$name"); then
    printf '%-14s %10s %9s %7s %8s %s\n' "$name" - - - - "REGRESSION FAILED ($out/$name.replay.log)"
    failed=1
    continue
  fi
  fuzz "$name"; rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$name.log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$out/$name.log" | tail -1)
  ncorp=$(find "$out/corpus/$name" -type f | wc -l)
  if [ "$rc" = 0 ]; then res=ok; else
    res="CRASH ($(ls "$out/crashes/$name" | head -1); log $out/$name.log)"
    failed=1
  fi
  printf '%-14s %10s %9s %7s %8s %s\n' "$name" "${execs:-?}" "${speed:-?}" "$ncorp" "${nreg:-0}" "$res"
done
exit $failed
