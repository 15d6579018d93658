"""Vector search from Python: the rows of a lancepart table nearest to a vector, as a DataFrame
(the SQL function ``lance_vector_search``, so classic and Spark Connect sessions alike)."""

from __future__ import annotations

from collections.abc import Sequence

from pyspark.sql import DataFrame, SparkSession


def search(spark: SparkSession, table: str, column: str, vector: Sequence[float], k: int,
           where: str | None = None, distance: str = "l2") -> DataFrame:
    """The ``k`` rows of ``table`` nearest to ``vector`` in its vector column ``column``, by
    ``distance`` (``l2``, ``cosine`` or ``dot``), nearest first, with their ``_distance``.

    ``where`` (a SQL condition over the table's columns) restricts the search, not its result: the
    ``k`` nearest rows among those it selects; partition filters prune partition tables through
    the manifest, other conditions are applied in each partition table's search."""
    found = spark.sql("SELECT * FROM lance_vector_search(:table, :column, :vector, :k, :distance)",
                      args={"table": table, "column": column, "vector": [float(x) for x in vector], "k": k,
                            "distance": distance})
    return found if where is None else found.where(where)
