"""Measuring: the median time of repeats after a warm-up (of one run, or of several in turn), the
shuffle bytes a query wrote, and the records of a focused measurement as JSON."""

from __future__ import annotations

import json
import os
import statistics
import time
from pathlib import Path
from typing import Callable


def median_seconds(run: Callable[[], object], repeats: int, warm_up: Callable[[], object] | None = None) -> float:
    """Runs ``warm_up`` (default: ``run``) once, then ``run`` ``repeats`` times; the median time."""
    (warm_up or run)()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def interleaved_median_seconds(runs: dict[str, Callable[[], object]], repeats: int, warm_ups: int) -> dict[str, float]:
    """Runs each of ``runs`` ``warm_ups`` times, then all of them in turn ``repeats`` times; the
    median time of each. Alternating puts every run at the same point of the JVM's warm-up (JIT,
    caches), which measuring one after the other does not for queries of a tenth of a second."""
    for _ in range(warm_ups):
        for run in runs.values():
            run()
    times = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}


def shuffle_bytes(df) -> int:
    """Runs ``df`` and sums the 'shuffle bytes written' metric of every shuffle in its final plan
    (adaptive plans included)."""
    df.collect()
    total = 0
    nodes = [df._jdf.queryExecution().executedPlan()]
    while nodes:
        node = nodes.pop()
        kind = node.getClass().getSimpleName()
        if kind == "AdaptiveSparkPlanExec":
            nodes.append(node.executedPlan())
        elif kind.endswith("QueryStageExec"):
            nodes.append(node.plan())
        metric = node.metrics().get("shuffleBytesWritten")
        if metric.isDefined():
            total += metric.get().value()
        children = node.children()
        nodes.extend(children.apply(i) for i in range(children.size()))
    return total


def write_records(path: Path, repeats: int, records: list[dict]) -> None:
    """Writes the records of a focused measurement, with the machine's core count, as JSON."""
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps({"cores": os.cpu_count(), "repeats": repeats, "records": records}, indent=1) + "\n")
