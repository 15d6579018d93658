"""Search from Python: the rows of a lancepart table nearest to a vector (``search``) or best
matching a text (``text_search``), as a DataFrame (the SQL functions ``lance_vector_search`` and
``lance_text_search``, so classic and Spark Connect sessions alike)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import math
import struct

from pyspark.sql import DataFrame, SparkSession


def search(spark: SparkSession, table: str, column: str, vector: Sequence[float], k: int,
           where: str | None = None, distance: str = "l2", nprobes: int | None = None,
           refine_factor: int | None = None, ef: int | None = None, use_index: bool = True,
           prefilter: bool = True) -> DataFrame:
    """The ``k`` rows of ``table`` nearest to ``vector`` in its vector column ``column``, by
    ``distance`` (``l2``, ``cosine`` or ``dot``), nearest first, with their ``_distance``.

    ``where`` (a SQL condition over the table's columns) restricts the search, not its result: the
    ``k`` nearest rows among those it selects; partition filters prune partition tables through
    the manifest, other conditions are applied in each partition table's search. With
    ``prefilter=False`` those other conditions are applied to the rows each search finds instead
    (fewer than ``k`` rows may remain). ``nprobes``, ``refine_factor`` and ``ef`` tune the search
    of partition tables with a vector index (Lance's settings of the same names);
    ``use_index=False`` searches them exactly (flat) all the same."""
    options = {"nprobes": nprobes, "refine_factor": refine_factor, "ef": ef, "use_index": use_index,
               "prefilter": prefilter}
    # written into the SQL text, not bound: PySpark binds a list element by element, one Py4J call
    # each (48 ms for 128 elements, docs/benchmarks.md); each DOUBLE literal is a float32 exactly
    literal = _Sql("array(" + ", ".join(_double(_float32(x)) for x in vector) + ")")
    return _search(spark, "lance_vector_search", [table, column, literal, k, distance], options, where)


def text_search(spark: SparkSession, table: str, column: str, query: str, k: int, where: str | None = None,
                prefilter: bool = True) -> DataFrame:
    """The ``k`` rows of ``table`` whose STRING column ``column`` best matches ``query`` (any of its
    terms, scored by BM25 with each partition table's INVERTED index), best first, with their
    ``_score``. ``where`` and ``prefilter`` restrict the search as in ``search``."""
    return _search(spark, "lance_text_search", [table, column, query, k], {"prefilter": prefilter}, where)


def _search(spark: SparkSession, function: str, arguments: list[Any], options: dict[str, Any],
            where: str | None) -> DataFrame:
    """``function`` called with ``arguments`` (bound as parameters, but for SQL text) and the
    options that are set, as a MAP of strings."""
    args, placeholders = {}, []
    for i, a in enumerate(arguments):
        if isinstance(a, _Sql):
            placeholders.append(a)
        else:
            args[f"a{i}"] = a
            placeholders.append(f":a{i}")
    pairs = [(key, str(value).lower() if isinstance(value, bool) else str(value))
             for key, value in options.items() if value is not None]
    for i, (key, value) in enumerate(pairs):
        args[f"k{i}"], args[f"v{i}"] = key, value
    options_sql = "map(" + ", ".join(f":k{i}, :v{i}" for i in range(len(pairs))) + ")"
    placeholders = ", ".join(placeholders)
    found = spark.sql(f"SELECT * FROM {function}({placeholders}, {options_sql})", args=args)
    return found if where is None else found.where(where)


class _Sql(str):
    """An argument written into the SQL text as it is."""


def _double(x: float) -> str:
    """``x`` as a Spark SQL DOUBLE literal (a cast for NaN and the infinities, which have none)."""
    if math.isfinite(x):
        return f"{x!r}D"
    return "CAST('NaN' AS DOUBLE)" if math.isnan(x) else f"CAST('{'-' if x < 0 else ''}Infinity' AS DOUBLE)"


def _float32(x: float) -> float:
    """``x`` rounded to the nearest float32, as a Python float (which holds it exactly)."""
    return struct.unpack("f", struct.pack("f", float(x)))[0]
