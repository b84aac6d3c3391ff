#!/bin/bash
# A Debian 13 (trixie) root on this Debian 12 machine, with Debian 13's own
# Slurm 24.11 daemons and clients, the matching Slurm source tree (configured)
# and the tools to build and test Fairway.  Cached: a second run only checks.
#
#   contrib/trixie-root.sh [--print-dir]
# Prints the root's path on its last line.
# Environment: FAIRWAY_CACHE (default $HOME/.cache/fairway); FW_TRIXIE_ROOT
# to put the root elsewhere.
#
# The Debian archive URIs are taken from this machine's own apt sources
# (the stanzas that serve bookworm and bookworm-security); no mirror host is
# written here.  Slurm's source comes from Debian 13 too: apt-get source
# --download-only fetches the orig tarball and debian.tar.xz (the .dsc is not
# served), which are unpacked and patched in debian/patches/series order.
set -euo pipefail

CACHE=${FAIRWAY_CACHE:-${HOME:-/root}/.cache/fairway}
ROOT=${FW_TRIXIE_ROOT:-$CACHE/trixie-root}
if [ "${1:-}" = "--print-dir" ]; then echo "$ROOT"; exit 0; fi
[ "$(id -u)" = 0 ] || { echo "trixie-root: run as root" >&2; exit 1; }

PKGS=slurmctld,slurmd,slurm-client,slurmdbd,libslurm-dev,munge,libmunge-dev
PKGS+=,mariadb-server,mariadb-client
PKGS+=,gcc,make,autoconf,automake,libtool,pkg-config,check,dpkg-dev,patch,xz-utils
PKGS+=,python3,iproute2,util-linux,procps,valgrind,gdb,ca-certificates
# Slurm's own pytest suite (testsuite/slurm-pytest, run by contrib/trixie-test.sh)
PKGS+=,python3-pytest,python3-pexpect,python3-requests

# machine_uri SUITE, mount_binds ROOT
source "$(dirname "$0")/debian-root-lib.sh"

create_root() {
  local main sec tmp
  main=$(machine_uri bookworm | head -n1)
  sec=$(machine_uri bookworm-security | head -n1)
  [ -n "$main" ] || { echo "trixie-root: no deb entry for bookworm in this machine's apt sources" >&2; exit 1; }
  tmp="$ROOT.new"
  rm -rf "$tmp"
  local mirrors=("deb $main trixie main" "deb-src $main trixie main")
  [ -n "$sec" ] && mirrors+=("deb $sec trixie-security main" "deb-src $sec trixie-security main")
  echo "trixie-root: mmdebstrap trixie into $tmp (from $main)"
  mmdebstrap --variant=minbase --include="$PKGS" trixie "$tmp" "${mirrors[@]}"
  mv "$tmp" "$ROOT"
}

# Slurm's source matching the root's slurmctld, configured like the 22.05 tree.
prepare_source() {
  local ver up dir
  ver=$(chroot "$ROOT" dpkg-query -W -f='${Version}' slurmctld)
  up=${ver%%-*}
  dir="/build/slurm-$ver"
  if [ -f "$ROOT$dir/.fairway-configured" ]; then
    echo "trixie-root: cached Slurm $ver source tree"
    return 0
  fi
  echo "trixie-root: Slurm $ver source (apt-get source --download-only, patches, configure)"
  chroot "$ROOT" /bin/bash -euo pipefail -c "
    rm -rf $dir; mkdir -p $dir; cd $dir
    apt-get update -qq
    # The .dsc is not served and each file may be in only one of the
    # archives (debian.tar.xz of a security update: trixie-security), so
    # ask each suite and tolerate apt's error while the two files come.
    for s in =$ver /trixie-security /trixie; do
      [ -f slurm-wlm_$up.orig.tar.gz ] && [ -f slurm-wlm_$ver.debian.tar.xz ] && break
      apt-get source --download-only -qq slurm-wlm\$s > /dev/null 2>&1 || true
    done
    [ -f slurm-wlm_$up.orig.tar.gz ] && [ -f slurm-wlm_$ver.debian.tar.xz ] || {
      echo 'trixie-root: could not download slurm-wlm_$up.orig.tar.gz and slurm-wlm_$ver.debian.tar.xz' >&2
      exit 1; }
    tar -xzf slurm-wlm_$up.orig.tar.gz
    src=\$(find . -mindepth 1 -maxdepth 1 -type d -name 'slurm*' | head -n1)
    tar -xJf slurm-wlm_$ver.debian.tar.xz -C \"\$src\"
    cd \"\$src\"
    while read -r p _; do
      case \"\$p\" in ''|'#'*) continue ;; esac
      patch -p1 -s < debian/patches/\$p
    done < debian/patches/series
    ./configure --sysconfdir=/etc/slurm --with-munge --disable-debug \
      --enable-multiple-slurmd --prefix=/usr --libdir=/usr/lib/x86_64-linux-gnu \
      > fairway-configure.log 2>&1
    ln -sfn $dir/\${src#./} /build/slurm
    touch $dir/.fairway-configured
  "
}

if [ ! -x "$ROOT/usr/sbin/slurmctld" ]; then
  create_root
else
  echo "trixie-root: cached root $ROOT"
fi
mount_binds "$ROOT"
# Name resolution as on the host (localhost for SlurmctldHost).
cp -f /etc/hosts "$ROOT/etc/hosts"
# Package scripts and daemons inside must not look for a running init.
printf '#!/bin/sh\nexit 101\n' > "$ROOT/usr/sbin/policy-rc.d"; chmod +x "$ROOT/usr/sbin/policy-rc.d"
# A cached root made by an older version of this script: add what is new.
# (dpkg-query names a package it has never seen only in "dpkg-query: no
# packages found matching NAME")
missing=$(chroot "$ROOT" dpkg-query -W -f='${Package} ${Status}\n' ${PKGS//,/ } 2>&1 |
  awk '/^dpkg-query: no packages found matching/ { print $NF; next }
       !/install ok installed/ { print $1 }' | tr '\n' ' ' || true)
if [ -n "${missing// /}" ]; then
  echo "trixie-root: installing $missing"
  chroot "$ROOT" /bin/bash -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ${PKGS//,/ }"
fi
prepare_source
echo "trixie-root: slurmctld $(chroot "$ROOT" dpkg-query -W -f='${Version}' slurmctld)"
echo "$ROOT"
