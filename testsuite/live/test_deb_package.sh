#!/bin/bash
# The Debian package (contrib/build-deb.sh): built for the Slurm installed
# here, its Depends accepts exactly that upstream release of slurmctld; it
# installs both plugins into Debian's PluginDir, a fresh cluster loads them
# from there (not from the build tree: slurmctld's memory map is checked),
# schedules a job, the installed fairway command answers; dpkg --purge
# removes every file it installed.
source "$(dirname "$0")/lib.sh"

pdir=/usr/lib/x86_64-linux-gnu/slurm-wlm
slurmver=$(dpkg-query -W -f='${Version}' slurmctld); up=${slurmver%%-*}
IFS=. read -r vmaj vmin vmic <<< "$up"
purge() { dpkg --purge fairway-slurm > /dev/null 2>&1 || true; }
trap 'stop_cluster; purge' EXIT

say "build the package"
deb=$(bash "$FW_TOP/contrib/build-deb.sh" "$FW_LIVE_DIR/deb" | tail -1)
check "a .deb was built" test -f "$deb"
dep=$(dpkg-deb -f "$deb" Depends)
echo "    Depends: $dep"
check "Depends accepts slurmctld $up and nothing newer" \
  grep -qF "slurmctld (>= $up), slurmctld (<< $vmaj.$vmin.$((vmic + 1))~)" <<< "$dep"
check_eq "version names the Slurm release" "0.1.0+slurm$up" "$(dpkg-deb -f "$deb" Version)"
# Every file is ours to own: no file of another package is overwritten.
for f in $(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {print substr($6, 2)}'); do
  if dpkg -S "$f" 2>/dev/null | grep -qv '^fairway-slurm:'; then fail "$f belongs to another package"; fi
done

say "install it"
purge
check "dpkg -i succeeds" dpkg -i "$deb"
check "both plugins are in PluginDir" test -f "$pdir/priority_fairway.so" -a -f "$pdir/sched_fairway.so"
check "the fairway command is installed" test -x /usr/bin/fairway
check "fairway-sim is installed" test -x /usr/bin/fairway-sim
check "man pages are installed" test -f /usr/share/man/man8/sched_fairway.8.gz

say "a fresh cluster loads the installed plugins"
start_cluster fw-deb 17690 --plugins "$pdir"
check_eq "SchedulerType" sched/fairway "$(scontrol show config | awk '$1=="SchedulerType"{print $3}')"
check_eq "PriorityType" priority/fairway "$(scontrol show config | awk '$1=="PriorityType"{print $3}')"
ctld=$(awk '$1=="slurmctld"{print $2}' "$_cluster_dir/pids")
check "slurmctld mapped $pdir/sched_fairway.so" grep -q "$pdir/sched_fairway.so" "/proc/$ctld/maps"
check "slurmctld mapped $pdir/priority_fairway.so" grep -q "$pdir/priority_fairway.so" "/proc/$ctld/maps"
if grep -q "$FW_BUILD/plugins" "/proc/$ctld/maps"; then fail "a plugin came from the build tree"; else pass "nothing loaded from the build tree"; fi
j=$(submit -n 3 -t 1 --wrap "true")
check "a job runs to completion" wait_until 30 job_is "$j" COMPLETED
out=$(/usr/bin/fairway stats 2>&1); rc=$?
echo "    fairway stats: $(head -1 <<< "$out")"
check "the installed fairway command talks to the plugins" test "$rc" = 0
stop_cluster

say "purge"
files=$(dpkg -L fairway-slurm | while read -r f; do [ -f "$f" ] && echo "$f"; done)
check "dpkg --purge succeeds" dpkg --purge fairway-slurm
left=0; for f in $files; do [ -e "$f" ] && { echo "    left: $f"; left=$((left + 1)); }; done
check_eq "no installed file is left" 0 "$left"
check "the package is gone" bash -c "! dpkg -s fairway-slurm > /dev/null 2>&1"
finish
