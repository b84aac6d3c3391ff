#!/bin/bash
# Run a chosen part of Slurm's own pytest suite (testsuite/python of the
# Slurm source tree that contrib/slurm-source.sh prepares, or of the tree in
# the Debian 13 root for Slurm 24.11: contrib/trixie-test.sh) twice on the same
# cluster shape - 4 nodes x 2 CPUs on loopback, slurmdbd + MariaDB - first
# with Fairway's plugins (priority/fairway + sched/fairway), then with
# Slurm's own (priority/multifactor + sched/backfill), and print both
# results side by side.
#
#   testsuite/slurm-pytest/run.sh [--doc FILE] [--only fairway|slurm]
#     --doc FILE   also write the results table (Markdown) to FILE
#     --only SIDE  run one side only (no comparison; for debugging)
#
# Files beside this script:
#   selection.txt    the tests that run (paths under testsuite/python)
#   excluded.txt     tests of the suite that do not run here, with reasons
#   differences.txt  tests allowed to pass with Slurm's plugins and fail
#                    with Fairway's, with reasons (deliberate differences,
#                    and known bugs with the item that fixes them)
#   lists.py         reads the three lists for the Slurm release under test
#                    ("[22.05] ..." lines apply to that release only,
#                    "[24.11+] ..." from that release on; test names
#                    are resolved through Slurm's testsuite/README, which
#                    maps 23.02+'s numbered files to their former paths)
#   fairway_atf.py   the adapter (pytest plugin) that lets the ATF's
#                    PriorityType/SchedulerType gates accept Fairway's plugins
#
# Fails when a test passes with Slurm's plugins and fails with Fairway's
# without an entry in differences.txt, and before running anything when a
# test file of the suite is in neither selection.txt nor excluded.txt.
# Slurm's tree is not touched: the suite is copied to a scratch directory
# and run from there.
#
# Environment: FW_PORT_OFFSET shifts the ports (default base 17800),
# FW_PYTEST_DIR the scratch directory (default /tmp/fairway-slurm-pytest),
# FW_BUILD the Fairway build tree (default: this checkout), FW_PYTHON the
# interpreter (default /usr/bin/python3), FW_SLURM_SOURCE the configured
# Slurm tree (default: contrib/slurm-source.sh's).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${FW_BUILD:-$top}
out=${FW_PYTEST_DIR:-/tmp/fairway-slurm-pytest}
port=$((17800 + ${FW_PORT_OFFSET:-0}))
doc="" only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --doc) doc=$2; shift 2;;
    --only) only=$2; shift 2;;
    -h|--help) sed -n '2,38p' "$0"; exit 0;;
    *) echo "run.sh: unknown option $1" >&2; exit 2;;
  esac
done
die() { echo "slurm-pytest: ERROR: $*" >&2; exit 1; }

src=${FW_SLURM_SOURCE:-$(bash "$top/contrib/slurm-source.sh" --print-dir)} || die "no Slurm source tree"
src=$(readlink -f "$src")
[ -d "$src/testsuite/python/lib" ] || die "$src/testsuite/python not found (contrib/slurm-source.sh)"
# The release of the tree (X.Y), which must be the one of the daemons
ver=$(sed -n 's/^#define SLURM_VERSION_STRING "\([0-9]*\.[0-9]*\)\..*"/\1/p' "$src/config.h")
[ -n "$ver" ] || die "no SLURM_VERSION_STRING in $src/config.h (configured tree?)"
dver=$(slurmctld-wlm -V 2>/dev/null | awk '{ print $2 }')
[ "${dver%.*}" = "$ver" ] || die "the Slurm tree is $ver but slurmctld-wlm is ${dver:-missing}"
# Debian's interpreter, which has Debian's python3-pytest (a python3 earlier
# in PATH, e.g. pyenv's, may not)
py=${FW_PYTHON:-/usr/bin/python3}
"$py" -c 'import pytest' 2>/dev/null || die "python3-pytest is not installed for $py (contrib/install-deps.sh)"

mkdir -p "$out"
# A private copy of the suite: pytest and Python write caches and temporary
# files next to the tests, and the prepared tree stays as it is.
rm -rf "$out/python"
cp -a "$src/testsuite/python" "$out/python"
cp "$src/testsuite/README" "$out/README" 2>/dev/null || : > "$out/README"
sel=$("$py" "$here/lists.py" selection --suite "$out/python" --readme "$out/README" \
  --version "$ver") || die "selection.txt/excluded.txt do not fit Slurm $ver's suite (above)"
mapfile -t selection <<< "$sel"
echo "==> Slurm $ver ($dver): $(grep -vc '^--' <<< "$sel") test files of $src/testsuite/python"

# run_side LABEL [cluster-start options]: one run of the selection against a
# fresh cluster; results in $out/LABEL.xml (JUnit) and $out/LABEL.log.
run_side() {
  local label=$1; shift
  local dir="$out/c-$label" t0=$SECONDS rc
  bash "$top/contrib/cluster-stop.sh" --dir "$dir" > /dev/null 2>&1 || true
  echo "==> $label plugins: starting the cluster"
  bash "$top/contrib/cluster-start.sh" --dir "$dir" --name fwpytest --port "$port" \
      --dbd --dbd-port $((port + 90)) --plugins "$build/plugins" "$@" \
      > "$out/$label.cluster.log" 2>&1 || {
    tail -20 "$out/$label.cluster.log"
    bash "$top/contrib/cluster-stop.sh" --dir "$dir" > /dev/null 2>&1
    die "cluster for $label did not start; see $out/$label.cluster.log"
  }
  cat > "$out/$label.testsuite.conf" <<EOF
SlurmSourceDir=$src
SlurmBuildDir=$src
SlurmInstallDir=/usr
SlurmConfigDir=$dir/etc
EOF
  echo "==> $label plugins: $(grep -E '^(PriorityType|SchedulerType)=' "$dir/etc/slurm.conf" | tr '\n' ' ')"
  (
    # shellcheck disable=SC1091
    source "$dir/env"
    cd "$out/python" &&
    SLURM_TESTSUITE_CONF="$out/$label.testsuite.conf" FW_PYTEST_THROWAWAY_DBD=1 \
    PYTHONPATH="$here:$out/python/lib" PYTHONDONTWRITEBYTECODE=1 \
      timeout 900 "$py" -m pytest -p fairway_atf -p no:cacheprovider -q -rA \
        --basetemp="$out/tmp-$label" --junitxml="$out/$label.xml" "${selection[@]}"
  ) > "$out/$label.log" 2>&1
  rc=$?
  bash "$top/contrib/cluster-stop.sh" --dir "$dir" > /dev/null 2>&1
  echo "$((SECONDS - t0))" > "$out/$label.seconds"
  echo "    $(tail -n1 "$out/$label.log") ($((SECONDS - t0)) s; pytest exit $rc; log $out/$label.log)"
  [ -s "$out/$label.xml" ] || die "no results from the $label run; see $out/$label.log"
}

rm -f "$out"/*.xml
[ "$only" = slurm ] || run_side fairway
[ "$only" = fairway ] || run_side slurm --no-fairway
[ -z "$only" ] || exit 0
"$py" "$here/report.py" --fairway "$out/fairway.xml" --slurm "$out/slurm.xml" \
  --differences "$here/differences.txt" --version "$ver" --readme "$out/README" \
  --seconds "$(cat "$out/fairway.seconds")" "$(cat "$out/slurm.seconds")" \
  ${doc:+--doc "$doc"}
