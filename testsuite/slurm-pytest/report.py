#!/usr/bin/env python3
"""Compare two JUnit results of the same selection of Slurm's pytest suite:
one against Fairway's plugins, one against Slurm's.  Prints a table of every
test with both outcomes and the totals; optionally writes it as Markdown.

Exit status 1 when a test passed with Slurm's plugins and failed (or
errored) with Fairway's and differences.txt has no entry for it.
"""
import argparse
import sys
import xml.etree.ElementTree as ET

import lists


def test_id(case):
    """tests.commands.sprio.test_--weights + test_weights ->
    tests/commands/sprio/test_--weights.py::test_weights (a test class,
    Test_x, as in pytest's ids: file.py::Test_x::test_y)"""
    parts = case.get("classname", "").split(".")
    cls = ""
    if parts and parts[-1][:1].isupper():
        cls = "::" + parts.pop()
    return f"{'/'.join(parts)}.py{cls}::{case.get('name')}"


def outcomes(junit_file):
    """{test id: (outcome, message)}; outcome passed/failed/error/skipped."""
    result = {}
    for case in ET.parse(junit_file).getroot().iter("testcase"):
        outcome, message = "passed", ""
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = {"failure": "failed"}.get(child.tag, child.tag)
                message = (child.get("message") or "").splitlines()[0:1]
                message = message[0] if message else ""
                break
        result[test_id(case)] = (outcome, message)
    return result


def load_differences(path, version, names):
    """differences.txt: '[TAGS] TEST-ID-OR-FILE  reason' lines (lists.py);
    a file entry covers every test in it.  Keys are the files of this
    release (a former path name is translated)."""
    return {names.file(key): reason for key, reason in lists.read_list(path, version)}


def difference_for(test, entries):
    if test in entries:
        return entries[test]
    return entries.get(test.split("::", 1)[0])


def totals(res):
    t = {"passed": 0, "failed": 0, "error": 0, "skipped": 0}
    for outcome, _ in res.values():
        t[outcome] = t.get(outcome, 0) + 1
    return t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fairway", required=True)
    ap.add_argument("--slurm", required=True)
    ap.add_argument("--differences", required=True)
    ap.add_argument("--seconds", nargs=2, type=int, default=[0, 0])
    ap.add_argument("--doc")
    ap.add_argument("--version", required=True, help="Slurm release under test, X.Y")
    ap.add_argument("--readme", help="Slurm's testsuite/README (test numbers)")
    a = ap.parse_args()

    names = lists.Names(a.readme)
    fw, sl = outcomes(a.fairway), outcomes(a.slurm)
    diffs = load_differences(a.differences, a.version, names)
    rows, unexplained = [], []
    for test in sorted(set(fw) | set(sl)):
        f = fw.get(test, ("absent", ""))[0]
        s = sl.get(test, ("absent", ""))[0]
        note = ""
        if s == "passed" and f != "passed" and f != "skipped":
            why = difference_for(test, diffs)
            if why:
                note = f"listed: {why}"
            else:
                note = "UNEXPLAINED: passes with Slurm's plugins only"
                unexplained.append(names.label(test))
        elif s == "passed" and f == "skipped":
            note = "skipped with Fairway only: " + fw[test][1]
            why = difference_for(test, diffs)
            if why:
                note = f"listed: {why}"
            else:
                unexplained.append(names.label(test))
                note = "UNEXPLAINED: " + note
        elif f == "passed" and s != "passed":
            note = "passes with Fairway only"
        elif f != "passed":
            note = (fw[test][1] or sl.get(test, ("", ""))[1])[:90]
        rows.append((names.label(test), s, f, note))

    tf, ts = totals(fw), totals(sl)
    width = max(len(r[0]) for r in rows) if rows else 10
    print(f"{'test':<{width}}  {'slurm':<8} {'fairway':<8} note")
    for test, s, f, note in rows:
        print(f"{test:<{width}}  {s:<8} {f:<8} {note}")
    for label, t, secs in (("Slurm's plugins", ts, a.seconds[1]),
                           ("Fairway's plugins", tf, a.seconds[0])):
        print(f"{label}: {t['passed']} passed, {t['failed']} failed, "
              f"{t['error']} errors, {t['skipped']} skipped ({secs} s, Slurm {a.version})")
    if unexplained:
        print(f"{len(unexplained)} test(s) pass with Slurm's plugins but not with "
              "Fairway's and are not in differences.txt:")
        for test in unexplained:
            print(f"  {test}")

    if a.doc:
        write_doc(a.doc, a.version, rows, ts, tf, a.seconds, unexplained)
    return 1 if unexplained else 0


def markers(version):
    return (f"<!-- slurm-pytest results, Slurm {version}: begin "
            "(written by testsuite/slurm-pytest/run.sh --doc) -->",
            f"<!-- slurm-pytest results, Slurm {version}: end -->")


def results_markdown(rows, ts, tf, seconds, unexplained):
    out = ["| plugins | passed | failed | errors | skipped | seconds |",
           "|---|---|---|---|---|---|",
           f"| priority/multifactor + sched/backfill | {ts['passed']} | {ts['failed']} "
           f"| {ts['error']} | {ts['skipped']} | {seconds[1]} |",
           f"| priority/fairway + sched/fairway | {tf['passed']} | {tf['failed']} "
           f"| {tf['error']} | {tf['skipped']} | {seconds[0]} |",
           "",
           "| test | Slurm's plugins | Fairway's plugins | note |",
           "|---|---|---|---|"]
    for test, s, fw, note in rows:
        out.append(f"| `{test}` | {s} | {fw} | {note.replace('|', '/')} |")
    if unexplained:
        out += ["", "Unexplained differences: " + ", ".join(unexplained)]
    return "\n".join(out) + "\n"


def write_doc(path, version, rows, ts, tf, seconds, unexplained):
    """Replace the block between this release's markers in the document,
    or append such a block (a new document holds only the table)."""
    table = results_markdown(rows, ts, tf, seconds, unexplained)
    BEGIN, END = markers(version)
    try:
        with open(path) as f:
            text = f.read()
    except FileNotFoundError:
        text = ""
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        text = f"{head}{BEGIN}\n{table}{END}{tail}"
    else:
        text = f"{text}{chr(10) if text else ''}{BEGIN}\n{table}{END}\n"
    with open(path, "w") as f:
        f.write(text)


if __name__ == "__main__":
    sys.exit(main())
