"""Partitioned namespaces written by hand with pylance and pyarrow alone, as the spec's appendices
show them, and read back the way the spec tells a reader to. Imported by the tests under both
pylance versions: the package's pinned one and the newest one (test_interop_newest_pylance.py), so
it uses only API both have."""

import datetime as dt
import hashlib
import json
import secrets
import string

import lance
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
