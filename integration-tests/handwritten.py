"""Partitioned namespaces written by hand with pylance and pyarrow alone, as the spec's appendices
show them, and read back the way the spec tells a reader to. Imported by the tests under both
pylance versions: the package's pinned one and the newest one (test_interop_newest_pylance.py), so
it uses only API both have."""

import datetime as dt
import decimal
import hashlib
import itertools
import json
import secrets
import string

import lance
import numpy as np
import pyarrow as pa


def random_name():
    alphabet = string.ascii_lowercase + string.digits
    return "".join(secrets.choice(alphabet) for _ in range(16))


def location_of(object_id):
    return hashlib.sha1(object_id.encode()).hexdigest()[:8] + "_" + object_id


def write_by_hand(table_dir, properties=None, metadata=None, base_objects=None, read_version_column=True):
    """The spec's Appendix A-C example written with pylance alone: v1 by event_date, v2 by
    year(event_date) and country. One v1 leaf omits its identity column (as Daft writes them);
    one v2 leaf has no read_version. Every leaf has two versions; read_version says 1. Every row
    gets `metadata` (JSON text) and `base_objects` when given; `read_version_column=False` leaves
    the optional column out of __manifest."""
    schema = {"fields": [
        {"name": "id", "nullable": False, "type": {"type": "int64"}, "metadata": {"lance:field_id": "0"}},
        {"name": "event_date", "nullable": True, "type": {"type": "date32"}, "metadata": {"lance:field_id": "1"}},
        {"name": "country", "nullable": True, "type": {"type": "utf8"}, "metadata": {"lance:field_id": "2"}},
    ]}
    spec1 = {"id": 1, "fields": [{"field_id": "event_date", "source_ids": [1],
                                  "transform": {"type": "identity"}, "result_type": {"type": "date32"}}]}
    spec2 = {"id": 2, "fields": [
        {"field_id": "event_year", "source_ids": [1], "transform": {"type": "year"}, "result_type": {"type": "int32"}},
        {"field_id": "country", "source_ids": [2], "transform": {"type": "identity"}, "result_type": {"type": "utf8"}}]}
    rows = [{"object_id": "v1", "object_type": "namespace"}, {"object_id": "v2", "object_type": "namespace"}]
    d10, d11 = dt.date(2025, 12, 10), dt.date(2025, 12, 11)

    def leaf(parts, values, data, read_version=True):
        ids = []
        for depth, part in enumerate(parts, start=1):
            ids.append(part)
            object_id = "$".join(ids)
            if not any(r["object_id"] == object_id for r in rows):
                rows.append({"object_id": object_id, "object_type": "namespace", **values[depth - 2]})
        object_id = "$".join(ids + ["dataset"])
        location = location_of(object_id)
        ds = lance.write_dataset(pa.table(data), f"{table_dir}/{location}")
        ds = lance.write_dataset(pa.table(data), f"{table_dir}/{location}", mode="append")  # version 2
        rows.append({"object_id": object_id, "object_type": "table", "location": location,
                     "read_version": 1 if read_version else None, **values[-1]})
        return ds

    leaf(["v1", random_name()], [{"partition_field_event_date": d10}],
         {"id": pa.array([1, 2], pa.int64()), "event_date": pa.array([d10, d10]), "country": ["US", "FR"]})
    leaf(["v1", random_name()], [{"partition_field_event_date": d11}],
         {"id": pa.array([3], pa.int64()), "country": ["US"]})  # Daft-style: no event_date column
    y = random_name()
    leaf(["v2", y, random_name()], [{"partition_field_event_year": 2025},
                              {"partition_field_event_year": 2025, "partition_field_country": "US"}],
         {"id": pa.array([4], pa.int64()), "event_date": pa.array([dt.date(2025, 12, 20)]), "country": ["US"]},
         read_version=False)
    leaf(["v2", y, random_name()], [{"partition_field_event_year": 2025},
                              {"partition_field_event_year": 2025, "partition_field_country": "JP"}],
         {"id": pa.array([5], pa.int64()), "event_date": pa.array([dt.date(2025, 12, 10)]), "country": ["JP"]})
    manifest_schema = pa.schema([
        pa.field("object_id", pa.string(), nullable=False), pa.field("object_type", pa.string(), nullable=False),
        pa.field("location", pa.string()), pa.field("metadata", pa.string()),
        pa.field("base_objects", pa.list_(pa.field("object_id", pa.string()))),
        pa.field("read_version", pa.uint64()), pa.field("partition_field_event_date", pa.date32()),
        pa.field("partition_field_event_year", pa.int32()), pa.field("partition_field_country", pa.string())])
    for row in rows:
        row.update(metadata=metadata, base_objects=base_objects)
    if not read_version_column:
        manifest_schema = manifest_schema.remove(manifest_schema.get_field_index("read_version"))
    table = pa.Table.from_pylist(rows, schema=manifest_schema)
    manifest = lance.write_dataset(table, f"{table_dir}/__manifest")
    manifest.update_metadata({"schema": json.dumps(schema), "partition_spec_v1": json.dumps(spec1),
                              "partition_spec_v2": json.dumps(spec2), **(properties or {})})


