#!/bin/bash
# Run every live-cluster test (testsuite/live/test_*.sh) one after the other.
#   testsuite/live/run.sh [test_name ...]
# Each test starts and stops its own cluster; logs are kept in $FW_LIVE_DIR.
# FW_PORT_OFFSET=N shifts every test cluster's ports by N (to run two
# checkouts' live tests side by side).
set -u
here=$(cd "$(dirname "$0")" && pwd)
export FW_LIVE_DIR=${FW_LIVE_DIR:-/tmp/fairway-live}
mkdir -p "$FW_LIVE_DIR"
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=($(cd "$here" && ls test_*.sh))
failed=()
for t in "${tests[@]}"; do
  t=${t%.sh}.sh
  echo "=== live: $t"
  start=$SECONDS
  if bash "$here/$t" > "$FW_LIVE_DIR/${t%.sh}.log" 2>&1; then
    echo "    PASS ($((SECONDS - start)) s)"
  else
    echo "    FAIL ($((SECONDS - start)) s) - log: $FW_LIVE_DIR/${t%.sh}.log"
    grep -E "FAIL|ERROR" "$FW_LIVE_DIR/${t%.sh}.log" | head -20 | sed 's/^/    /'
    failed+=("$t")
  fi
done
echo "live tests: $((${#tests[@]} - ${#failed[@]}))/${#tests[@]} passed"
[ ${#failed[@]} = 0 ]
