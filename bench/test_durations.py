"""The per-test times of a `make test` run, from the JUnit XML reports it leaves (pytest's
target/pytest.xml, target/pytest-newest.xml and the other Spark lines' target/pytest-spark-*.xml,
scalatest's surefire-reports in the primary line's module), as JSON: per suite (a test module or
Scala suite) the tests, their seconds and the sum, slowest first.

    python bench/test_durations.py --wall '<minutes and seconds of the run>' > bench/results/test-durations.json
"""

from __future__ import annotations

import argparse
import json
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
REPORTS = {
    "pytest": REPO / "target" / "pytest.xml",
    "pytest, newest pylance": REPO / "target" / "pytest-newest.xml",
    # the other Spark lines' slices (the Makefile's LINE_SUITES, or LINE_SUITES_<line> where set)
    **{f"pytest, Spark {path.stem.removeprefix('pytest-spark-')}": path
       for path in sorted((REPO / "target").glob("pytest-spark-*.xml"))},
}
# the primary Spark line's module (the Makefile's PRIMARY_LINE)
SCALA_REPORTS = REPO / "jvm" / "spark-4.1_2.13" / "target" / "surefire-reports"


def cases(path: Path) -> list[tuple[str, str, float]]:
    """(suite, test, seconds) of every test case in a JUnit XML report."""
    found = []
    for case in ET.parse(path).getroot().iter("testcase"):
        # pytest's reports name the test's file (junit_family=xunit1), scalatest's the suite class
        classname = case.get("classname", "").rsplit(".", 1)[-1]
        suite = Path(case.get("file")).name if case.get("file") else \
            classname if path.parent == SCALA_REPORTS else f"{classname}.py"
        found.append((suite, case.get("name", ""), float(case.get("time", "0"))))
    return found


def summary(runs: dict[str, list[tuple[str, str, float]]]) -> dict:
    result = {}
    for run, found in runs.items():
        suites = defaultdict(list)
        for suite, test, seconds in found:
            suites[suite].append({"test": test, "seconds": round(seconds, 2)})
        result[run] = {
            "tests": len(found),
            "seconds": round(sum(s for _, _, s in found), 1),
            "suites": {suite: {"seconds": round(sum(t["seconds"] for t in tests), 1),
                               "tests": sorted(tests, key=lambda t: -t["seconds"])}
                       for suite, tests in sorted(suites.items(), key=lambda kv: -sum(t["seconds"] for t in kv[1]))},
        }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wall", required=True, help="the wall time of the whole `make test` run, as measured")
    args = parser.parse_args()
    runs = {run: cases(path) for run, path in REPORTS.items() if path.is_file()}
    scala = [c for report in sorted(SCALA_REPORTS.glob("TEST-*.xml")) for c in cases(report)]
    if scala:
        runs["scalatest"] = scala
    if not runs:
        sys.exit("no reports under target/: run `make test` first")
    print(json.dumps({"make_test_wall": args.wall, "note": "seconds per test as each report records them; "
                      "pytest runs two workers at once, so its sums exceed its wall time", **summary(runs)}, indent=1))


if __name__ == "__main__":
    main()