def read_by_hand(table_dir):
    """Every row of the namespace as a reader following the spec sees it: each `table` row's
    dataset at its read_version (its latest where NULL), as the columns of the namespace schema.
    A column a dataset lacks is NULL, or the row's partition value when an identity field of the
    row's spec has it as source. Rows are dicts of Python values, in no particular order."""
    manifest = lance.dataset(f"{table_dir}/__manifest")
    fields = json.loads(manifest.metadata["schema"])["fields"]
    name_of = {f["metadata"]["lance:field_id"]: f["name"] for f in fields}
    identity = {}  # spec version -> {column: partition_field_* column}
    for key, text in manifest.metadata.items():
        if key.startswith("partition_spec_v"):
            spec = json.loads(text)
            identity[spec["id"]] = {name_of[str(f["source_ids"][0])]: f"partition_field_{f['field_id']}"
                                    for f in spec["fields"] if f["transform"] == {"type": "identity"}}
    rows = []
    for row in manifest.to_table().to_pylist():
        if row["object_type"] != "table":
            continue
        version = row.get("read_version")
        uri = f"{table_dir}/{row['location']}"
        leaf = lance.dataset(uri) if version is None else lance.dataset(uri, version=version)
        filled = identity[int(row["object_id"].split("$")[0][1:])]
        present = [f["name"] for f in fields if f["name"] in leaf.schema.names]
        for values in leaf.to_table(columns=present).to_pylist():
            rows.append({f["name"]: values[f["name"]] if f["name"] in values
                         else row.get(filled.get(f["name"])) for f in fields})
    return rows


def comparable(rows):
    """Rows (dicts) as sorted JSON text, so values read in either environment compare exactly:
    zoned timestamps as UTC wall time (Spark's session zone in the tests), other values by str."""
    def value(v):
        if isinstance(v, dt.datetime) and v.tzinfo is not None:
            return str(v.astimezone(dt.timezone.utc).replace(tzinfo=None))
        if isinstance(v, dict):
            return {k: value(x) for k, x in v.items()}
        if isinstance(v, list):
            return [value(x) for x in v]
        return v if v is None or isinstance(v, (bool, int, float, str)) else str(v)
    return sorted(json.dumps(value(r), sort_keys=True) for r in rows)


