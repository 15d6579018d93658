"""Metadata-only lancepart tables for planning benchmarks: a spec-conformant __manifest written
with pylance (one partition level over (day, country) values) and no leaf data, since planning
reads only the manifest."""

from __future__ import annotations

import datetime as dt
import json
import secrets
import string
from pathlib import Path

import pyarrow as pa

ALPHABET = string.ascii_lowercase + string.digits
COUNTRIES = 50


def metadata_only_table(table_dir: Path, partitions: int) -> None:
    """Writes ``table_dir/__manifest`` for a table (id, d, c) partitioned by d and c with
    ``partitions`` partition tables: day ``2000-01-01 + i // 50``, country ``C{i % 50}``."""
    import lance

    schema = {"fields": [
        {"name": "id", "nullable": True, "type": {"type": "int64"}, "metadata": {"lance:field_id": "0"}},
        {"name": "d", "nullable": True, "type": {"type": "date32"}, "metadata": {"lance:field_id": "1"}},
        {"name": "c", "nullable": True, "type": {"type": "utf8"}, "metadata": {"lance:field_id": "2"}}]}
    spec = {"id": 1, "fields": [
        {"field_id": "d", "source_ids": [1], "transform": {"type": "identity"}, "result_type": {"type": "date32"}},
        {"field_id": "c", "source_ids": [2], "transform": {"type": "identity"}, "result_type": {"type": "utf8"}}]}
    ids, types, locations, days, cs = ["v1"], ["namespace"], [None], [None], [None]
    for i in range(partitions):
        name = "".join(secrets.choice(ALPHABET) for _ in range(16))
        oid = f"v1${name}$dataset"
        ids.append(oid), types.append("table"), locations.append(f"{secrets.token_hex(4)}_{oid}")
        days.append(dt.date(2000, 1, 1) + dt.timedelta(days=i // COUNTRIES)), cs.append(f"C{i % COUNTRIES:02d}")
    table = pa.table({
        "object_id": pa.array(ids, pa.string()), "object_type": pa.array(types, pa.string()),
        "location": pa.array(locations, pa.string()), "metadata": pa.array([None] * len(ids), pa.string()),
        "base_objects": pa.array([None] * len(ids), pa.list_(pa.field("object_id", pa.string()))),
        "read_version": pa.array([1 if t == "table" else None for t in types], pa.uint64()),
        "partition_field_d": pa.array(days, pa.date32()), "partition_field_c": pa.array(cs, pa.string())})
    manifest = lance.write_dataset(table, str(table_dir / "__manifest"))
    manifest.update_metadata({"schema": json.dumps(schema), "partition_spec_v1": json.dumps(spec)})
