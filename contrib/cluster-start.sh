#!/bin/bash
# Start a private Slurm cluster on loopback with Fairway's plugins loaded from
# the build tree: one munged (own key and socket), one slurmctld-wlm and N
# slurmd-wlm -N nX (multiple-slurmd build).  Runs as root, no systemd.
#
#   contrib/cluster-start.sh [options]
#     --dir DIR          cluster directory (default: <top>/run/<name>)
#     --name NAME        cluster name (default: fw)
#     --nodes N          number of nodes n1..nN (default 4)
#     --cpus C           CPUs per node (default 2)
#     --mem MB           RealMemory per node (default 1000)
#     --select-params P  SelectTypeParameters (default CR_CPU with
#                        select/cons_tres, none with select/linear), e.g.
#                        CR_Core_Memory
#     --select-type T    SelectType (default select/cons_tres), e.g.
#                        select/linear
#     --threads T        T threads per core: nodes get Sockets=1
#                        CoresPerSocket=C/T ThreadsPerCore=T (default: only
#                        CPUs=C, one thread per core)
#     --sockets S        S sockets per node: Sockets=S CoresPerSocket=
#                        C/(S*T) ThreadsPerCore=T (T from --threads, else 1)
#     --port P           SlurmctldPort; slurmd ports are P+1..P+N (default 17000)
#     --plugins DIR      directory holding priority_fairway.so and
#                        sched_fairway.so (default: <top>/plugins)
#     --slurm-extra FILE lines appended to slurm.conf (override defaults)
#     --fairway-conf F   fairway.conf to install beside slurm.conf
#     --topology F       topology.conf to install beside slurm.conf, with
#                        TopologyPlugin=topology/tree
#     --gres A-B:NAME[:TYPE]:N
#                        nodes nA..nB get N generic resources NAME (of TYPE);
#                        repeatable.  GresTypes and gres.conf are written;
#                        gpu gets placeholder device files, any other NAME is
#                        count-only (no File), e.g. --gres 1-2:gpu:a100:2
#                        --gres 3:gpu:v100:2 --gres 2-4:tmpdisk:100
#                        With --frontend (gpu only) the front-end slurmd reports the
#                        largest count of each NAME[:TYPE] for every node
#                        (its own slurm-frontend.conf: see below; gpu
#                        with placeholder device files); slurmctld ignores
#                        the excess on nodes with fewer)
#     --gres-weight W    nodes with --gres get Weight=W (others keep
#                        Slurm's default 1: lower weights are allocated
#                        first, so W > 1 keeps other jobs off them)
#     --dbd              also start MariaDB + slurmdbd (accounting storage)
#     --dbd-port P       slurmdbd port; MariaDB listens on P+1 (default:
#                        SlurmctldPort+999)
#     --no-fairway       use Slurm's priority/multifactor + sched/backfill
#     --sched-params P   appended to the default SchedulerParameters
#                        (e.g. bf_interval=1,bf_resolution=1)
#     --frontend TREE    scale mode: one front-end slurmd (Debian's
#                        slurmd-wlm-emulator) serves all N nodes; slurmctld
#                        and libslurmfull.so come from TREE, the front-end
#                        build of contrib/perf/build-frontend.sh (the env
#                        file then also exports LD_LIBRARY_PATH)
#
# With --dbd, AccountingStoragePass names the private munge socket (Slurm
# uses it for connections to slurmdbd).
# Writes DIR/env (source it: exports SLURM_CONF and FAIRWAY_CLUSTER).
# contrib/cluster-stop.sh --dir DIR ends everything this started.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
name=fw; nodes=4; cpus=2; mem=1000; port=17000
plugins="$top/plugins"; extra=""; fwconf=""; dbd=0; fairway=1; dir=""; gres=""
gres_weight=""
dbdport=""; frontend=""; more_params=""; select_params=""; threads=
sockets=
select_type=select/cons_tres
topo=""

