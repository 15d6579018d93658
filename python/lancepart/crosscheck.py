"""An independent read of a partitioned table with pylance and pyarrow only, compared with Spark.

The walk follows the spec, not the JVM code: ``__manifest`` rows of type ``table`` give each leaf's
location and ``read_version``; each leaf is opened with pylance at that version, or at its latest
version where it is NULL (spec: Transaction, read behavior). Leaf columns are
matched to namespace columns by the field id they are tagged with (``lancepart:field_id``), else
by name, else by Lance field id when the leaf's untagged columns have the ids of the namespace
columns they are named after (spec: field ids are consistent across partition tables), so renames
are followed before and after they reach a leaf; a namespace column a leaf does not store reads as
the partition's identity value (or NULL), as the spec's schema rules say.
"""

from __future__ import annotations

import json
import math
import os
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.fs as pafs
from pyspark.sql import DataFrame, SparkSession

from lancepart.progress import iterate
from lancepart.search import search
from lancepart.session import resolve_table


class CrosscheckError(AssertionError):
    """Spark and the pylance read disagree; the message lists rows found on one side only."""


def _arrow_table(df: DataFrame) -> pa.Table:
    """``df``'s rows as an Arrow table: ``DataFrame.toArrow`` from Spark 4.0 on; on Spark 3.5, which
    has none, the Arrow batches its ``toPandas`` collects."""
    if hasattr(type(df), "toArrow"):
        return df.toArrow()
    batches = df._collect_as_arrow()
    if batches:  # their timestamps carry the session's time zone, which to_arrow_schema's do not
        return pa.Table.from_batches(batches)
    from pyspark.sql.pandas.types import to_arrow_schema
    return to_arrow_schema(df.schema).empty_table()


def crosscheck(spark: SparkSession, table: str, where: str | None = None, show: int = 10,
               progress: bool | None = None, version: int | str | None = None) -> dict:
    """Compares ``SELECT * FROM table [VERSION AS OF version] [WHERE where]`` in Spark with a
    pylance read of the same table (``where`` must be valid in both Spark SQL and Lance SQL, e.g.
    ``country = 'US'``); ``version`` is a version number (an int) or a tag or branch (a str), read by
    pylance through ``lance.dataset(..., version=version)`` of ``__manifest`` (a plain table: of its
    dataset), a branch through ``checkout_version((branch, None))``.
    Returns ``{"rows": n, "tables": k}``; raises CrosscheckError with a readable diff.
    ``progress`` (a bar over the partition tables pylance reads): see ``lancepart.progress``.
    ``table`` is named as ``Admin`` takes names (``resolve_table``: ``ns.t`` is ``lance.ns.t``)."""
    table = qualified_table(spark, table)
    if isinstance(version, str) and version.isdigit():  # a version number, as VERSION AS OF reads it
        version = int(version)
    # a number is a version (as <table>.snapshot_id_<n> names it, never a tag), a string a tag or
    # branch; no version is main, which VERSION AS OF 'main' reads also where write-audit-publish
    # (spark.wap.branch) has the table's reads go to a branch
    df = (spark.table(f"{table}.snapshot_id_{version}") if isinstance(version, int)
          else spark.sql(f"SELECT * FROM {table} VERSION AS OF {_literal(version or 'main')}"))
    if where:
        df = df.where(where)
    spark_rows = _arrow_table(df)
    lance_rows, tables = read_with_pylance(spark, table, where, progress, spark_rows.schema, version=version)
    if not _same_rows(spark_rows, lance_rows):
        only_spark, only_lance = _diff(spark_rows.to_pylist(), lance_rows.to_pylist())
        lines = [f"crosscheck of {table}{' WHERE ' + where if where else ''} failed: "
                 f"Spark read {spark_rows.num_rows} rows, pylance read {lance_rows.num_rows} rows "
                 f"from {tables} partition tables"]
        for label, rows in (("only in Spark", only_spark), ("only in pylance", only_lance)):
            if rows:
                lines.append(f"{sum(rows.values())} rows {label}, e.g.:")
                lines.extend(f"  {dict(r)}" for r in list(rows)[:show])
        raise CrosscheckError("\n".join(lines))
    return {"rows": spark_rows.num_rows, "tables": tables}


def _literal(tag: str) -> str:
    """``tag`` as a Spark SQL string literal, its quotes and backslashes escaped."""
    return "'" + tag.replace("\\", "\\\\").replace("'", "\\'") + "'"