def json_type(t, next_id):
    """The JsonArrowDataType of pyarrow type `t` as Lance's own converter (lance-namespace) writes
    it: no unit and no zone (`timestamp`, `time64`, `duration`), decimals as `length = precision *
    1000 + scale`, list sizes and binary widths as `length`. Nested fields get ids from `next_id`."""
    def field(name, child):
        return {"name": name, "nullable": child.nullable, "type": json_type(child.type, next_id),
                "metadata": {"lance:field_id": str(next(next_id))}}
    simple = {pa.bool_(): "bool", pa.string(): "utf8", pa.large_string(): "large_utf8", pa.binary(): "binary",
              pa.large_binary(): "large_binary", pa.date32(): "date32", pa.date64(): "date64",
              pa.float16(): "float16", pa.float32(): "float32", pa.float64(): "float64"}
    if t in simple:
        return {"type": simple[t]}
    if pa.types.is_integer(t):
        return {"type": str(t)}
    if pa.types.is_time32(t) or pa.types.is_time64(t):
        return {"type": f"time{t.bit_width}"}
    if pa.types.is_timestamp(t) or pa.types.is_duration(t):
        return {"type": "timestamp" if pa.types.is_timestamp(t) else "duration"}
    if pa.types.is_decimal(t):
        return {"type": f"decimal{t.bit_width}", "length": t.precision * 1000 + t.scale}
    if pa.types.is_fixed_size_binary(t):
        return {"type": "fixed_size_binary", "length": t.byte_width}
    if pa.types.is_fixed_size_list(t):
        return {"type": "fixed_size_list", "length": t.list_size, "fields": [field(t.value_field.name, t.value_field)]}
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        kind = "large_list" if pa.types.is_large_list(t) else "list"
        return {"type": kind, "fields": [field(t.value_field.name, t.value_field)]}
    if pa.types.is_struct(t):
        return {"type": "struct", "fields": [field(t.field(i).name, t.field(i)) for i in range(t.num_fields)]}
    raise ValueError(f"no JsonArrowDataType for {t}")


def namespace_schema(schema, zoned=()):
    """The namespace `schema` JSON of pyarrow `schema` as Lance's converter writes it, ids in
    pre-order; the columns in `zoned` also get lancepart's `lancepart:timezone` key."""
    ids = itertools.count()
    fields = []
    for f in schema:
        node = {"name": f.name, "nullable": f.nullable, "metadata": {"lance:field_id": str(next(ids))}}
        node["type"] = json_type(f.type, ids)
        if f.name in zoned:
            node["metadata"]["lancepart:timezone"] = "UTC"
        fields.append(node)
    return {"fields": fields}


#: Every Arrow type Lance stores that lancepart maps to a Spark type other than Spark's own Arrow
#: type (docs/format.md, "Types"), with values as stored (temporal ones as their integers).
TYPED = pa.schema([
    ("id", pa.int64()), ("k", pa.string()),
    ("u8", pa.uint8()), ("u16", pa.uint16()), ("u32", pa.uint32()), ("u64", pa.uint64()),
    ("f16", pa.float16()), ("d64", pa.date64()),
    ("t32s", pa.time32("s")), ("t32ms", pa.time32("ms")), ("t64us", pa.time64("us")), ("t64ns", pa.time64("ns")),
    ("dur_s", pa.duration("s")), ("dur_ns", pa.duration("ns")),
    ("ts_ms", pa.timestamp("ms")), ("ts_ns", pa.timestamp("ns")),
    ("ts_tz", pa.timestamp("us", tz="UTC")), ("ts_tz_ns", pa.timestamp("ns", tz="UTC")),
    ("ts_tz_plain", pa.timestamp("us", tz="UTC")),  # no lancepart:timezone in the schema: TIMESTAMP_NTZ
    ("dec", pa.decimal256(20, 2)), ("vec", pa.list_(pa.float32(), 3)), ("fsb", pa.binary(4)),
    ("lu", pa.large_string()), ("lb", pa.large_binary()), ("ll", pa.large_list(pa.int32())),
    ("lst", pa.list_(pa.uint16())), ("st", pa.struct([("a", pa.uint8()), ("t", pa.time64("ns"))])),
])
TYPED_ZONED = ("ts_tz", "ts_tz_ns")
TYPED_ROWS = [
    {"id": 1, "k": "a", "u8": 255, "u16": 65535, "u32": 2**32 - 1, "u64": 2**64 - 1, "f16": 0.5,
     "d64": 19782 * 86400000, "t32s": 86399, "t32ms": 43200123, "t64us": 3723456789, "t64ns": 3723456789123,
     "dur_s": -5, "dur_ns": -1500, "ts_ms": 1700000000123, "ts_ns": 1700000000123456789,
     "ts_tz": 1700000000123456, "ts_tz_ns": 1700000000123456999, "ts_tz_plain": 1700000000000001,
     "dec": decimal.Decimal("123456789012345678.90"), "vec": [1.0, 2.5, -3.0], "fsb": b"\x00\x01\x02\x03",
     "lu": "large", "lb": b"\xff", "ll": [1, 2], "lst": [0, 65535], "st": {"a": 7, "t": 1001}},
    {"id": 2, "k": "a", "u8": 0, "u16": 0, "u32": 0, "u64": 0, "f16": -65504.0, "d64": -86400000,
     "t32s": 0, "t32ms": 0, "t64us": 0, "t64ns": 999, "dur_s": 0, "dur_ns": 1, "ts_ms": -1, "ts_ns": -1,
     "ts_tz": -1, "ts_tz_ns": -1, "ts_tz_plain": 0, "dec": decimal.Decimal("-0.01"), "vec": [0.0, -0.0, 1e-3],
     "fsb": b"\xff\xff\xff\xff", "lu": "", "lb": b"", "ll": [], "lst": [], "st": {"a": None, "t": None}},
    {"id": 3, "k": "a", **{f.name: None for f in TYPED if f.name not in ("id", "k")}},
    {"id": 4, "k": "b", "u8": 1, "u16": 2, "u32": 3, "u64": 4, "f16": 65504.0, "d64": 0, "t32s": 1, "t32ms": 1,
     "t64us": 1, "t64ns": 1, "dur_s": 1, "dur_ns": 1000, "ts_ms": 0, "ts_ns": 0, "ts_tz": 0, "ts_tz_ns": 0,
     "ts_tz_plain": 1, "dec": decimal.Decimal("1.00"), "vec": [4.0, 5.0, 6.0], "fsb": b"abcd", "lu": "b",
     "lb": b"b", "ll": [3], "lst": [1], "st": None},
]


