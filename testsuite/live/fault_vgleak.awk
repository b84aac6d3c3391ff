# Sum valgrind memcheck loss records whose allocation stack goes through
# Fairway's code (a frame in one of its source files or shared objects).
# Prints "<kind>|<bytes>|<records>" per kind (definitely lost, ...).
# With -v own=1 only records Fairway allocated itself count: the first
# frame below the allocator functions is Fairway's (not e.g. Slurm's
# select_nodes() called by Fairway, whose memory belongs to Slurm's job).
# Strings Fairway puts into Slurm's job records (set_estimate():
# job->sched_nodes, as sched/backfill does) belong to the job too: Slurm
# frees them when the job starts or is purged (job_mgr.c, node_scheduler.c),
# and a pending job's record is still alive when slurmctld exits.
# GCC may name the frame after a clone (set_estimate.part.0.isra.0).
function flush() {
  if (inrec && fw && (!own || mine)) { bytes[kind] += n; recs[kind]++ }
  inrec = 0
}
/ bytes in .* blocks are .* in loss record / {
  flush()
  n = $2; gsub(",", "", n)
  kind = $0; sub(/.* blocks are /, "", kind); sub(/ in loss record.*/, "", kind)
  inrec = 1; fw = 0; mine = 0; decided = 0; next
}
inrec && /(at|by) 0x[0-9A-Fa-f]+: / {
  f = $0; sub(/.*0x[0-9A-Fa-f]+: /, "", f)
  ours = f ~ /\((sf|pf|fw)_[a-z_]*\.c:|\((priority|sched)_fairway\.c:|_fairway\.so/
  if (ours) fw = 1
  if (!decided && f !~ /^(malloc|calloc|realloc|strdup|strndup|fw_x[a-z]*|fw_strn?dup|slurm_x[a-z]*|xstrn?dup|_?xstrfmtcat|xstrcat|_xstrcat) /) {
    decided = 1; mine = ours && f !~ /^set_estimate[ .]/
  }
}
inrec && /^==[0-9]+== *$/ { flush() }
END { flush(); for (k in bytes) printf "%s|%d|%d\n", k, bytes[k], recs[k] }
