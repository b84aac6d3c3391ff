# hold_lib.sh - one scenario for requests whose memory on a node is not
# simply a default per CPU (issue 14), sourced after lib.sh and
# twin_lib.sh by test_sched_nomem.sh and test_sched_mempergpu.sh on 2
# nodes of 4 CPUs and 1000 MB.  The test defines
#   hold_job KIND LIMIT_MIN SLEEP_S   submit job A, B, C or D (KIND a-d)
# such that A leaves too little memory on its node for another A-like
# job, B goes elsewhere, C needs what only A's end frees, and D fits
# beside one of them now.  hold_scen then, on each twin:
#   1. A (1-minute limit, 15 s), then B (3 minutes, 15 s): where each runs;
#   2. C (1 minute, 2 s) and D (1 minute, 10 s) submitted: C's state and
#      SchedNodeList, its StartTime against A's start (c_start), how often
#      select_nodes() refused it (c_refused), D's state and node; both run.
# hold_checks D_NODE checks Fairway's side: A on n1, B on n2, C pending and
# planned on n1 at A's limit (60 s, +-2), never refused, D running on
# D_NODE, C and D completed.

hold_scen() {
  local a b c d
  say "1. A, then B"
  a=$(hold_job a 1 15)
  wait_until 10 all_running 1
  b=$(hold_job b 3 15)
  wait_until 10 all_running 2
  echo "a $(node_of "$a") $(hold_detail "$a")"
  echo "b $(node_of "$b")"
  say "2. C waits, 3. D starts"
  c=$(hold_job c 1 2)
  d=$(hold_job d 1 10)
  sleep 4
  echo "c $(job_state "$c") $(job_field "$c" SchedNodeList)"
  echo "c_start $(since "$c" "$(start_epoch "$a")")"
  echo "c_refused $(refused "$c")"
  echo "d $(job_state "$d") $(node_of "$d")"
  wait_until 60 queue_empty
  echo "ran $(job_state "$c") $(job_state "$d")"
}
# what the test wants to know of A beyond its node (none by default)
hold_detail() { :; }

hold_checks() {
  check_eq "1. A runs on n1" n1 "$(f a | cut -d' ' -f1)"
  check_eq "... and B on n2" n2 "$(f b)"
  check_eq "2. C waits, planned on n1" "PENDING n1" "$(f c)"
  check "... at A's limit (StartTime - A's start: 60 s, +-2 s): $(f c_start)" \
    near_s "$(f c_start)" 60
  check_eq "... and is never offered to select_nodes()" 0 "$(f c_refused)"
  check_eq "3. D starts at once on $1" "RUNNING $1" "$(f d)"
  check_eq "... C and D run" "COMPLETED COMPLETED" "$(f ran)"
}
