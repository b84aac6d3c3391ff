"""pytest plugin: run Slurm's own test suite (testsuite/python, its ATF
library lib/atf.py) against a cluster that loads Fairway's plugins.

Slurm's tests skip themselves unless the cluster runs the plugins they were
written for: atf.require_config_parameter("PriorityType",
"priority/multifactor") and ("SchedulerType", "sched/backfill").  Fairway's
plugins are drop-in replacements for those two, so this plugin wraps that
one ATF function: the gate also passes when the configured value is the
Fairway plugin standing in for the required one.  Every other gate, and
every gate with a condition or another config file, is left to the ATF.

It also lets require_accounting(modify=True) run in local-config mode when
the runner says the accounting database is a throw-away one
(FW_PYTEST_THROWAWAY_DBD=1: MariaDB + slurmdbd started for this run by
contrib/dbd-start.sh on a database that contrib/cluster-start.sh creates
afresh for every run); the ATF would otherwise
skip those tests because it cannot back up and restore a site's database
in local-config mode.

Between test modules it cancels every job, as the ATF's own module
teardown does in auto-config mode (conftest.py's module_teardown calls
atf.cancel_all_jobs()) but not in local-config mode: otherwise a job a test
leaves running (sprio's tests leave a whole-cluster "sleep 600") decides
whether later tests find free nodes, and the two plugin sets would be
compared on different queues.

After that clean-up it also empties the ATF's list of submitted jobs
(atf.properties["submitted-jobs"]).  The ATF never empties it in a session,
and its local-config module teardown waits for every job in it to be done,
failing ("Job (1) was not found in the job configuration") once slurmctld
has purged an old finished job (MinJobAge, 300 s): every module after the
first five minutes of a session would error in teardown.  The jobs of the
list are all cancelled and done at that point.

Nothing in Slurm's tree is changed: the runner loads this module with
"-p fairway_atf" and it patches the already imported atf module in memory.
"""
import os

import atf
import pytest

# Required value -> Fairway's plugin that replaces it.
DROP_IN = {
    ("prioritytype", "priority/multifactor"): "priority/fairway",
    ("schedulertype", "sched/backfill"): "sched/fairway",
}

_require_config_parameter = atf.require_config_parameter
_require_accounting = atf.require_accounting


def _stands_in(name, value, source):
    """Is the configured value Fairway's replacement for the required one?"""
    if source != "slurm" or not isinstance(value, str):
        return False
    alt = DROP_IN.get((name.lower(), value.lower()))
    if alt is None:
        return False
    observed = atf.get_config_parameter(name, live=False, source=source, quiet=True)
    return isinstance(observed, str) and observed.lower() == alt


def require_config_parameter(parameter_name, parameter_value, condition=None,
                             source="slurm", skip_message=None, **more):
    # more: arguments of later ATFs (24.11: delimiter), passed on as given
    if condition is None and _stands_in(parameter_name, parameter_value, source):
        return
    return _require_config_parameter(parameter_name, parameter_value,
                                     condition=condition, source=source,
                                     skip_message=skip_message, **more)


def require_accounting(modify=False):
    if (modify and not atf.properties.get("auto-config")
            and os.environ.get("FW_PYTEST_THROWAWAY_DBD") == "1"):
        # the database is discarded with the cluster: nothing to restore
        return _require_accounting(modify=False)
    return _require_accounting(modify=modify)


atf.require_config_parameter = require_config_parameter
atf.require_accounting = require_accounting


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem):
    """After the last test of a module: an empty queue for the next one."""
    if nextitem is None or nextitem.fspath != item.fspath:
        atf.cancel_all_jobs(quiet=True)
        atf.properties.get("submitted-jobs", []).clear()
