#!/bin/bash
# Start a private MariaDB (own data directory, loopback TCP port) and a
# slurmdbd for a cluster prepared by contrib/cluster-start.sh --dbd.
# Called by cluster-start.sh; PIDs are appended to DIR/pids so that
# cluster-stop.sh ends them.
#   contrib/dbd-start.sh --dir DIR --port DBDPORT --cluster NAME
set -euo pipefail
dir=""; port=""; cluster=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir=$2; shift 2;;
    --port) port=$2; shift 2;;
    --cluster) cluster=$2; shift 2;;
    *) echo "dbd-start: unknown option $1" >&2; exit 2;;
  esac
done
[ -n "$dir" ] && [ -n "$port" ] && [ -n "$cluster" ] || { echo "dbd-start: need --dir --port --cluster" >&2; exit 2; }
die() { echo "dbd-start: ERROR: $*" >&2; exit 1; }

myport=$((port + 1))
db="$dir/mysql"
sock="$dir/run/mysqld.sock"
# A temporary directory of its own: at start-up MariaDB deletes every "#sql*"
# file in its tmpdir, so with the default /tmp one cluster starting up
# deletes the temporary tables of another MariaDB that is running or being
# set up at the same time ("Could not remove temporary table",
# mariadb-install-db failing with "Unknown table 'mysql.tmp_user_sys'").
tmp="$dir/run/mariadb-tmp"
mkdir -p "$tmp"
export SLURM_CONF="$dir/etc/slurm.conf"

# ---- MariaDB ---------------------------------------------------------------
if [ ! -d "$db/mysql" ]; then
  mkdir -p "$db"
  mariadb-install-db --no-defaults --datadir="$db" --user=root \
    --auth-root-authentication-method=socket --skip-test-db --tmpdir="$tmp" \
    > "$dir/log/mariadb-install.log" 2>&1 || die "mariadb-install-db failed; see $dir/log/mariadb-install.log"
fi
setsid mariadbd --no-defaults --datadir="$db" --tmpdir="$tmp" --socket="$sock" --port="$myport" \
  --bind-address=127.0.0.1 --user=root --pid-file="$dir/run/mariadb.pid" \
  --log-error="$dir/log/mariadb.log" --skip-name-resolve \
  --innodb-buffer-pool-size=64M --innodb-log-file-size=16M \
  > /dev/null 2>&1 < /dev/null &
echo "mariadb $!" >> "$dir/pids"
for _ in $(seq 150); do
  mariadb --no-defaults -S "$sock" -u root -e 'select 1' >/dev/null 2>&1 && break
  sleep 0.2
done
mariadb --no-defaults -S "$sock" -u root -e 'select 1' >/dev/null 2>&1 || die "MariaDB did not come up; see $dir/log/mariadb.log"
pass=$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
# The database exists before slurmdbd connects: when its first connect
# fails with "Unknown database", slurmdbd creates it and connects again on
# the same handle, and with libmariadb 3.4 (Debian 13) that connection then
# fails every query that returns rows ("5027 Number of columns in result").
mariadb --no-defaults -S "$sock" -u root <<EOF || die "cannot create the slurm database user"
CREATE DATABASE IF NOT EXISTS slurm_acct_db;
CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY '$pass';
ALTER USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$pass';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';
FLUSH PRIVILEGES;
EOF

# ---- slurmdbd ----------------------------------------------------------------
sockmunge=$(sed -n 's/^AuthInfo=socket=//p' "$dir/etc/slurm.conf")
cat > "$dir/etc/slurmdbd.conf" <<EOF
AuthType=auth/munge
AuthInfo=socket=$sockmunge
DbdHost=localhost
DbdPort=$port
SlurmUser=root
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$myport
StorageUser=slurm
StoragePass=$pass
StorageLoc=slurm_acct_db
LogFile=$dir/log/slurmdbd.log
PidFile=$dir/run/slurmdbd.pid
DebugLevel=info
EOF
chmod 600 "$dir/etc/slurmdbd.conf"
setsid slurmdbd -D > "$dir/log/slurmdbd.out" 2>&1 < /dev/null &
echo "slurmdbd $!" >> "$dir/pids"
for _ in $(seq 60); do
  timeout 5 sacctmgr -n -P list cluster >/dev/null 2>&1 && break
  sleep 0.2
done
sacctmgr -n -P list cluster >/dev/null 2>&1 || die "slurmdbd did not answer; see $dir/log/slurmdbd.log"
if ! sacctmgr -n -P list cluster format=cluster | grep -qx "$cluster"; then
  sacctmgr -i add cluster "$cluster" > /dev/null || die "cannot add cluster $cluster"
fi
echo "dbd-start: MariaDB on 127.0.0.1:$myport, slurmdbd on localhost:$port"
