"""Measuring: the median time of repeats after a warm-up, and the shuffle bytes a query wrote."""

from __future__ import annotations

import statistics
import time
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
