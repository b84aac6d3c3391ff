#!/bin/bash
# Shared nodes with sockets as the unit (issue 14): select/cons_tres with
# SelectTypeParameters=CR_Socket_Memory on 2 nodes of 2 sockets x 2 cores
# (4 CPUs, one thread per core, 1000 MB).  With CR_Socket, Slurm allocates
# whole sockets (slurm.conf(5)): a 1-CPU job holds 2 CPUs, a socket, in the
# plan as when it runs.  The scenario, worked by hand, and the twin under
# sched/backfill: units_lib.sh.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/twin_lib.sh"
source "$(dirname "$0")/units_lib.sh"

units_test fw-sockets 18140 18150 socket \
  --nodes 2 --cpus 4 --sockets 2 --mem 1000 --select-params CR_Socket_Memory
finish
