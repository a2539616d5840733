#!/usr/bin/env python3
"""Where a build's compile time went, from ninja's own log (build/.ninja_log).

Usage: scripts/build-times.py [--build DIR] [--target T] [--top N]

Reads the last record of every output in DIR/.ninja_log (ninja log v5) and
prints the wall time from the first start to the last end, the summed seconds per CMake target
(the CMakeFiles/<target>.dir prefix; links and custom steps under "other") and the N slowest
outputs. With --target, only the outputs that target needs (`ninja -t inputs T`, plus T) count:
`--target headway` is what scripts/run.sh builds. Figures are only those of a build from an empty
build folder and compiler cache (CCACHE_DISABLE=1): an incremental build's log mixes old records.
"""

import argparse
import collections
import pathlib
import re
import signal
import subprocess
import sys


def read_log(build: pathlib.Path) -> dict[str, tuple[int, int]]:
    """Returns output -> (start_ms, end_ms), the last record of each output, on one clock.

    A record's start and end count from the start of its own ninja run, so the clock that spans
    runs is the output's mtime (ns since the epoch): end = mtime, start = mtime - duration.
    Outputs without an mtime (phony steps) are left out."""
    log = build / ".ninja_log"
    try:
        lines = log.read_text().splitlines()
    except OSError as error:
        sys.exit(f"build-times: cannot read {log}: {error.strerror}")
    if not lines or not lines[0].startswith("# ninja log v"):
        sys.exit(f"build-times: {log} is not a ninja log")
    records = {}
    for number, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        if len(fields) != 5:
            sys.exit(f"build-times: {log}:{number}: expected 5 tab-separated fields")
        try:
            duration_ms = int(fields[1]) - int(fields[0])
            end_ms = int(fields[2]) // 1_000_000
        except ValueError:
            sys.exit(f"build-times: {log}:{number}: start, end and mtime must be integers")
        if end_ms > 0:
            records[fields[3]] = (end_ms - duration_ms, end_ms)
    return records


def needed_by(build: pathlib.Path, target: str) -> set[str]:
    result = subprocess.run(["ninja", "-C", str(build), "-t", "inputs", target],
                            capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.exit(f"build-times: ninja -t inputs {target}: {result.stderr.strip()}")
    return set(result.stdout.split()) | {target}


def group_of(output: str) -> str:
    match = re.match(r"(?:.*/)?CMakeFiles/([^/]+)\.dir/", output)
    return match.group(1) if match and output.endswith(".o") else "other (links, generated files)"


def main() -> None:
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build", type=pathlib.Path)
    parser.add_argument("--target")
    parser.add_argument("--top", default=10, type=int)
    args = parser.parse_args()

    records = read_log(args.build)
    if args.target:
        wanted = needed_by(args.build, args.target)
        records = {out: span for out, span in records.items() if out in wanted}
    if not records:
        sys.exit("build-times: no records to report")
    start = min(s for s, _ in records.values())
    end = max(e for _, e in records.values())
    total = sum(e - s for s, e in records.values())
    objects = sum(1 for out in records if out.endswith(".o"))
    print(f"wall {(end - start) / 60000:.1f} min, summed {total / 60000:.1f} min over "
          f"{len(records)} outputs ({objects} objects)")

    by_group = collections.Counter()
    count = collections.Counter()
    for out, (s, e) in records.items():
        by_group[group_of(out)] += e - s
        count[group_of(out)] += 1
    print("\n| part | outputs | summed min |\n|---|---:|---:|")
    for group, ms in by_group.most_common():
        print(f"| {group} | {count[group]} | {ms / 60000:.1f} |")

    print("\n| slowest outputs | s |\n|---|---:|")
    slowest = sorted(records.items(), key=lambda item: item[1][0] - item[1][1])
    for out, (s, e) in slowest[:args.top]:
        name = re.sub(r"^.*CMakeFiles/[^/]+\.dir/", "", out)
        print(f"| {name} | {(e - s) / 1000:.1f} |")


if __name__ == "__main__":
    main()
