#!/bin/bash
# Install every Debian package Fairway needs to build, test and run a local
# cluster.  Idempotent: packages already present are skipped by apt.
# Also derives a deb-src entry from the machine's existing deb entries so that
# contrib/slurm-source.sh can fetch Slurm's source package (no mirror host
# name is written here: the entry is copied from what the machine already has).
set -euo pipefail

PKGS=(
  slurmctld slurmd slurm-client slurmdbd libslurm-dev
  munge libmunge-dev
  mariadb-server mariadb-client
  check pkg-config autoconf automake libtool make gcc
  dpkg-dev
  mmdebstrap            # the Debian 13 root for the Slurm 24.11 stage (contrib/trixie-root.sh)
  clang libclang-rt-14-dev
  valgrind python3
  python3-pytest python3-pexpect   # Slurm's own pytest suite (testsuite/slurm-pytest)
  iproute2 util-linux   # ss, setpriv, runuser (testsuite/live/test_security.sh)
  gdb
)

SRC_LIST=/etc/apt/sources.list.d/fairway-deb-src.sources

add_deb_src() {
  [ -f "$SRC_LIST" ] && return 0
  local found=0
  # deb822 files: copy each stanza whose Types is deb, as deb-src.
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    [ "$f" = "$SRC_LIST" ] && continue
    if grep -qE '^Types:.*\bdeb\b' "$f" && grep -qE 'debian' "$f"; then
      sed -E 's/^Types:.*/Types: deb-src/' "$f" >> "$SRC_LIST"
      echo >> "$SRC_LIST"
      found=1
    fi
  done
  # one-line format fallback
  if [ "$found" = 0 ] && [ -f /etc/apt/sources.list ]; then
    grep -E '^deb ' /etc/apt/sources.list | sed -E 's/^deb /deb-src /' \
      > /etc/apt/sources.list.d/fairway-deb-src.list || true
    found=1
  fi
  [ "$found" = 1 ] || { echo "install-deps: no Debian deb entry to derive deb-src from" >&2; return 1; }
}

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

add_deb_src
need_update=0
[ ${#missing[@]} -gt 0 ] && need_update=1
# apt-get source needs the deb-src index
ls /var/lib/apt/lists/*_source_Sources* >/dev/null 2>&1 || need_update=1
if [ "$need_update" = 1 ]; then
  echo "install-deps: apt-get update"
  apt-get update -qq
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  # Do not let package scripts start daemons: there is no init system here
  # and the project starts its own private instances.
  printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  rm -f /usr/sbin/policy-rc.d
fi
echo "install-deps: all packages present"
