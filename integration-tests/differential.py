"""Differential testing against Apache Iceberg: cases (statements with `{t}`/`{u}` placeholders),
one runner that plays a case on a catalog, one comparator of the two catalogs' outcomes."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Union

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

ICEBERG_SPARK_LINE = "4.1"
ICEBERG_JAR = (Path(__file__).resolve().parents[1] / "target" / "bench" /
               f"iceberg-spark-runtime-{ICEBERG_SPARK_LINE}_2.13-1.12.0.jar")
ICEBERG_CATALOG = "ice"
CATALOGS = ("lance", ICEBERG_CATALOG)

FORMAT_DOC = "docs/format.md"
SQL_DOC = "docs/sql.md"

#: Where lancepart differs from Iceberg on purpose: the one list of them, each with its reason.
#: Keys name the difference; a Case that shows one says so with `known=<key>` and must differ.
KNOWN_DIFFERENCES = {
    "error-messages": (
        "lancepart's errors name table, column and value in its own words; the suite compares "
        "failures as 'raised' against 'did not raise', never their text.", f"{FORMAT_DOC}"),
    "partition-values": (
        "bucket(N) hashes with the spec's murmur3 encodings and months(ts)/days(ts)/hours(ts) are "
        "calendar runs, so partition values (and metadata tables, DESCRIBE, SHOW CREATE TABLE) "
        "differ from Iceberg's; the suite compares query results only, never partition metadata.",
        f"{FORMAT_DOC}#bucket-hash-spec-hash-functions"),
    "iceberg-signed-zero-partitions": (
        "Iceberg 1.12 prunes identity(double) partitions by Java's Double.compare, where -0.0 < 0.0, so "
        "x = 0.0 misses the rows of a -0.0 partition and x < 0 finds them: the oracle is wrong there; "
        "lancepart prunes with Spark's own comparison (-0.0 = 0.0), as Spark filters the rows.",
        f"{FORMAT_DOC}#partition-specs-spec-partition-spec"),
    "bucket-on-double": (
        "lancepart's bucket accepts any hashable column, double included (its raw bits, as Lance's "
        "murmur3 hashes them); Iceberg refuses bucket on float and double.",
        f"{FORMAT_DOC}#bucket-hash-spec-hash-functions"),
    "iceberg-truncate-overflow": (
        "Iceberg 1.12's truncate overflows at the type's edge (truncate(10, INT -2147483648), truncate(100, "
        "DECIMAL(9,2) -9999999.99)), so its pruning drops those rows for i < 0 or i >= -2147483648: the "
        "oracle is wrong there; lancepart's truncate rounds toward zero and stays in range.",
        f"{FORMAT_DOC}#transforms-spec-partition-transform"),
    "create-snapshots": (
        "lancepart's <table>.snapshots lists the versions that create the table (operation 'create', "
        "two for a CREATE TABLE), so the first append has a parent; Iceberg's first snapshot is the append.",
        f"{SQL_DOC}#table-maintenance"),
    "weak-mode-time-travel": (
        "a weak-mode table (the default) refuses VERSION AS OF and TIMESTAMP AS OF: its readers read "
        "every partition table's latest version; strong mode travels.", f"{SQL_DOC}#transaction-modes-and-time-travel"),
    "plain-required-field-of-null-struct": (
        "a plain Lance table stores its schema as declared, so an INSERT of a NULL struct with a NOT NULL "
        "field fails there (Lance refuses the NULLs Arrow holds in the field); partitioned tables take it.",
        f"{FORMAT_DOC}#namespace-schema-spec-schema"),
    "plain-add-map-column": (
        "ALTER TABLE ... ADD COLUMN of a MAP is refused on a plain Lance table: Lance adds a column to existing "
        "rows only when every field in it can be NULL, and a map's keys cannot (partitioned tables rewrite the "
        "partition at its next write).", f"{SQL_DOC}#plain-lance-tables"),
    "variant": (
        "CREATE TABLE and ADD COLUMN refuse VARIANT: Lance has no variant type; Iceberg's format 3 stores it.",
        f"{FORMAT_DOC}#types"),
    "plain-table-alter": (
        "a plain table refuses ALTER COLUMN ... TYPE, ALTER COLUMN ... COMMENT and ALTER COLUMN ... FIRST/AFTER.",
        f"{SQL_DOC}#plain-lance-tables"),
    "schema-changes": (
        "new columns go last and are nullable (FIRST/AFTER, DEFAULT and NOT NULL refused), fields inside "
        "an existing struct cannot be added or changed, a NOT NULL column cannot be made nullable, and a "
        "MAP column needs Lance file format 2.2 (a table created without maps has 2.1).",
        f"{SQL_DOC}#changing-the-schema"),
}


@dataclass(frozen=True)
class DataFrameStep:
    """A step through the DataFrame API: ``run(spark, names)``, shown in reports as ``label``. As a
    setup step it may add placeholders to ``names`` for the case's later steps (a snapshot id it
    remembered); as a query it returns the DataFrame whose rows are compared."""
    label: str
    run: Callable[[SparkSession, dict], DataFrame | None]


Step = Union[str, DataFrameStep]


@dataclass(frozen=True)
class Case:
    """Setup steps then queries, run on each catalog with `{t}`, `{u}` naming its tables there.
    Every case also compares the final contents of `{t}` (``SELECT * FROM {t}``)."""
    name: str
    setup: tuple[Step, ...]
    queries: tuple[str, ...] = ()
    time_zone: str = "UTC"
    conf: dict = field(default_factory=dict)
    known: str | None = None  # a key of KNOWN_DIFFERENCES this case shows

    def statements(self) -> tuple[Step, ...]:
        return (*self.setup, *self.queries, "SELECT * FROM {t}")


@dataclass(frozen=True)
class Outcome:
    """What one statement gave on one catalog: an error's first line, or rows (None for setup)."""
    error: str | None = None
    rows: Counter | None = None


