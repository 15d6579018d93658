"""Admin operations on partitioned tables: the catalog's procedures (CALL <catalog>.system.*), its
``.partitions`` metadata table and DROP TABLE as methods, all through ``spark.sql``, so they work
on classic and Spark Connect sessions alike."""

from __future__ import annotations

import datetime as dt
import json
import uuid
import warnings
from typing import Any

from pyspark.sql import SparkSession
from pyspark.sql.types import StructType

from lancepart.errors import LancepartError, jvm_errors
from lancepart.progress import run_polled
from lancepart.session import resolve_table


class Admin:
    """``Admin(spark, catalog="lance")``: table names are ``ns.table`` or ``catalog.ns.table``;
    as in Spark SQL, the first of three or more parts that names a lancepart catalog of the
    session (this one or another) is that catalog."""

    def __init__(self, spark: SparkSession, catalog: str = "lance"):
        self._spark = spark
        self._catalog = catalog

    def _names(self, name: str) -> tuple[str, str]:
        """The catalog and the table name in it that ``name`` means (``resolve_table``)."""
        return resolve_table(self._spark, name, self._catalog)

    def _qualified(self, name: str) -> str:
        """``name`` as a multipart name with its catalog, for SQL text."""
        catalog, table = self._names(name)
        return f"{_quoted(catalog)}.{table}"

    @jvm_errors
    def create_table(self, name: str, schema: StructType | str, partition_by: list[str | dict],
                     properties: dict[str, str] | None = None) -> dict:
        """Creates ``name`` with ``schema`` (StructType or DDL such as ``"id BIGINT, d DATE"``):
        ``CALL <catalog>.system.create_table``.

        ``partition_by`` items are PARTITIONED BY strings (``"country"``, ``"years(ts)"``,
        ``"bucket(16, id)"``, ``"bucket(8, a, b)"``, ``"truncate(4, s)"``; several may use one
        column) or expression fields ``{"field_id": "b", "expression": "col0 % 10",
        "sources": ["id"], "result_type": "int"}``. ``properties`` are table properties such as
        ``{"transaction.mode": "strong"}``. Returns ``describe(name)``."""
        text = schema if isinstance(schema, str) else schema.json()
        return _described(self._call("create_table", name, schema=text, partition_by=_items(partition_by),
                                     properties=properties))

    def evolve_partition_spec(self, name: str, fields: list[str | dict]) -> dict:
        """Adds the next partition spec version (items as in ``create_table``'s ``partition_by``):
        ``CALL <catalog>.system.evolve_partition_spec``.

        A field with the same sources and transform (or expression) as an existing one keeps its
        field_id; any other field gets a new id, and an explicit field_id that already names a
        different field is refused. New writes use the new spec; returns ``describe(name)``."""
        self._call("evolve_partition_spec", name, fields=_items(fields))
        return self.describe(name)

    def describe(self, name: str) -> dict:
        """Location, manifest version, schema (Spark JSON), every spec, and the partition fields:
        ``CALL <catalog>.system.describe``."""
        return _described(self._call("describe", name))

    def describe_namespace(self, name: str, path: list[str]) -> dict:
        """Runtime properties of a namespace of the table (spec Appendix E): ``["v1"]`` gives
        ``{"properties": {"partition_spec": ...}}``, ``["v1", "<name>", ...]`` gives
        ``{"properties": {"partition.<field_id>": "<value>"}}`` for that level:
        ``CALL <catalog>.system.describe_namespace``."""
        if isinstance(path, str):
            raise TypeError(f"describe_namespace({name!r}, {path!r}): path is a list of names, e.g. ['v1']")
        return self._call("describe_namespace", name, path=path)

    @jvm_errors
    def partitions(self, name: str) -> list[dict]:
        """One dict per partition table: object_id, spec_id, values (field_id -> Python value, the
        fields of its spec), location, read_version, row_count, data_size_bytes and indexes (a dict
        per Lance index: name, type, columns, unindexed_rows): the rows of ``<table>.partitions``."""
        rows = self._spark.sql(f"SELECT * FROM {self._qualified(name)}.partitions").collect()
        described = self.describe(name)
        fields = described["partition_fields"]
        spec_fields = {int(k): {f["field_id"] for f in spec["fields"]} for k, spec in described["specs"].items()}
        tables = []
        for row in rows:
            spec_id, values, rest = row[0], row[1:1 + len(fields)], row[1 + len(fields):]
            object_id, location, read_version, row_count, data_size_bytes, indexes = rest
            tables.append({
                "object_id": object_id, "spec_id": spec_id,
                "values": {f["field_id"]: _utc(v, f["type"]) for f, v in zip(fields, values)
                           if f["field_id"] in spec_fields.get(spec_id, ())},
                "location": location, "read_version": None if read_version is None else int(read_version),
                "row_count": row_count, "data_size_bytes": data_size_bytes,
                "indexes": [i.asDict(recursive=True) for i in indexes]})
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

    def create_index(self, name: str, column: str, index_type: str, index_name: str | None = None,
                     options: dict[str, str] | None = None, where: str | None = None) -> dict:
        """Builds a Lance index of ``index_type`` (BTREE, BITMAP, INVERTED, IVF_PQ or IVF_HNSW_SQ)
        over ``column`` on every partition table that may hold rows matching the SQL condition
        ``where`` (all when None), on executors, in one transaction; it replaces their index named
        ``index_name`` (default ``<column>_idx``): ``CALL <catalog>.system.create_index``.
        ``options``: Lance's options of that index type, such as ``{"num_partitions": "16"}``."""
        return self._call("create_index", name, column=column, type=index_type, index_name=index_name,
                          options=options, where=where)

    def drop_index(self, name: str, index_name: str, where: str | None = None) -> dict:
        """Drops the index ``index_name`` from every partition table that may hold rows matching the
        SQL condition ``where`` (all when None) and has one, in one transaction:
        ``CALL <catalog>.system.drop_index``."""
        return self._call("drop_index", name, index_name=index_name, where=where)

    def optimize_indexes(self, name: str, index_name: str | None = None, where: str | None = None) -> dict:
        """Builds again, over all their rows, the indexes (all, or ``index_name``) that leave rows
        unindexed on every partition table that may hold rows matching the SQL condition ``where``
        (all when None), with the type and options each was built with, in one transaction:
        ``CALL <catalog>.system.optimize_indexes``."""
        return self._call("optimize_indexes", name, index_name=index_name, where=where)

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

    def fast_forward(self, name: str, to: str, branch: str = "main") -> dict:
        """Publishes branch ``to`` of a table: ``branch`` (main) then reads what ``to``
        reads, when no write changed its partitions since ``to`` was made or last published
        (Iceberg's ``fast_forward``): ``CALL <catalog>.system.fast_forward``."""
        return self._call("fast_forward", name, branch=branch, to=to)

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
            rows = self._spark.sql(f"CALL {_quoted(catalog)}.system.progress(id => {_sql_literal(progress_id)})").collect()
            return (rows[0].done, rows[0].total) if rows else None

        return run_polled(lambda: self._call(procedure, name, progress_id=progress_id, **arguments), poll,
                          f"{procedure} {name}", progress, unit)

    @jvm_errors
    def _call(self, procedure: str, name: str, **arguments: Any) -> dict:
        """The one result row of ``CALL <catalog>.system.<procedure>(table => name, ...)``, as a
        dict; arguments that are None take the procedure's default."""
        catalog, table = self._names(name)
        named = "".join(f", {k} => {_sql_literal(v)}" for k, v in arguments.items() if v is not None)
        [row] = self._spark.sql(
            f"CALL {_quoted(catalog)}.system.{procedure}(table => {_sql_literal(table)}{named})").collect()
        return row.asDict()

    @jvm_errors
    def drop_table(self, name: str) -> bool:
        """Removes the manifest and every partition table (``DROP TABLE``); False when there was
        no such table."""
        table = self._qualified(name)
        if not self._spark.catalog.tableExists(table):
            return False
        self._spark.sql(f"DROP TABLE {table}")
        return True


