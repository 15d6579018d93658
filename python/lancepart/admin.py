"""Admin operations on partitioned tables: the catalog's procedures (CALL <catalog>.system.*: repair,
vacuum and the maintenance procedures) as methods, which work on classic and Spark Connect sessions,
and the others run in the JVM over py4j (JSON in, JSON out; classic sessions only)."""

from __future__ import annotations

import datetime as dt
import decimal
import json
import uuid
import warnings
from typing import Any

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StructType, _parse_datatype_string

from lancepart.errors import jvm_errors
from lancepart.progress import run_polled
from lancepart.session import CATALOG_CLASS


class Admin:
    """``Admin(spark, catalog="lance")``: table names are ``ns.table`` or ``catalog.ns.table``;
    as in Spark SQL, a first part that names another lancepart catalog of the session is that
    catalog."""

    def __init__(self, spark: SparkSession, catalog: str = "lance"):
        self._spark = spark
        self._catalog = catalog

    @property
    def _api(self):
        """The JVM's AdminApi (a classic session only: Spark Connect has no py4j)."""
        return self._spark._jvm.lancepart.admin.AdminApi

    def _names(self, name: str) -> tuple[str, str]:
        """The catalog and the table name in it that ``name`` means."""
        head, _, rest = name.partition(".")
        other = head != self._catalog and "." in rest and \
            self._spark.conf.get(f"spark.sql.catalog.{head}", None) == CATALOG_CLASS
        return (head, rest) if other else (self._catalog, name)

    def _target(self, name: str) -> tuple[Any, str, str]:
        """The session, catalog and name the JVM call for ``name`` takes."""
        return (self._spark._jsparkSession, *self._names(name))

    @jvm_errors
    def create_table(self, name: str, schema: StructType | str, partition_by: list[str | dict],
                     properties: dict[str, str] | None = None) -> dict:
        """Creates ``name`` with ``schema`` (StructType or DDL such as ``"id BIGINT, d DATE"``).

        ``partition_by`` items are PARTITIONED BY strings (``"country"``, ``"years(ts)"``,
        ``"bucket(16, id)"``, ``"bucket(8, a, b)"``, ``"truncate(4, s)"``; several may use one
        column) or expression fields ``{"field_id": "b", "expression": "col0 % 10",
        "sources": ["id"], "result_type": "int"}``. ``properties`` are table properties such as
        ``{"transaction.mode": "strong"}``. Returns ``describe(name)``."""
        struct = _parse_datatype_string(schema) if isinstance(schema, str) else schema
        return json.loads(self._api.createTable(
            *self._target(name), struct.json(), json.dumps(partition_by),
            json.dumps(properties or {})))

    @jvm_errors
    def evolve_partition_spec(self, name: str, fields: list[str | dict]) -> dict:
        """Adds the next partition spec version (items as in ``create_table``'s ``partition_by``).

        A field with the same sources and transform (or expression) as an existing one keeps its
        field_id; any other field gets a new id, and an explicit field_id that already names a
        different field is refused. New writes use the new spec; returns ``describe(name)``."""
        return json.loads(self._api.evolvePartitionSpec(
            *self._target(name), json.dumps(fields)))

    @jvm_errors
    def describe(self, name: str) -> dict:
        """Location, manifest version, schema (Spark JSON), every spec, and the partition fields."""
        return json.loads(self._api.describe(*self._target(name)))

    @jvm_errors
    def describe_namespace(self, name: str, path: list[str]) -> dict:
        """Runtime properties of a namespace of the table (spec Appendix E): ``["v1"]`` gives
        ``{"properties": {"partition_spec": ...}}``, ``["v1", "<name>", ...]`` gives
        ``{"properties": {"partition.<field_id>": "<value>"}}`` for that level."""
        if isinstance(path, str):
            raise TypeError(f"describe_namespace({name!r}, {path!r}): path is a list of names, e.g. ['v1']")
        return json.loads(self._api.describeNamespace(
            *self._target(name), json.dumps(path)))

    @jvm_errors
    def partitions(self, name: str) -> list[dict]:
        """One dict per partition table: object_id, spec_id, values (field_id -> Python value),
        location, read_version and row_count."""
        types = {f["field_id"]: f["type"] for f in self.describe(name)["partition_fields"]}
        tables = json.loads(self._api.partitions(*self._target(name)))
        for table in tables:
            table["values"] = {k: _from_json(v, types[k]) for k, v in table["values"].items()}
        return tables

    @jvm_errors
    def repair(self, name: str, progress: bool | None = None) -> int:
        """Restores the ``partition_field_*`` and ``read_version`` columns of ``__manifest`` that
        another client dropped (Lance's own DirectoryNamespace rewrites the manifest with its base
        columns only), from the values each row keeps in its ``metadata`` JSON. Returns the number
        of rows restored (0 when nothing was missing). Partition values are never guessed: tables
        another client declared and never created keep NULL values (they read as empty), and tables
        another client created with rows have none, so every scan reads them and Spark evaluates
        partition filters on their rows; a warning names both kinds. Run it again after removing
        such a table to make partition filters exact again. ``progress``: see ``lancepart.progress``."""
        result = self._call_tracked("repair", name, progress, unit="row")
        if result["declared_without_values"]:
            warnings.warn(f"table {name}: repair left the partition values of tables declared and never created "
                          f"NULL (they read as empty): {', '.join(result['declared_without_values'])}", stacklevel=3)
        if result["unpartitioned_tables"]:
            warnings.warn(f"table {name}: tables without partition values, read by every scan (another client "
                          f"created them): {', '.join(result['unpartitioned_tables'])}", stacklevel=3)
        return result["restored_rows"]

    @jvm_errors
    def vacuum(self, name: str, older_than: dt.timedelta = dt.timedelta(days=1), progress: bool | None = None,
               retention_check: bool = True) -> dict:
        """Removes what failed writes left behind and no committed manifest version refers to:
        leaf directories, data and deletion files, detached leaf versions. Only files last changed
        more than ``older_than`` ago go, so writes still running keep theirs; an ``older_than``
        under 1 hour is refused (a running write whose files went would commit a version that
        does not read) unless ``retention_check=False``, for when no write runs on the table.
        Returns ``{"removed_directories": [...], "removed_files": [...]}``, paths relative to the
        table. ``progress`` (a bar over partition-table directories): see ``lancepart.progress``."""
        cutoff = dt.datetime.now(dt.timezone.utc) - older_than
        return self._call_tracked("vacuum", name, progress, unit="table", older_than=cutoff,
                                  retention_check=retention_check)

    def rewrite_data_files(self, name: str, where: str | None = None, options: dict[str, str] | None = None) -> dict:
        """Compacts the partition tables that may hold rows matching the SQL condition ``where``
        (all when None), in one transaction: ``CALL <catalog>.system.rewrite_data_files``.
        ``options``: Lance compaction options such as ``{"target-rows-per-fragment": "1048576"}``."""
        return self._call("rewrite_data_files", name, where=where, options=options)

    def rewrite_manifests(self, name: str) -> dict:
        """Compacts the table's ``__manifest``: ``CALL <catalog>.system.rewrite_manifests``."""
        return self._call("rewrite_manifests", name)

    def rollback_to_version(self, name: str, version: int) -> dict:
        """Restores a strong-mode table as manifest ``version`` recorded it (rows, schema, specs):
        ``CALL <catalog>.system.rollback_to_version``."""
        return self._call("rollback_to_version", name, version=version)

    def rollback_to_timestamp(self, name: str, timestamp: dt.datetime) -> dict:
        """As ``rollback_to_version``, to the newest manifest version committed at or before ``timestamp``."""
        return self._call("rollback_to_timestamp", name, timestamp=timestamp)

    def expire_snapshots(self, name: str, older_than: dt.datetime | None = None, retain_last: int | None = None) -> dict:
        """Removes manifest versions committed before ``older_than`` (default: 5 days ago), keeping
        the newest ``retain_last`` (default 1), and the files only they used:
        ``CALL <catalog>.system.expire_snapshots``."""
        return self._call("expire_snapshots", name, older_than=older_than, retain_last=retain_last)

    def _call_tracked(self, procedure: str, name: str, progress: bool | None, unit: str, **arguments: Any) -> dict:
        """``_call`` with a progress bar: the procedure counts under a new ``progress_id``, which
        ``CALL <catalog>.system.progress`` reads while it runs (on a classic or a Spark Connect
        session alike)."""
        progress_id = uuid.uuid4().hex
        catalog, _ = self._names(name)

        def poll() -> tuple[int, int] | None:
            rows = self._spark.sql(f"CALL {catalog}.system.progress(id => :id)", args={"id": progress_id}).collect()
            return (rows[0].done, rows[0].total) if rows else None

        return run_polled(lambda: self._call(procedure, name, progress_id=progress_id, **arguments), poll,
                          f"{procedure} {name}", progress, unit)

    @jvm_errors
    def _call(self, procedure: str, name: str, **arguments: Any) -> dict:
        """The one result row of ``CALL <catalog>.system.<procedure>(table => name, ...)``, as a
        dict; arguments that are None take the procedure's default."""
        catalog, table = self._names(name)
        given = {k: _sql_argument(v) for k, v in arguments.items() if v is not None}
        named = "".join(f", {k} => :{k}" for k in given)
        [row] = self._spark.sql(f"CALL {catalog}.system.{procedure}(table => :table{named})",
                                args={"table": table, **given}).collect()
        return row.asDict()

    @jvm_errors
    def drop_table(self, name: str) -> bool:
        """Removes the manifest and every partition table; False when there was no such table."""
        return bool(self._api.dropTable(*self._target(name)))


def _sql_argument(value: Any) -> Any:
    """A procedure argument as ``spark.sql`` takes it: a dict becomes a MAP literal."""
    if isinstance(value, dict):
        return F.create_map(*[F.lit(str(x)) for item in value.items() for x in item])
    return value


def _from_json(value: Any, type_name: str) -> Any:
    """Inverse of the JVM's JsonValues: ISO dates/timestamps and decimal text to Python values."""
    if value is None:
        return None
    if type_name == "date":
        return dt.date.fromisoformat(value)
    if type_name == "timestamp":
        return dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    if type_name == "timestamp_ntz":
        return dt.datetime.fromisoformat(value)
    if type_name.startswith("decimal"):
        return decimal.Decimal(value)
    return value