def crosscheck_search(spark: SparkSession, table: str, column: str, vector: Sequence[float], k: int,
                      where: str | None = None, distance: str = "l2", progress: bool | None = None) -> dict:
    """Compares ``lancepart.search`` (exact: ``use_index=False``) with pylance's exact search of
    every partition table of ``table`` (``where`` as its prefilter, valid in Spark SQL and Lance
    SQL), merged: the k nearest of the tables' k nearest. The distances must agree (to a relative
    1e-5) and so must the rows, but for those tied with the k-th distance, of which either side may
    keep any. Returns ``{"rows": n, "tables": k}``; raises CrosscheckError showing both sides."""
    table = qualified_table(spark, table)
    vector = [float(x) for x in vector]
    found = _arrow_table(search(spark, table, column, vector, k, where=where, distance=distance, use_index=False))

    def nearest(ds, leaf_columns: dict[str, str | None]) -> pa.Table | None:
        leaf_column = leaf_columns.get(column)
        if leaf_column is None:
            return None  # a partition table written before the column was added: no vectors
        query = {"column": leaf_column, "q": vector, "k": k, "metric": distance, "use_index": False}
        return ds.to_table(nearest=query, filter=where, prefilter=True)

    merged, tables = read_with_pylance(spark, table, progress=progress, as_read=found.schema, scan=nearest,
                                       added=("_distance",))
    merged = merged.sort_by("_distance").slice(0, k)
    spark_side = found.sort_by("_distance")
    distances = (spark_side["_distance"].to_pylist(), merged["_distance"].to_pylist())
    same = len(distances[0]) == len(distances[1]) and all(
        math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-6) for a, b in zip(*distances))
    if same and distances[0]:
        last = distances[1][-1]
        nearer = [t.filter(pc.less(t["_distance"], pa.scalar(last * (1 - 1e-5) - 1e-6, pa.float32())))
                  .drop_columns(["_distance"]) for t in (spark_side, merged)]
        same = _same_rows(*nearer)
    if not same:
        raise CrosscheckError("\n".join(
            [f"crosscheck of the search of {table}.{column}{' WHERE ' + where if where else ''} failed: "
             f"Spark found {spark_side.num_rows} rows, pylance {merged.num_rows} in {tables} partition tables",
             "Spark:"] + [f"  {r}" for r in spark_side.to_pylist()] +
            ["pylance:"] + [f"  {r}" for r in merged.to_pylist()]))
    return {"rows": spark_side.num_rows, "tables": tables}


def _dataset_at(uri: str, version: int | str | None, storage: dict):
    """The Lance dataset at ``uri`` at ``version``: a version number, a branch's latest version (a
    branch of that name first, as VERSION AS OF reads it), or a tag; None or ``"main"``: the latest."""
    import lance

    ds = lance.dataset(uri, storage_options=storage)
    if version == "main":  # the latest version, as VERSION AS OF 'main' reads it
        return ds
    if isinstance(version, str) and version in ds.branches.list():
        return ds.checkout_version((version, None))
    return ds if version is None else lance.dataset(uri, version=version, storage_options=storage)