while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir=$2; shift 2;;
    --name) name=$2; shift 2;;
    --nodes) nodes=$2; shift 2;;
    --cpus) cpus=$2; shift 2;;
    --mem) mem=$2; shift 2;;
    --select-params) select_params=$2; shift 2;;
    --select-type) select_type=$2; shift 2;;
    --threads) threads=$2; shift 2;;
    --sockets) sockets=$2; shift 2;;
    --port) port=$2; shift 2;;
    --plugins) plugins=$2; shift 2;;
    --slurm-extra) extra=$2; shift 2;;
    --fairway-conf) fwconf=$2; shift 2;;
    --topology) topo=$2; shift 2;;
    --gres) gres="$gres${gres:+ }$2"; shift 2;;
    --gres-weight) gres_weight=$2; shift 2;;
    --dbd) dbd=1; shift;;
    --dbd-port) dbdport=$2; shift 2;;
    --no-fairway) fairway=0; shift;;
    --sched-params) more_params=$2; shift 2;;
    --frontend) frontend=$2; shift 2;;
    -h|--help) sed -n '2,56p' "$0"; exit 0;;
    *) echo "cluster-start: unknown option $1" >&2; exit 2;;
  esac
done
[ -n "$dir" ] || dir="$top/run/$name"
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

log() { echo "cluster-start[$name]: $*"; }
die() { echo "cluster-start[$name]: ERROR: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "must run as root (slurmd needs it)"
command -v slurmctld-wlm >/dev/null || die "slurmctld-wlm missing: run contrib/install-deps.sh"
if [ "$fairway" = 1 ]; then
  for p in priority_fairway.so sched_fairway.so; do
    [ -f "$plugins/$p" ] || die "$plugins/$p missing: build first (make)"
  done
fi
if [ -n "$frontend" ]; then
  [ -x "$frontend/src/slurmctld/.libs/slurmctld" ] && [ -f "$frontend/src/api/.libs/libslurmfull.so" ] \
    || die "$frontend is not a front-end build: run contrib/perf/build-frontend.sh"
  command -v slurmd-wlm-emulator >/dev/null || die "slurmd-wlm-emulator missing: run contrib/perf/build-frontend.sh"
  # Daemons and clients must load the front-end libslurmfull.so.
  export LD_LIBRARY_PATH="$frontend/src/api/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
if [ -f "$dir/pids" ] && [ -s "$dir/pids" ]; then
  die "$dir already has a running cluster (contrib/cluster-stop.sh --dir $dir)"
fi

# A fresh cluster starts with fresh accounting too (job ids restart at 1).
rm -rf "$dir/state" "$dir/spool" "$dir/log" "$dir/run" "$dir/munge" "$dir/mysql"
mkdir -p "$dir"/{etc,state,spool,log,run,munge}
chmod 755 "$dir" "$dir/munge" "$dir/run"
: > "$dir/pids"

# ---- munge: private key and socket -------------------------------------
sock="$dir/munge/munge.sock"
[ ${#sock} -lt 100 ] || die "munge socket path too long ($sock); use a shorter --dir"
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 600 "$dir/munge/munge.key"
export FAIRWAY_CLUSTER="$dir"   # marks every process we start (see cluster-stop.sh)
munged --key-file="$dir/munge/munge.key" --socket="$sock" \
  --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" \
  --seed-file="$dir/munge/munged.seed" --force \
  || die "munged failed; see $dir/log/munged.log"
for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done
[ -S "$sock" ] || die "munged socket did not appear; see $dir/log/munged.log"
echo "munged $(cat "$dir/munge/munged.pid")" >> "$dir/pids"

# ---- slurm.conf ----------------------------------------------------------
last=$((port + nodes))
conf="$dir/etc/slurm.conf"
if [ "$fairway" = 1 ]; then
  prio_type=priority/fairway; sched_type=sched/fairway
  plugindir="$plugins:/usr/lib/x86_64-linux-gnu/slurm-wlm"
  # Fairway owns the main pass too: Slurm's built-in main scheduler is
  # switched off (sched_interval=-1).  No 'defer': an salloc/srun at the
  # top of the queue starts at submission, as with Slurm's own plugins
  # (sched_fairway(8)).
  sched_params="sched_interval=-1"
else
  prio_type=priority/multifactor; sched_type=sched/backfill
  plugindir=/usr/lib/x86_64-linux-gnu/slurm-wlm
  sched_params="bf_interval=5"
fi
[ -z "$more_params" ] || sched_params="$sched_params,$more_params"

acct_lines="AccountingStorageType=accounting_storage/none"
if [ "$dbd" = 1 ]; then
  [ -n "$dbdport" ] || dbdport=$((port + 999))
  acct_lines="AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=$dbdport
AccountingStoragePass=$sock
AccountingStorageEnforce=associations,limits,qos"
fi
# NodeName lines: one range, or one line per node when --gres gives nodes
# generic resources.
cores=""
if [ -n "$threads$sockets" ]; then
  t=${threads:-1}; k=${sockets:-1}
  [ "$t" -ge 1 ] && [ "$k" -ge 1 ] && [ $((cpus % (t * k))) = 0 ] \
    || die "--sockets ${sockets:-1} x --threads ${threads:-1} does not divide --cpus $cpus"
  cores=" Sockets=$k CoresPerSocket=$((cpus / (t * k))) ThreadsPerCore=$t"
fi
node_range() { # first last [extra]
  [ "$1" -le "$2" ] || return 0
  echo "NodeName=n[$1-$2] NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((port + $1))-$((port + $2)) CPUs=$cpus$cores RealMemory=$mem${3:+ $3} State=UNKNOWN"
}
gres_lines=""
# NodeName lines of the front-end mode: one per run of nodes with the same
# Gres= (no Port: the one front-end daemon serves them all).
fe_node_lines() {
  local i a=1 g prev
  prev=${node_gres[1]:-}
  for i in $(seq 2 $((nodes + 1))); do
    g=${node_gres[$i]:-}
    [ "$i" -le "$nodes" ] && [ "$g" = "$prev" ] && continue
    echo "NodeName=n[$a-$((i - 1))] NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem${prev:+ Gres=$prev}${prev:+${gres_weight:+ Weight=$gres_weight}} State=UNKNOWN"
    a=$i; prev=$g
  done
}
declare -A node_gres=() fe_gres=()
if [ -n "$gres" ]; then
  types=""; : > "$dir/etc/gres.conf"; mkdir -p "$dir/gres"
  for spec in $gres; do
    [[ "$spec" =~ ^([0-9]+)(-([0-9]+))?:([a-z]+)(:([a-z0-9]+))?:([0-9]+)$ ]] \
      || die "--gres wants A-B:NAME[:TYPE]:COUNT (e.g. 1-2:gpu:a100:2), got '$spec'"
    ga=${BASH_REMATCH[1]}; gb=${BASH_REMATCH[3]:-$ga}; gname=${BASH_REMATCH[4]}
    gtype=${BASH_REMATCH[6]}; gcnt=${BASH_REMATCH[7]}
    [ "$ga" -ge 1 ] && [ "$ga" -le "$gb" ] && [ "$gb" -le "$nodes" ] \
      || die "--gres node range $ga-$gb is not inside 1-$nodes"
    case ",$types," in *",$gname,"*) ;; *) types="$types${types:+,}$gname";; esac
    line="NodeName=n[$ga-$gb] Name=$gname${gtype:+ Type=$gtype} Count=$gcnt"
    if [ -n "$frontend" ]; then
      # A count-only GRES (no File) reaches 22.05's slurmctld from the
      # front end as 0 (tried with tmpdisk: its nodes go DOWN).
      [ "$gname" = gpu ] || die "--frontend takes only gpu GRES, not '$spec'"
      key="$gname:$gtype"
      [ "${fe_gres[$key]:-0}" -ge "$gcnt" ] || fe_gres[$key]=$gcnt
      line=""
    elif [ "$gname" = gpu ]; then
      # GPUs without device files are dropped by slurmd: placeholders
      # (nothing opens them: TaskPlugin=task/none).
      for i in $(seq 0 $((gcnt - 1))); do : > "$dir/gres/$gname${gtype}$i"; done
      line="$line File=$dir/gres/$gname${gtype}[0-$((gcnt - 1))]"
    fi
    [ -z "$line" ] || echo "$line" >> "$dir/etc/gres.conf"
    for i in $(seq "$ga" "$gb"); do
      node_gres[$i]="${node_gres[$i]:-}${node_gres[$i]:+,}$gname${gtype:+:$gtype}:$gcnt"
    done
  done
  for key in "${!fe_gres[@]}"; do
    gname=${key%%:*}; gtype=${key#*:}; gcnt=${fe_gres[$key]}
    line="Name=$gname${gtype:+ Type=$gtype} Count=$gcnt"
    if [ "$gname" = gpu ]; then
      for i in $(seq 0 $((gcnt - 1))); do : > "$dir/gres/$gname${gtype}$i"; done
      line="$line File=$dir/gres/$gname${gtype}[0-$((gcnt - 1))]"
    fi
    echo "$line"
  done >> "$dir/etc/gres.conf"
  gres_lines="GresTypes=$types"
fi
if [ -n "$frontend" ]; then
  # One front-end daemon (its port is SlurmdPort) for every node.
  node_lines="FrontendName=fe1 FrontendAddr=127.0.0.1 Port=$((port + 1))
$(fe_node_lines)"
  [ -n "$gres" ] || rm -f "$dir/etc/gres.conf"
elif [ -n "$gres" ]; then
  node_lines=$(for i in $(seq 1 "$nodes"); do
    node_range "$i" "$i" "${node_gres[$i]:+Gres=${node_gres[$i]}${gres_weight:+ Weight=$gres_weight}}"; done)
else
  node_lines=$(node_range 1 "$nodes")
  rm -f "$dir/etc/gres.conf"
fi
# select/linear takes no CR_CPU/CR_Core (only CR_Memory, if asked for)
if [ -z "$select_params" ] && [ "$select_type" = select/cons_tres ]; then
  select_params=CR_CPU
fi
select_line=${select_params:+SelectTypeParameters=$select_params}
cat > "$conf" <<EOF
# Generated by contrib/cluster-start.sh for cluster '$name'
ClusterName=$name
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SlurmdParameters=config_overrides
ReturnToService=2
MailProg=/bin/true
SelectType=$select_type
$select_line
MpiDefault=none
PluginDir=$plugindir
PriorityType=$prio_type
SchedulerType=$sched_type
SchedulerParameters=$sched_params
PriorityWeightAge=1000
PriorityWeightPartition=1000
PriorityMaxAge=1-0
PriorityCalcPeriod=1
$acct_lines
$gres_lines
${topo:+TopologyPlugin=topology/tree}
JobCompType=jobcomp/none
InactiveLimit=0
KillWait=5
MinJobAge=300
Waittime=0
$node_lines
PartitionName=batch Nodes=n[1-$nodes] Default=YES MaxTime=INFINITE State=UP PriorityJobFactor=1
EOF
if [ -n "$extra" ]; then
  # Later keys win in slurm.conf: drop the defaults that the extra file sets.
  while IFS= read -r line; do
    k=${line%%=*}
    case "$k" in ''|\#*|NodeName|PartitionName) continue;; esac
    sed -i "/^$k=/d" "$conf"
  done < "$extra"
  cat "$extra" >> "$conf"
fi
# Front end with GRES: the front-end slurmd keeps only the gres.conf
# entries that slurm.conf gives a node of its own name (fe1, a front end
# here, so none: slurmctld would set every GRES node DOWN for reporting
# fewer than slurm.conf gives it).  Its own copy of slurm.conf names the
# front end fe0 and adds a node fe1 (State=FUTURE) with the largest count
# of each GRES, which the front end then reports for every node;
# slurmctld ignores the excess on nodes with fewer.
fe_conf=$conf
if [ -n "$frontend" ] && [ -n "$gres" ]; then
  fe_conf="$dir/etc/slurm-frontend.conf"
  fe_list=""
  for key in "${!fe_gres[@]}"; do fe_list="$fe_list${fe_list:+,}${key%:}:${fe_gres[$key]}"; done
  sed -e 's/^FrontendName=fe1 /FrontendName=fe0 /' "$conf" > "$fe_conf"
  echo "NodeName=fe1 NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((port + 1)) CPUs=$cpus RealMemory=$mem Gres=$fe_list State=FUTURE" >> "$fe_conf"
fi
# Readable by all, like slurm.conf: the fairway command reads FairwayPort.
if [ -n "$fwconf" ]; then install -m 644 "$fwconf" "$dir/etc/fairway.conf"; fi
if [ -n "$topo" ]; then
  install -m 644 "$topo" "$dir/etc/topology.conf"
else
  rm -f "$dir/etc/topology.conf"
fi
# From 24.05 slurmd initialises its cgroup plugin even with
# proctrack/linuxproc and task/none, and fails without a usable cgroup
# hierarchy (a Debian 13 root); "disabled" exists from 24.05 on.
ctld_ver=$(slurmctld-wlm -V 2>/dev/null | awk '{ print $2 }')
if [ "$(printf '%s\n24.05\n' "$ctld_ver" | sort -V | head -n1)" = 24.05 ]; then
  echo "CgroupPlugin=disabled" > "$dir/etc/cgroup.conf"
else
  rm -f "$dir/etc/cgroup.conf"
fi
export SLURM_CONF="$conf"

# ---- slurmdbd + MariaDB (optional) ---------------------------------------
if [ "$dbd" = 1 ]; then
  "$top/contrib/dbd-start.sh" --dir "$dir" --port "$dbdport" --cluster "$name" \
    || die "slurmdbd failed; see $dir/log/slurmdbd.log"
fi

# ---- daemons ---------------------------------------------------------------
start_daemon() { # label logfile cmd...
  local label=$1 lf=$2; shift 2
  setsid "$@" > "$lf" 2>&1 < /dev/null &
  echo "$label $!" >> "$dir/pids"
}
# Slurm decides "am I slurmctld/slurmd" from basename(argv[0]); production
# runs them as 'slurmctld'/'slurmd' (systemd units), so do the same through
# symlinks to Debian's normal (non-emulator) binaries.
mkdir -p "$dir/bin"
if [ -n "$frontend" ]; then
  ln -sfn "$frontend/src/slurmctld/.libs/slurmctld" "$dir/bin/slurmctld"
  ln -sfn "$(command -v slurmd-wlm-emulator)" "$dir/bin/slurmd"
  stepd=/usr/sbin/slurmstepd-wlm-emulator
else
  ln -sfn "$(command -v slurmctld-wlm)" "$dir/bin/slurmctld"
  ln -sfn "$(command -v slurmd-wlm)" "$dir/bin/slurmd"
  stepd=/usr/sbin/slurmstepd-wlm
fi
start_daemon slurmctld "$dir/log/slurmctld.out" "$dir/bin/slurmctld" -D -i -f "$conf"
if [ -n "$frontend" ]; then
  start_daemon slurmd-fe1 "$dir/log/slurmd.fe1.out" \
    "$dir/bin/slurmd" -D -N fe1 -f "$fe_conf" -d "$stepd"
else
  for i in $(seq 1 "$nodes"); do
    start_daemon "slurmd-n$i" "$dir/log/slurmd.n$i.out" \
      "$dir/bin/slurmd" -D -N "n$i" -f "$conf" -d "$stepd"
  done
fi

cat > "$dir/env" <<EOF
export SLURM_CONF=$conf
export FAIRWAY_CLUSTER=$dir
EOF
if [ -n "$frontend" ]; then
  echo "export LD_LIBRARY_PATH=$LD_LIBRARY_PATH" >> "$dir/env"
fi

# ---- wait for the controller and for all nodes to be idle ------------------
ctld_pid=$(awk '$1=="slurmctld"{print $2}' "$dir/pids")
for _ in $(seq 300); do
  kill -0 "$ctld_pid" 2>/dev/null || { tail -20 "$dir/log/slurmctld.log" >&2 || true; \
    die "slurmctld exited; see $dir/log/slurmctld.log"; }
  idle=$(sinfo -h -N -t idle -o '%N' 2>/dev/null | sort -u | wc -l || true)
  [ "$idle" -ge "$nodes" ] && break
  sleep 0.2
done
[ "${idle:-0}" -ge "$nodes" ] || die "only ${idle:-0}/$nodes nodes idle after 60 s; see $dir/log/"
log "up: $nodes nodes idle; source $dir/env"
