#!/bin/bash
# Install a Fairway .deb (contrib/deb-build.sh) into a fresh Debian root that
# has only Debian's own Slurm runtime packages (bookworm: Slurm 22.05,
# trixie: Slurm 24.11), start a cluster that loads both plugins from Slurm's
# PluginDir (not from a build tree), run a job, then purge the package and
# check that nothing is left.  The root is cached; the package is installed
# and purged on every run.  Nothing is installed on this machine itself.
#
#   contrib/deb-test.sh SUITE DEB [OTHER_DEB]
#     OTHER_DEB  a package built for another Slurm: dpkg must refuse it here
# Environment: FAIRWAY_CACHE, FW_PORT_OFFSET.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
source "$top/contrib/debian-root-lib.sh"
suite=${1:?suite (bookworm or trixie)}; deb=${2:?package}; other=${3:-}
CACHE=${FAIRWAY_CACHE:-${HOME:-/root}/.cache/fairway}
root="$CACHE/deb-root-$suite"
fails=0
ok() { echo "  ok: $*"; }
bad() { echo "  FAIL: $*"; fails=$((fails + 1)); }

if [ ! -x "$root/usr/sbin/slurmctld" ]; then
  main=$(machine_uri bookworm); sec=$(machine_uri bookworm-security)
  [ -n "$main" ] || { echo "deb-test: no bookworm deb entry in this machine's apt sources" >&2; exit 1; }
  mirrors=("deb $main $suite main")
  [ -n "$sec" ] && mirrors+=("deb $sec $suite-security main")
  rm -rf "$root.new"
  mmdebstrap --variant=minbase --include=slurmctld,slurmd,slurm-client,munge,procps,util-linux \
    "$suite" "$root.new" "${mirrors[@]}" > "$CACHE/deb-root-$suite.log" 2>&1 || {
    echo "deb-test: mmdebstrap failed; see $CACHE/deb-root-$suite.log" >&2; exit 1; }
  mv "$root.new" "$root"
fi
mount_binds "$root"
cp -f /etc/hosts "$root/etc/hosts"
printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"; chmod +x "$root/usr/sbin/policy-rc.d"
id=$(printf '%s' "$top" | md5sum | cut -c1-8)   # several checkouts may share the root
w="$root/build/deb-test-$id"
rm -rf "$w"; mkdir -p "$w/contrib"
cp "$top"/contrib/cluster-start.sh "$top"/contrib/cluster-stop.sh "$w/contrib/"
cp "$deb" "$w/"
[ -n "$other" ] && cp "$other" "$w/other.deb"
in_root() { chroot "$root" /bin/bash -c "$1"; }
pkg=$(dpkg-deb -f "$deb" Package)
plugindir=/usr/lib/x86_64-linux-gnu/slurm-wlm

echo "deb-test: $suite, slurmctld $(in_root "dpkg-query -W -f='\${Version}' slurmctld"), package $(basename "$deb")"
if [ -n "$other" ]; then
  if in_root "dpkg -i /build/deb-test-$id/other.deb" > "$w/other.log" 2>&1; then
    bad "$(basename "$other") installed although it is for another Slurm"
    in_root "dpkg --purge $(dpkg-deb -f "$other" Package)" > /dev/null 2>&1
  else
    in_root "dpkg --purge $(dpkg-deb -f "$other" Package)" > /dev/null 2>&1
    grep -q 'depends on slurmctld (= ' "$w/other.log" &&
      ok "a package for another Slurm is refused: $(grep -m1 'depends on slurmctld' "$w/other.log" | sed 's/^ *//')" ||
      bad "other package failed for another reason: $(tail -2 "$w/other.log")"
  fi
fi
# apt installs the package's library dependencies from the archive.
if in_root "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends /build/deb-test-$id/$(basename "$deb")" > "$w/install.log" 2>&1; then
  ok "installed $pkg (apt-get install ./$(basename "$deb"))"
else
  bad "install failed: $(tail -3 "$w/install.log")"; exit 1
fi
for f in $plugindir/priority_fairway.so $plugindir/sched_fairway.so /usr/bin/fairway /usr/bin/fairway-sim \
         /usr/share/man/man5/fairway.conf.5.gz; do
  [ -f "$root$f" ] && ok "installed $f" || bad "missing $f"
done

port=$((17720 + ${FW_PORT_OFFSET:-0}))
if in_root "bash /build/deb-test-$id/contrib/cluster-start.sh --dir /tmp/fw-deb-$id --name fw-deb --port $port --nodes 2 --plugins $plugindir" > "$w/start.log" 2>&1; then
  ok "cluster started with PluginDir=$plugindir"
  pid=$(awk '$1 == "slurmctld" { print $2 }' "$root/tmp/fw-deb-$id/pids")
  grep -q "$plugindir/priority_fairway.so" "/proc/$pid/maps" && grep -q "$plugindir/sched_fairway.so" "/proc/$pid/maps" &&
    ok "slurmctld mapped both plugins from $plugindir" || bad "slurmctld did not map the plugins from $plugindir"
  grep -q 'sched/fairway loaded' "$root/tmp/fw-deb-$id/log/slurmctld.log" && ok "sched/fairway loaded" || bad "sched/fairway not loaded"
  st=$(in_root "source /tmp/fw-deb-$id/env; j=\$(sbatch --parsable -o /dev/null -N2 --wrap hostname);
    for i in \$(seq 60); do s=\$(scontrol show job \$j | sed -n 's/.*JobState=\([A-Z]*\).*/\1/p');
      [ \"\$s\" = COMPLETED ] && break; sleep 0.5; done; echo \$s")
  [ "$st" = COMPLETED ] && ok "a 2-node job ran to completion" || bad "job state $st"
  in_root "source /tmp/fw-deb-$id/env; /usr/bin/fairway stats" > "$w/stats.out" 2>&1 &&
    ok "the installed fairway command talks to the plugins" || bad "fairway stats: $(head -2 "$w/stats.out")"
  in_root "bash /build/deb-test-$id/contrib/cluster-stop.sh --dir /tmp/fw-deb-$id" > /dev/null 2>&1
else
  bad "cluster did not start: $(tail -3 "$w/start.log")"
  in_root "bash /build/deb-test-$id/contrib/cluster-stop.sh --dir /tmp/fw-deb-$id" > /dev/null 2>&1
fi

in_root "dpkg --purge $pkg" > "$w/purge.log" 2>&1 && ok "dpkg --purge $pkg" || bad "purge failed"
left=$(in_root "dpkg -l $pkg 2>/dev/null | grep -c '^.i'; ls $plugindir/*fairway* /usr/bin/fairway* 2>/dev/null | wc -l" | awk '{ s += $1 } END { print s + 0 }')
[ "$left" = 0 ] && ok "nothing left after purge" || bad "left after purge: $left"
echo "deb-test: $fails failed"
[ "$fails" = 0 ]