def read_with_pylance(spark: SparkSession, table: str, where: str | None = None,
                      progress: bool | None = None, as_read: pa.Schema | None = None,
                      scan: Callable[[Any, dict[str, str | None]], pa.Table | None] | None = None,
                      added: tuple[str, ...] = (), version: int | str | None = None) -> tuple[pa.Table, int]:
    """Rows of every partition table of ``table`` (``catalog.ns...name``) at ``version`` (a
    version number, or a tag or a branch of ``__manifest``, of a plain table's dataset; None: the latest) and
    the leaf count;
    ``progress`` (a bar over partition tables): see ``lancepart.progress``. With ``as_read`` (the
    Arrow schema of Spark's columns), each partition table's columns as Spark reads them (its
    stored types may differ from another's: see ``_as_read``), else as stored. ``scan`` reads a
    partition table of a partitioned table instead of ``where``'s filtered scan, given the dataset
    and the leaf column of each namespace column (None: not stored); it returns the rows with the
    columns ``added`` after the leaf's, or None for no rows."""
    import lance  # imported here: lance warns when imported before pyspark forks its JVM

    table = qualified_table(spark, table)
    table_dir, storage = table_uri(spark, table)
    if not _partitioned(spark, table):
        ds = _dataset_at(table_dir, version, storage)  # a plain Lance table
        data = ds.to_table(filter=where) if where else ds.to_table()
        if as_read is not None:
            data = pa.Table.from_arrays([_as_read(data.column(f.name), f.type) for f in as_read], schema=as_read)
        return data, 1
    manifest = _dataset_at(f"{table_dir}/__manifest", version, storage)
    meta = manifest.metadata
    schema_fields = json.loads(meta["schema"])["fields"]
    names_by_id = {int(f["metadata"]["lance:field_id"]): f["name"] for f in schema_fields}
    identity_sources = _identity_sources(meta, names_by_id)
    # rows of spec versions the metadata does not declare (a REPLACE being staged) are no part of the table
    declared = " OR ".join(f"object_id LIKE 'v{k[len('partition_spec_v'):]}$%'" for k in meta if k.startswith("partition_spec_v"))
    leaves = manifest.to_table(filter=f"object_type = 'table' AND ({declared})").to_pylist()
    parts = []
    for leaf in iterate(leaves, f"pylance read of {table}", len(leaves), progress, unit="table"):
        # NULL (weak mode, or a manifest without the column): the leaf's latest version; another
        # writer's row may read at a tag (read_tag) or a branch (read_branch, at read_version)
        version, branch = leaf.get("read_tag") or leaf.get("read_version"), leaf.get("read_branch")
        if version is None and branch is None and _foreign(leaf) and _declared_only(f"{table_dir}/{leaf['location']}"):
            continue  # a table another client declared and never created: no rows
        ds = lance.dataset(f"{table_dir}/{leaf['location']}", version=None if branch else version,
                           storage_options=storage)
        if branch:
            ds = ds.checkout_version((branch, version))
        stored = {f["name"]: _leaf_column(ds, f, schema_fields) for f in schema_fields}
        data = scan(ds, stored) if scan else ds.to_table(filter=where) if where else ds.to_table()
        if data is None:
            continue
        spec_id = int(leaf["object_id"].split("$")[0][1:])
        columns = {}
        for name, leaf_name in stored.items():
            if leaf_name is not None:
                columns[name] = data.column(leaf_name)
            else:
                field_id = identity_sources.get(spec_id, {}).get(name)
                value = leaf.get(f"partition_field_{field_id}") if field_id else None
                columns[name] = pa.array([value] * data.num_rows)
        columns.update((name, data.column(name)) for name in added)
        part = pa.table(columns)
        if as_read is not None:
            part = pa.Table.from_arrays([_as_read(part.column(f.name), f.type) for f in as_read], schema=as_read)
        parts.append(part)
    if parts:
        return pa.concat_tables(parts, promote_options="permissive"), len(parts)
    empty = as_read.empty_table() if as_read is not None else pa.table(
        {f["name"]: pa.array([], pa.null()) for f in schema_fields})
    return empty, 0


def _partitioned(spark: SparkSession, table: str) -> bool:
    """True for a partitioned table, which (unlike a plain Lance table) has a transaction mode."""
    return any(r.key == "transaction.mode" for r in spark.sql(f"SHOW TBLPROPERTIES {table}").collect())


def _foreign(row: dict) -> bool:
    """True when lancepart has not written the partition table of ``row`` (no written version in
    its metadata): only such a table can be one another client declared and never created."""
    try:
        metadata = json.loads(row.get("metadata") or "{}")
    except ValueError:
        return True
    return not (isinstance(metadata, dict) and "lancepart.written_version" in metadata)


def _declared_only(uri: str) -> bool:
    """True when local ``uri`` holds only Lance's reservation of a declared table
    (``.lance-reserved``, no ``_versions``). Object stores are not looked at: a declared table
    there fails the read with Lance's error naming its path."""
    if "://" in uri and not uri.startswith("file://"):
        return False
    fs, path = pafs.FileSystem.from_uri(uri if "://" in uri else f"file://{uri}")
    infos = fs.get_file_info([f"{path}/_versions", f"{path}/.lance-reserved"])
    return infos[0].type == pafs.FileType.NotFound and infos[1].type == pafs.FileType.File


