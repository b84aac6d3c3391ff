#!/usr/bin/env python3
"""Scan settings of the starvation-bounded preset against FCFS EASY.

Each setting is a preset directory (fairway.conf and the slurm.conf of
doc/examples/starvation with its SchedulerParameters replaced) run through
testsuite/sim/starvation.sh with SELECT_TYPE=select/linear (the same numbers
as the default for these whole-node traces, doc/policy-starvation.md, and
about 5 s a setting).  Printed per setting: the change in mean bounded
slowdown / maximum wait against EASY on the six loaded traces, in %, and the
"slack", the smallest margin to the goal over those twelve numbers (bsld at
least 30 % lower, maximum wait no higher): >= 0 meets the goal everywhere.

usage: testsuite/sim/starvation-scan.py [-j WORKERS] FILE.json | --random N [--seed S]
  FILE.json: {"name": {"fairway": {"Key": value, ...},
                       "sched": "bf_min_age_reserve=43200,..."}, ...}
  --random N: N settings drawn over the terms of doc/policy-starvation.md
  ("Fifth scan"); the same N and seed give the same settings.
Run from the source tree after make (fairway-sim must be built).
"""
import argparse
import concurrent.futures as cf
import json
import os
import random
import re
import subprocess
import tempfile

TOP = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..'))
LOADED = ['lublin-aaroh-x0.05', 'lublin-aaroh-x0.043', 'lublin-aaroh-x0.038',
          'gentrace-0.82', 'gentrace-1.0', 'gentrace-1.14']
BASE_SCHED = 'bf_interval=30,bf_window=2880,bf_resolution=60'


def draw(n, seed):
    """n random settings: XFactor order plus a choice of the other terms."""
    rng = random.Random(seed)
    out = {}
    for k in range(n):
        fw = {'PriorityWeightXFactor': 1000}
        qt = rng.choice([0, 1, 3, 10])
        sw = rng.choice([0, 5, 10, 30, 100])
        sth = rng.choice([6, 12, 18, 24, 36]) if sw else None
        age = rng.choice([0, 21600, 43200, 86400])
        prio = rng.choice([3000, 6000, 12000]) if rng.random() < 0.3 else 0
        nodes = rng.choice([0, 0, 1, 3, 10, 30])
        byp = 10 if rng.random() < 0.2 else 0
        fw['XFMinWCLimit'] = rng.choice([10, 10, 30, 60])
        fw['PriorityCapXFactor'] = rng.choice([1000000, 1000000, 20000,
                                               50000])
        wall = rng.choice([0, 0, 0, '-1/10', '-1'])
        for key, v in (('PriorityWeightQueueTime', qt),
                       ('PriorityWeightNodes', nodes),
                       ('PriorityWeightBypass', byp),
                       ('PriorityWeightWalltime', wall)):
            if v:
                fw[key] = v
        if sw:
            fw['StarvationThreshold'] = '%d:00:00' % sth
            fw['PriorityWeightStarvation'] = sw
        sched = BASE_SCHED
        if age:
            sched += ',bf_min_age_reserve=%d' % age
        if prio:
            sched += ',bf_min_prio_reserve=%d' % prio
        out['r%03d' % k] = {'fairway': fw, 'sched': sched}
    return out


def write_preset(d, s):
    os.makedirs(d)
    with open(os.path.join(d, 'fairway.conf'), 'w') as f:
        for key, v in s['fairway'].items():
            f.write('%s=%s\n' % (key, v))
    with open(os.path.join(TOP, 'doc/examples/starvation/slurm.conf')) as f:
        conf = f.read()
    with open(os.path.join(d, 'slurm.conf'), 'w') as f:
        f.write(re.sub(r'(?m)^SchedulerParameters=.*$',
                       'SchedulerParameters=' + s.get('sched', BASE_SCHED),
                       conf))


def changes(table):
    """trace -> (bsld change %, max wait change %) from starvation.sh."""
    rows = {}
    for line in table.splitlines():
        if not line.startswith('| ') or line.startswith('| trace') or \
           line.startswith('|---'):
            continue
        f = [x.strip() for x in line.strip('|').split('|')]
        key = 'easy' if f[2].startswith('EASY') else 'preset'
        rows.setdefault(f[0], {})[key] = (float(f[5]), float(f[6]))
    out = {}
    for t, v in rows.items():
        if 'easy' in v and 'preset' in v:
            (me, be), (mp, bp) = v['easy'], v['preset']
            out[t] = (100 * (bp - be) / be, 100 * (mp - me) / me)
    return out


def run(tmp, name, s):
    d = os.path.join(tmp, name)
    write_preset(d, s)
    env = dict(os.environ, PRESET=d, SELECT_TYPE='select/linear')
    r = subprocess.run(['sh', 'testsuite/sim/starvation.sh', '.'], cwd=TOP,
                       env=env, capture_output=True, text=True, check=True)
    ch = changes(r.stdout)
    if any(t not in ch for t in LOADED):
        return name, s, ch, None
    slack = min([-30 - ch[t][0] for t in LOADED] +
                [-ch[t][1] for t in LOADED])
    return name, s, ch, slack


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('file', nargs='?')
    ap.add_argument('--random', type=int, default=0)
    ap.add_argument('--seed', type=int, default=7)
    ap.add_argument('-j', type=int, default=2)
    a = ap.parse_args()
    if a.random:
        settings = draw(a.random, a.seed)
    elif a.file:
        with open(a.file) as f:
            settings = json.load(f)
    else:
        ap.error('a settings file or --random N')
    print('| setting | slack | ' + ' | '.join(LOADED) + ' | settings |')
    print('|---|---|' + '---|' * len(LOADED) + '---|')
    with tempfile.TemporaryDirectory() as tmp, \
            cf.ThreadPoolExecutor(a.j) as ex:
        for name, s, ch, slack in ex.map(lambda kv: run(tmp, *kv),
                                         settings.items()):
            cells = ['%+.0f/%+.0f' % ch[t] if t in ch else '-'
                     for t in LOADED]
            print('| %s | %s | %s | %s %s |' % (
                name, '-' if slack is None else '%.1f' % slack,
                ' | '.join(cells), json.dumps(s['fairway']), s['sched']),
                flush=True)


if __name__ == '__main__':
    main()
