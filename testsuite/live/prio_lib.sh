# Helpers for the priority/fairway live tests (sourced after lib.sh).
# Not a test itself: run.sh only runs test_*.sh.

# Restarting by hand: ctld_pid, ctld_alive, not_running, ctld_start (no
# wait), ctld_wait_up, log_mark/log_since come from fault_lib.sh,
# restart_ctld from lib.sh.
source "$(dirname "${BASH_SOURCE[0]}")/fault_lib.sh"

ctld_answers() { timeout 5 scontrol ping 2>/dev/null | grep -q 'is UP'; }
nodes_up() { [ -z "$(sinfo -h -N -t down,unknown -o %N 2>/dev/null)" ]; }

# Stop slurmctld only (nodes, slurmdbd and munge keep running); on SIGTERM
# it saves its state and the plugins save theirs.
ctld_stop() {
  local p; p=$(ctld_pid)
  [ -n "$p" ] || return 0
  kill -TERM "$p" 2>/dev/null
  wait_until 60 not_running "$p" || { kill -KILL "$p"; return 1; }
}

# Start slurmctld and wait until it answers and its nodes are back.
ctld_up() {
  ctld_start
  ctld_wait_up 60 > /dev/null || return 1
  wait_until 60 nodes_up
}

# set_conf FILE KEY VALUE: replace (or add) KEY=VALUE in a Slurm-style file.
set_conf() {
  if grep -q "^$2=" "$1"; then sed -i "s|^$2=.*|$2=$3|" "$1"; else echo "$2=$3" >> "$1"; fi
}

# sshare in parsable form: account|user|rawshares|normshares|rawusage|efctvusage|fairshare|levelfs
# (account names without sshare's indentation).
sshare_rows() {
  sshare -a -n -P -o Account,User,RawShares,NormShares,RawUsage,EffectvUsage,FairShare,LevelFS 2>/dev/null |
    sed 's/^ *//'
}
# RawUsage of an account line (user empty) or of account/user.
sshare_usage() { # account [user]
  sshare_rows | awk -F'|' -v a="$1" -v u="${2:-}" '$1==a && $2==u {print $5; exit}'
}

# Does this Slurm's sprio take a job list (-j A,B)?  24.11.5's does not: it
# parses the whole -j string for every id ("Invalid job id: A").
sprio_takes_job_lists() { # jobid jobid
  local out; out=$(sprio -h -j "$1,$2" -o %i 2>&1)
  ! grep -q 'Invalid job id' <<< "$out"
}

# sprio_field JOBID FORMAT-LETTER: one weighted column of one job.
sprio_field() { sprio -h -j "$1" -o "%$2" 2>/dev/null | awk 'NR==1{print $1}'; }

# Does the sum of sprio's columns equal its PRIORITY column for every line
# of "sprio ARGS"?  Prints the offending lines.  Columns: site, age, assoc,
# fairshare, jobsize, partition, qos, tres (name=value,...), nice.
sprio_sums_ok() {
  sprio -h "$@" -o '%.15i %.12Y %.12S %.12A %.12B %.12F %.12J %.12P %.12Q %.12N %40T' 2>/dev/null |
    awk '{ s = $3 + $4 + $5 + $6 + $7 + $8 + $9 - $10
           n = split($11, t, ","); for (i = 1; i <= n; i++) { split(t[i], kv, "="); s += kv[2] }
           if (s != $2) { print "sum " s " != " $2 ": " $0; bad = 1 } ; lines++ }
         END { exit (bad || !lines) }'
}

# Do the columns of sprio's own default view ("sprio ARGS", with its header)
# add up to its PRIORITY column on every line?  Columns are found by their
# header names: SITE, AGE, ASSOC, FAIRSHARE, JOBSIZE, PARTITION, QOS and
# TRES (name=value,...) add, NICE subtracts.  Prints offending lines; fails
# if there is no job line.
sprio_view_sums_ok() {
  sprio "$@" 2>/dev/null | awk '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; if (!col["PRIORITY"]) exit 2; next }
    { s = 0
      for (n in col) {
        i = col[n]
        if (n == "SITE" || n == "AGE" || n == "ASSOC" || n == "FAIRSHARE" || n == "JOBSIZE" ||
            n == "PARTITION" || n == "QOS") s += $i
        else if (n == "NICE") s -= $i
        else if (n == "TRES" && $i != "") {
          k = split($i, t, ","); for (j = 1; j <= k; j++) { split(t[j], kv, "="); s += kv[2] } }
      }
      if (s != $col["PRIORITY"]) { print "    sum " s " != PRIORITY: " $0; bad = 1 }
      lines++ }
    END { exit (bad || !lines) }'
}

# Multifactor mode (only Slurm's Priority* keys, see fairway.conf(5)): as
# with priority/multifactor, sprio prints each column rounded and PRIORITY
# is the truncated exact sum, so the printed columns of a line add up to
# PRIORITY only within half a point per non-zero column (plus the truncated
# fraction), and SITE is the site factor (0 on these clusters).  Prints
# offending lines; fails if there is none.
sprio_mf_ok() {
  sprio -h "$@" -o '%.15i %.12Y %.12S %.12A %.12B %.12F %.12J %.12P %.12Q %.12N %40T' 2>/dev/null |
    awk '{ s = $3 + $4 + $5 + $6 + $7 + $8 + $9 - $10; n = 0
           for (i = 4; i <= 10; i++) if ($i != 0) n++
           k = split($11, t, ","); for (i = 1; i <= k; i++) { split(t[i], kv, "="); s += kv[2]; n++ }
           d = s - $2
           if ($3 != 0 || d < -0.5 * n || d >= 1 + 0.5 * n) { print "sum " s " vs " $2 ": " $0; bad = 1 }
           lines++ }
         END { exit (bad || !lines) }'
}