def _leaf_column(ds, field: dict, schema_fields: list[dict]) -> str | None:
    """The leaf column holding namespace ``field``: tagged with its id; else untagged with its
    name; else untagged with its Lance field id, when some untagged columns are named after
    namespace columns and all such have those columns' ids (a leaf written with the namespace's
    ids; a column another client added to a lancepart leaf alone is not taken)."""
    def field_id(f):
        return int(f["metadata"]["lance:field_id"])

    def tag(f):
        value = (f.metadata or {}).get(b"lancepart:field_id")
        return None if value is None else int(value)
    tagged = [f.name for f in ds.schema if tag(f) == field_id(field)]
    if tagged:
        return tagged[0]
    untagged = [f.name for f in ds.schema if tag(f) is None]
    if field["name"] in untagged:
        return field["name"]
    lance_ids = {f.name(): f.id() for f in ds.lance_schema.fields()}
    ids_by_name = {f["name"]: field_id(f) for f in schema_fields}
    named = [ids_by_name[name] == lance_ids[name] for name in untagged if name in ids_by_name]
    if not named or not all(named):
        return None
    return next((name for name in untagged if lance_ids[name] == field_id(field)), None)


def _identity_sources(meta: dict, names_by_id: dict[int, str]) -> dict[int, dict[str, str]]:
    """spec id -> {source column name: field_id} for identity fields."""
    out: dict[int, dict[str, str]] = {}
    for key, value in meta.items():
        if key.startswith("partition_spec_v"):
            spec = json.loads(value)
            out[spec["id"]] = {
                names_by_id[f["source_ids"][0]]: f["field_id"]
                for f in spec["fields"]
                if (f.get("transform") or {}).get("type") == "identity" and f["source_ids"][0] in names_by_id
            }
    return out


def table_uri(spark: SparkSession, table: str) -> tuple[str, dict[str, str]]:
    """The URI of ``table`` (``catalog.ns...name``) and its catalog's Lance storage options, read
    from the session's ``spark.sql.catalog.<catalog>.*`` settings: a partitioned table's directory
    (for opening ``__manifest`` or a partition table with pylance), or a plain Lance table's
    dataset (its ``Location`` in ``DESCRIBE TABLE EXTENDED``: it may be a directory namespace's)."""
    table = qualified_table(spark, table)
    catalog, *path = table.split(".")
    root, storage = _catalog_root(spark, catalog)
    if not _partitioned(spark, table):
        [location] = [r.data_type for r in spark.sql(f"DESCRIBE TABLE EXTENDED {table}").collect()
                      if r.col_name == "Location"]
        return location, storage
    return "/".join([root, *path]), storage


def qualified_table(spark: SparkSession, table: str) -> str:
    """``table`` as ``catalog.namespace...table`` (``resolve_table``); a name without a namespace
    is refused."""
    catalog, name = resolve_table(spark, table)
    if "." not in name:
        raise ValueError(f"{table}: name the table as [catalog.]namespace.table")
    return f"{catalog}.{name}"


def _session_conf(spark: SparkSession) -> dict[str, str]:
    """The session's settings: ``RuntimeConfig.getAll`` from Spark 4.0 on; on Spark 3.5, which has
    none in Python, the JVM's (``SET`` would redact the storage secrets)."""
    if hasattr(type(spark.conf), "getAll"):
        return spark.conf.getAll
    jvm_conf = spark._jsparkSession.conf().getAll()
    return dict(spark._jvm.scala.collection.JavaConverters.mapAsJavaMap(jvm_conf))


def _catalog_root(spark: SparkSession, catalog: str) -> tuple[str, dict[str, str]]:
    conf = _session_conf(spark)
    prefix = f"spark.sql.catalog.{catalog}."
    if prefix + "root" not in conf:
        raise ValueError(f"{catalog} is not a configured catalog: no {prefix}root setting")
    root = conf[prefix + "root"].rstrip("/")
    if "://" not in root and not root.startswith("file:"):
        root = os.path.abspath(root)
    storage = {k[len(prefix + "storage."):]: v for k, v in conf.items() if k.startswith(prefix + "storage.")}
    return root, storage


def _as_read(column: pa.ChunkedArray, target: pa.DataType) -> pa.ChunkedArray:
    """``column`` as a partition table stores it, as Spark reads it (``target`` is the Arrow type
    of Spark's column), by docs/format.md "Types"."""
    return pa.chunked_array([_array_as_read(chunk, target) for chunk in column.chunks], target)