def table_names(catalog: str, ns: str) -> dict:
    return {"t": f"{catalog}.{ns}.t", "u": f"{catalog}.{ns}.u", "ns": f"{catalog}.{ns}", "catalog": catalog}


def run_case(spark: SparkSession, case: Case, catalog: str, ns: str) -> list[Outcome]:
    """Plays ``case`` on ``catalog`` (namespace ``ns`` exists there) with its session settings,
    restoring the session's afterwards; a failing step does not stop the case."""
    names = table_names(catalog, ns)
    settings = {"spark.sql.session.timeZone": case.time_zone, **case.conf}
    saved = {key: spark.conf.get(key, None) for key in settings}
    for key, value in settings.items():
        spark.conf.set(key, value)
    try:
        return [run_step(spark, step, names, is_query=i >= len(case.setup))
                for i, step in enumerate(case.statements())]
    finally:
        for key, value in saved.items():
            spark.conf.unset(key) if value is None else spark.conf.set(key, value)


def run_step(spark: SparkSession, step: Step, names: dict, is_query: bool) -> Outcome:
    try:
        df = step.run(spark, names) if isinstance(step, DataFrameStep) else spark.sql(step.format(**names))
        return Outcome(rows=result_rows(df)) if is_query else Outcome()
    except Exception as e:  # noqa: BLE001 - every failure is an outcome to compare
        return Outcome(error=first_line(e))


def result_rows(df: DataFrame) -> Counter:
    """The rows as a multiset of JSON texts: positional column names (joins repeat names), exact
    doubles (NaN equal to NaN, -0.0 apart from 0.0), microsecond timestamps in the session zone."""
    positional = df.toDF(*[f"c{i}" for i in range(len(df.columns))])
    options = {"timestampFormat": "yyyy-MM-dd HH:mm:ss.SSSSSSXXX",
               "timestampNTZFormat": "yyyy-MM-dd HH:mm:ss.SSSSSS", "ignoreNullFields": "false"}
    json = positional.select(F.to_json(F.struct(*positional.columns), options).alias("j"))
    return Counter(row.j for row in json.collect())


def first_line(e: Exception) -> str:
    """The first line of the error, of its innermost JVM cause for errors raised through py4j."""
    cause = getattr(e, "java_exception", None)
    while cause is not None and cause.getCause() is not None:
        cause = cause.getCause()
    text = (cause.toString() if cause is not None else str(e)).strip() or type(e).__name__
    return text.splitlines()[0][:300]


def differences(case: Case, lance: list[Outcome], iceberg: list[Outcome]) -> list[str]:
    """One line (or a few) per statement whose outcomes differ: one side raised and the other did
    not, or the result multisets differ."""
    found = []
    for step, a, b in zip(case.statements(), lance, iceberg):
        label = step.label if isinstance(step, DataFrameStep) else " ".join(step.split())[:150]
        if (a.error is None) != (b.error is None):
            found.append(f"[{label}] lancepart: {a.error or 'ok'} | iceberg: {b.error or 'ok'}")
        elif a.rows is not None and b.rows is not None and a.rows != b.rows:
            only_lance, only_iceberg = sorted((a.rows - b.rows).elements()), sorted((b.rows - a.rows).elements())
            found.append(f"[{label}] {len(only_lance)} rows only in lancepart, {len(only_iceberg)} only in iceberg;"
                         f" first: lancepart {only_lance[:2]} | iceberg {only_iceberg[:2]}")
    return found


def compare(spark: SparkSession, case: Case, ns: str) -> list[str]:
    """Runs ``case`` on both catalogs (namespace ``ns`` in each) and returns the differences."""
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {ICEBERG_CATALOG}.{ns}")
    lance = run_case(spark, case, "lance", ns)
    iceberg = run_case(spark, case, ICEBERG_CATALOG, ns)
    return differences(case, lance, iceberg)


def mismatch(spark: SparkSession, case: Case, ns: str) -> str | None:
    """Why ``case`` fails against Iceberg (namespace ``ns`` in each catalog): its differences, or,
    for a case of a known difference, that it showed none; None when it passes."""
    found = compare(spark, case, ns)
    if case.known:
        reason, link = KNOWN_DIFFERENCES[case.known]
        return None if found else f"{case.name}: expected to differ from Iceberg ({reason} {link}), but did not"
    return f"{case.name}: {len(found)} differences from Iceberg:\n" + "\n".join(found) if found else None
