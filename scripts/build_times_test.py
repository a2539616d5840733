#!/usr/bin/env python3
"""Tests of scripts/build-times.py on real ninja logs: one written by ninja itself from a small
build.ninja, and hand-written ones whose times are known. Run by ctest (CMakeLists.txt)."""

import pathlib
import subprocess
import sys
import tempfile
import unittest

SCRIPT = pathlib.Path(__file__).resolve().parent / "build-times.py"


def build_times(build: pathlib.Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), "--build", str(build), *args],
                          capture_output=True, text=True, check=False)


def write_log(build: pathlib.Path, rows: list[tuple[int, int, int, str]]) -> None:
    """rows: (start ms, end ms, mtime s, output), start and end counted from their run's start."""
    lines = ["# ninja log v5"]
    lines += [f"{s}\t{e}\t{m * 1_000_000_000}\t{out}\t0" for s, e, m, out in rows]
    (build / ".ninja_log").write_text("\n".join(lines) + "\n")


class BuildTimes(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.build = pathlib.Path(self.dir.name)

    def tearDown(self):
        self.dir.cleanup()

    def test_wall_time_spans_ninja_runs_by_mtime(self):
        # Two ninja runs: each counts from its own start, so only the mtimes place them in time.
        write_log(self.build, [
            (0, 60_000, 1_000_060, "CMakeFiles/core.dir/a.cc.o"),
            (0, 30_000, 1_000_030, "CMakeFiles/core.dir/b.cc.o"),
            (0, 120_000, 1_000_300, "CMakeFiles/tests.dir/a_test.cc.o"),
            (120_000, 121_000, 1_000_301, "headway"),
        ])
        result = build_times(self.build, "--top", "2")
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.splitlines()
        # From a.cc.o's start (1,000,000 s) to the link's end (1,000,301 s).
        self.assertEqual(lines[0], "wall 5.0 min, summed 3.5 min over 4 outputs (3 objects)")
        self.assertIn("| tests | 1 | 2.0 |", lines)
        self.assertIn("| core | 2 | 1.5 |", lines)
        self.assertIn("| other (links, generated files) | 1 | 0.0 |", lines)
        slowest = lines[lines.index("| slowest outputs | s |") + 2:]
        self.assertEqual(slowest, ["| a_test.cc.o | 120.0 |", "| a.cc.o | 60.0 |"])

    def test_target_counts_only_what_it_needs(self):
        # A real build: ninja writes the log and answers `-t inputs`.
        (self.build / "build.ninja").write_text(
            "rule touch\n  command = mkdir -p $$(dirname $out) && touch $out\n"
            "build CMakeFiles/lib.dir/x.cc.o: touch\n"
            "build CMakeFiles/tests.dir/x_test.cc.o: touch\n"
            "build app: touch CMakeFiles/lib.dir/x.cc.o\n"
            "build app_tests: touch CMakeFiles/tests.dir/x_test.cc.o app\n")
        ninja = subprocess.run(["ninja", "-C", str(self.build)], capture_output=True, text=True)
        self.assertEqual(ninja.returncode, 0, ninja.stdout + ninja.stderr)
        everything = build_times(self.build)
        self.assertEqual(everything.returncode, 0, everything.stderr)
        self.assertIn("over 4 outputs (2 objects)", everything.stdout)
        app = build_times(self.build, "--target", "app")
        self.assertEqual(app.returncode, 0, app.stderr)
        self.assertIn("over 2 outputs (1 objects)", app.stdout)
        self.assertIn("| lib | 1 |", app.stdout)
        self.assertNotIn("tests", app.stdout)

    def test_bad_input_is_named(self):
        missing = build_times(self.build / "nowhere")
        self.assertEqual(missing.returncode, 1)
        self.assertIn("cannot read", missing.stderr)
        (self.build / ".ninja_log").write_text("not a log\n")
        self.assertIn("is not a ninja log", build_times(self.build).stderr)
        (self.build / ".ninja_log").write_text("# ninja log v5\n1\t2\tthree\n")
        self.assertIn(".ninja_log:2: expected 5 tab-separated fields", build_times(self.build).stderr)
        (self.build / ".ninja_log").write_text("# ninja log v5\n1\t2\tthree\ta.o\t0\n")
        self.assertIn(".ninja_log:2: start, end and mtime must be integers",
                      build_times(self.build).stderr)
        write_log(self.build, [])
        self.assertIn("no records to report", build_times(self.build).stderr)
        write_log(self.build, [(0, 1, 5, "a.o")])
        unknown = build_times(self.build, "--target", "no_such_target")
        self.assertEqual(unknown.returncode, 1)
        self.assertIn("ninja -t inputs no_such_target", unknown.stderr)


if __name__ == "__main__":
    unittest.main()