def _array_as_read(a: pa.Array, target: pa.DataType) -> pa.Array:
    """Times of day as microseconds since midnight, date64 and nanoseconds floored to the day and
    the microsecond, struct fields and list elements alike; the rest casts exactly."""
    t = a.type
    if pa.types.is_struct(t) and pa.types.is_struct(target):
        fields = [target.field(i) for i in range(target.num_fields)]
        children = [_array_as_read(a.field(i), f.type) for i, f in enumerate(fields)]
        return pa.StructArray.from_arrays(children, fields=fields, mask=a.is_null())
    if (pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t)) and \
            pa.types.is_list(target):
        as_list = a.cast(pa.list_(t.value_field))
        values = _array_as_read(as_list.values, target.value_type)
        return pa.ListArray.from_arrays(as_list.offsets, values, type=target, mask=a.is_null())
    if pa.types.is_time(t) and pa.types.is_integer(target):
        ints = a.cast(pa.int32() if t.bit_width == 32 else pa.int64()).cast(pa.int64())
        return _floor_div(ints, 1000) if t.unit == "ns" else pc.multiply(ints, _MICROS[t.unit])
    if pa.types.is_date64(t):
        return _floor_div(a.cast(pa.int64()), 86_400_000).cast(pa.int32()).cast(target)
    if (pa.types.is_timestamp(t) or pa.types.is_duration(t)) and t.unit == "ns":
        return _floor_div(a.cast(pa.int64()), 1000).cast(target)
    return a.cast(target)


_MICROS = {"s": 1_000_000, "ms": 1_000, "us": 1}


def _floor_div(values: pa.Array, n: int) -> pa.Array:
    """Integers divided by ``n``, rounded down (Arrow's divide rounds toward zero)."""
    quotient = pc.divide(values, n)
    below = pc.less(pc.subtract(values, pc.multiply(quotient, n)), 0)
    return pc.subtract(quotient, pc.cast(below, pa.int64()))


def _same_rows(a: pa.Table, b: pa.Table) -> bool:
    """Equal as multisets of rows: sorted by every column and compared in Arrow when the types
    sort, row by row in Python otherwise. Floating-point values compare as stored values (see
    ``_freeze``): every NaN equals every NaN, and -0.0 differs from 0.0."""
    if a.num_rows != b.num_rows:
        return False
    keys = [(name, "ascending") for name in a.column_names]
    try:
        return _float_bits(a).sort_by(keys).equals(_float_bits(b).sort_by(keys))
    except (pa.ArrowNotImplementedError, pa.ArrowInvalid, pa.ArrowTypeError):
        only_a, only_b = _diff(a.to_pylist(), b.to_pylist())
        return not only_a and not only_b


def _float_bits(table: pa.Table) -> pa.Table:
    """``table`` with each top-level floating-point column as the bits of its values, every NaN
    made the same NaN first: Arrow's equality holds NaN unequal to itself and -0.0 equal to 0.0."""
    for i, field in enumerate(table.schema):
        bits_type = _BITS.get(field.type)
        if bits_type is not None:
            column = table.column(i)
            same_nan = pc.if_else(pc.is_nan(column), pa.scalar(float("nan"), field.type), column)
            bits = pa.chunked_array([chunk.view(bits_type) for chunk in same_nan.chunks], bits_type)
            table = table.set_column(i, field.name, bits)
    return table


_BITS = {pa.float32(): pa.int32(), pa.float64(): pa.int64()}


def _diff(left: list[dict], right: list[dict]) -> tuple[Counter, Counter]:
    """Multiset difference of two row lists; rows become hashable tuples of (column, value)."""
    a = Counter(_freeze(r) for r in left)
    b = Counter(_freeze(r) for r in right)
    return a - b, b - a


def _freeze(value: Any) -> Any:
    """``value`` (a row, a struct, a list, a map or a scalar) as a hashable value that equals another
    exactly when the stored values are the same: NaN as ``_NAN`` (all NaNs are one value, as in
    Spark), -0.0 as ``_NEGATIVE_ZERO`` (a distinct stored value, though Spark's ``=`` holds it
    equal to 0.0: both sides read the bits the file holds, so a reader that changes them is wrong)."""
    if isinstance(value, dict):
        return tuple((k, _freeze(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):  # a map's entries come as (key, value) tuples
        return tuple(_freeze(v) for v in value)
    if isinstance(value, float):
        if math.isnan(value):
            return _NAN
        if value == 0.0 and math.copysign(1.0, value) < 0:
            return _NEGATIVE_ZERO
    return value


class _FloatMarker:
    """A float value Python's ``==`` does not tell apart as a crosscheck must; shown as ``text``."""

    def __init__(self, text: str):
        self._text = text

    def __repr__(self) -> str:
        return self._text


_NAN = _FloatMarker("nan")
_NEGATIVE_ZERO = _FloatMarker("-0.0")
