#!/usr/bin/env python3
"""The list files of testsuite/slurm-pytest (selection.txt, excluded.txt,
differences.txt) for one Slurm release.

One format for the three files.  A line is "[TAGS] NAME [REASON]"; lines
starting with '#' are comments.

* TAGS (optional): the Slurm releases the line applies to, in brackets,
  comma-separated: "[24.11]", "[22.05,23.02]", or "[24.11+]" (that release
  and later).  A line without tags applies to every release.
* NAME: a test file under testsuite/python ("tests/commands/srun/
  test_--chdir.py"), optionally with "::test" (differences.txt).  Slurm
  23.02 renamed the suite's files to numbers (tests/test_116_22.py) and
  lists each number's former path in its testsuite/README; a NAME may be
  either, and is resolved through the README of the release under test.
  Tests that never had a path name are written with their number.

An entry of excluded.txt that names one test of a file ("FILE::test" or
"FILE::test[param]") leaves out that test only: the file still runs
(selection.txt) and the test is passed to pytest as --deselect.

  python3 lists.py selection --suite DIR --readme FILE --version X.Y
prints pytest's arguments, one per line (the files to run, then
--deselect=FILE::test), and fails (exit 1, a message per problem) when a
selected test is not in the suite, when a file is both selected and
excluded, or when a test file of the suite is in neither list (every test
of every release is accounted for, with a reason).
"""
import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TAGS = re.compile(r"^\[([0-9.+, ]+)\]\s*")


def version_key(v):
    return tuple(int(x) for x in v.split("."))


def applies(tags, version):
    """Does a line tagged 'tags' (e.g. '22.05,24.11+') apply to version?"""
    if tags is None:
        return True
    for tag in tags.split(","):
        tag = tag.strip()
        if tag.endswith("+"):
            if version_key(version) >= version_key(tag[:-1]):
                return True
        elif tag == version:
            return True
    return False


def read_list(path, version):
    """[(name, reason)] of the lines of 'path' that apply to 'version'."""
    entries = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            tags = None
            m = TAGS.match(line)
            if m:
                tags, line = m.group(1), line[m.end():]
            if not applies(tags, version):
                continue
            name, _, reason = line.partition(" ")
            entries.append((name, reason.strip()))
    return entries


def read_names(readme):
    """Slurm's testsuite/README (23.02 and later): 'test_116_22
    /commands/srun/test_--chdir.py' -> {'tests/commands/srun/
    test_--chdir.py': 'tests/test_116_22.py'}.  Empty for older
    releases (no numbered python tests)."""
    names = {}
    if not readme or not os.path.exists(readme):
        return names
    pat = re.compile(r"^(test_\d+_\d+)\s+(/\S+\.py)\s*$")
    with open(readme, errors="replace") as f:
        for line in f:
            m = pat.match(line.strip())
            if m:
                names["tests" + m.group(2)] = f"tests/{m.group(1)}.py"
    return names


class Names:
    """Translate between a test's former path and its file in this release."""

    def __init__(self, readme):
        self.to_file = read_names(readme)
        self.to_path = {v: k for k, v in self.to_file.items()}

    def file(self, name):
        """NAME[::test] -> file[::test] of this release"""
        path, sep, test = name.partition("::")
        return self.to_file.get(path, path) + sep + test

    def path(self, name):
        """file[::test] of this release -> former path[::test] (if any)"""
        f, sep, test = name.partition("::")
        return self.to_path.get(f, f) + sep + test

    def label(self, name):
        """How the results table names a test: its former path, with the
        file of this release in parentheses when it was renamed."""
        f = name.partition("::")[0]
        if f in self.to_path:
            return f"{self.path(name)} ({os.path.basename(f)[:-3]})"
        return name


def selection(suite, readme, version):
    names = Names(readme)
    sel = [names.file(n) for n, _ in read_list(os.path.join(HERE, "selection.txt"), version)]
    exc_all = [names.file(n) for n, _ in read_list(os.path.join(HERE, "excluded.txt"), version)]
    exc = [t for t in exc_all if "::" not in t]
    deselect = [t for t in exc_all if "::" in t]
    problems = []
    for t in sel:
        if not os.path.isfile(os.path.join(suite, t.partition("::")[0])):
            problems.append(f"selected test {t} is not in Slurm {version}'s suite")
    for t in sorted(set(sel) & set(exc)):
        problems.append(f"{t} is both selected and excluded for Slurm {version}")
    for t in deselect:
        if t.partition("::")[0] not in sel:
            problems.append(f"excluded test {t} is not in a selected file")
    listed = {t.partition("::")[0] for t in sel + exc}
    for root, _, files in os.walk(os.path.join(suite, "tests")):
        for f in files:
            if re.match(r"test_.*\.py$", f):
                rel = os.path.relpath(os.path.join(root, f), suite)
                if rel not in listed:
                    problems.append(f"{names.label(rel)} is in Slurm {version}'s suite but "
                                    "in neither selection.txt nor excluded.txt")
    return sel + [f"--deselect={t}" for t in deselect], problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["selection"])
    ap.add_argument("--suite", required=True, help="testsuite/python (a copy)")
    ap.add_argument("--readme", help="Slurm's testsuite/README")
    ap.add_argument("--version", required=True, help="Slurm release, X.Y")
    a = ap.parse_args()
    sel, problems = selection(a.suite, a.readme, a.version)
    for p in sorted(problems):
        print(f"lists: {p}", file=sys.stderr)
    if problems:
        return 1
    if not sel:
        print(f"lists: empty selection for Slurm {a.version}", file=sys.stderr)
        return 1
    print("\n".join(sel))
    return 0


if __name__ == "__main__":
    sys.exit(main())