def _sql_literal(value: Any) -> str:
    """A procedure argument as a SQL literal (Spark 4.0's CALL refuses parameter markers: "args must
    be foldable"): a string as its UTF-8 bytes in hex, cast (it reads the same whatever
    ``spark.sql.parser.escapedStringLiterals`` says), a dict a MAP and a list an ARRAY of strings, a
    datetime a TIMESTAMP at its instant (a naive one in local time, as pyspark takes it)."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return f"CAST(X'{value.encode().hex()}' AS STRING)"
    if isinstance(value, dt.datetime):
        return f"TIMESTAMP '{value.astimezone(dt.timezone.utc).isoformat()}'"
    if isinstance(value, dict):
        return f"map({', '.join(_sql_literal(str(x)) for item in value.items() for x in item)})"
    if isinstance(value, list):
        # no CAST: Spark 4.0 refuses an ARRAY<STRING> that may hold nulls where a procedure takes one that may not
        return f"array({', '.join(_sql_literal(str(x)) for x in value)})"
    raise TypeError(f"a procedure argument of type {type(value).__name__}: {value!r}")


def _quoted(identifier: str) -> str:
    """``identifier`` as a quoted SQL identifier."""
    return "`" + identifier.replace("`", "``") + "`"


def _items(items: list[str | dict]) -> list[str]:
    """Partition items as the procedures take them: expression fields as JSON text."""
    return [json.dumps(i) if isinstance(i, dict) else i for i in items]


def _described(row: dict) -> dict:
    """A ``describe`` result row as a dict; a plain Lance table has neither specs nor a manifest."""
    out = {"name": row["name"], "location": row["location"], "partitioned": row["partitioned"],
           "schema": row["schema"], "partition_fields": [f.asDict() for f in row["partition_fields"]]}
    if row["partitioned"]:
        out |= {"manifest_version": row["manifest_version"], "current_spec_id": row["current_spec_id"],
                "specs": {str(k): json.loads(v) for k, v in sorted(row["specs"].items())}}
    else:
        out["lance_version"] = row["lance_version"]
    return out


def _utc(value: Any, type_name: str) -> Any:
    """A partition value as collected, TIMESTAMP values as aware UTC datetimes (pyspark gives them
    naive, in the client's local time)."""
    if type_name == "timestamp" and isinstance(value, dt.datetime) and value.tzinfo is None:
        return value.astimezone(dt.timezone.utc)
    return value
