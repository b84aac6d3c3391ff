#!/bin/bash
# Shared nodes with hyper-threads (issue 14): select/cons_tres with
# SelectTypeParameters=CR_Core on 2 nodes of 2 cores x 2 threads (4 CPUs).
# Slurm never gives two jobs threads of one core (slurm.conf(5), CR_Core):
# a 1-CPU job takes a whole core, 2 CPUs, in the plan as when it runs.
# The scenario, worked by hand, and the twin under sched/backfill:
# units_lib.sh.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/twin_lib.sh"
source "$(dirname "$0")/units_lib.sh"

units_test fw-cores 17800 17810 core \
  --nodes 2 --cpus 4 --threads 2 --select-params CR_Core
finish