def typed_table(rows):
    """`rows` (values as stored) as a pyarrow table of schema TYPED."""
    columns = {}
    for f in TYPED:
        values = [r[f.name] for r in rows]
        if f.type == pa.float16():
            mask = np.array([v is None for v in values])
            columns[f.name] = pa.array(np.array([0 if v is None else v for v in values], np.float16), mask=mask)
        else:
            columns[f.name] = pa.array(values, f.type)
    return pa.table(columns, schema=TYPED)


def write_typed_by_hand(table_dir):
    """A namespace of schema TYPED (as Lance's converter writes its JSON), partitioned by identity
    of `k`: leaves `a` (rows 1-3, row 3 all NULL) and `b` (row 4)."""
    schema = namespace_schema(TYPED, TYPED_ZONED)
    spec = {"id": 1, "fields": [{"field_id": "k", "source_ids": [1], "transform": {"type": "identity"},
                                 "result_type": {"type": "utf8"}}]}
    rows = [{"object_id": "v1", "object_type": "namespace"}]
    for k in ("a", "b"):
        name = random_name()
        object_id = f"v1${name}$dataset"
        rows.append({"object_id": f"v1${name}", "object_type": "namespace", "partition_field_k": k})
        rows.append({"object_id": object_id, "object_type": "table", "location": location_of(object_id),
                     "partition_field_k": k})
        lance.write_dataset(typed_table([r for r in TYPED_ROWS if r["k"] == k]), f"{table_dir}/{location_of(object_id)}")
    manifest_schema = pa.schema([
        pa.field("object_id", pa.string(), nullable=False), pa.field("object_type", pa.string(), nullable=False),
        pa.field("location", pa.string()), pa.field("metadata", pa.string()),
        pa.field("base_objects", pa.list_(pa.field("object_id", pa.string()))),
        pa.field("read_version", pa.uint64()), pa.field("partition_field_k", pa.string())])
    manifest = lance.write_dataset(pa.Table.from_pylist(rows, schema=manifest_schema), f"{table_dir}/__manifest")
    manifest.update_metadata({"schema": json.dumps(schema), "partition_spec_v1": json.dumps(spec)})
