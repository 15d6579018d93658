"""Planning time of a point query (EXPLAIN) against tables of 10 .. 100,000 partition tables.

The tables are metadata-only: a __manifest written with pylance following the spec (one
partition level over (day, country) values), without leaf data, since planning reads only the
manifest. Writes bench/results/planning.json.

    .venv/bin/python bench/planning.py [--sizes 10,100,1000,10000,100000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import secrets
import statistics
import string
import tempfile
import time
from pathlib import Path

import pyarrow as pa

import lancepart

ALPHABET = string.ascii_lowercase + string.digits


def metadata_only_table(table_dir: Path, partitions: int) -> None:
    import lance

    schema = {"fields": [
        {"name": "id", "nullable": True, "type": {"type": "int64"}, "metadata": {"lance:field_id": "0"}},
        {"name": "d", "nullable": True, "type": {"type": "date32"}, "metadata": {"lance:field_id": "1"}},
        {"name": "c", "nullable": True, "type": {"type": "utf8"}, "metadata": {"lance:field_id": "2"}}]}
    spec = {"id": 1, "fields": [
        {"field_id": "d", "source_ids": [1], "transform": {"type": "identity"}, "result_type": {"type": "date32"}},
        {"field_id": "c", "source_ids": [2], "transform": {"type": "identity"}, "result_type": {"type": "utf8"}}]}
    countries = 50
    ids, types, locations, days, cs = ["v1"], ["namespace"], [None], [None], [None]
    for i in range(partitions):
        name = "".join(secrets.choice(ALPHABET) for _ in range(16))
        oid = f"v1${name}$dataset"
        ids.append(oid), types.append("table"), locations.append(f"{secrets.token_hex(4)}_{oid}")
        days.append(dt.date(2000, 1, 1) + dt.timedelta(days=i // countries)), cs.append(f"C{i % countries:02d}")
    table = pa.table({
        "object_id": pa.array(ids, pa.string()), "object_type": pa.array(types, pa.string()),
        "location": pa.array(locations, pa.string()), "metadata": pa.array([None] * len(ids), pa.string()),
        "base_objects": pa.array([None] * len(ids), pa.list_(pa.field("object_id", pa.string()))),
        "read_version": pa.array([1 if t == "table" else None for t in types], pa.uint64()),
        "partition_field_d": pa.array(days, pa.date32()), "partition_field_c": pa.array(cs, pa.string())})
    manifest = lance.write_dataset(table, str(table_dir / "__manifest"))
    manifest.update_metadata({"schema": json.dumps(schema), "partition_spec_v1": json.dumps(spec)})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="10,100,1000,10000,100000")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "planning.json"))
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="lancepart-planning-"))
    spark = lancepart.spark_session(str(root), **{"spark.ui.enabled": "false"})
    spark.sparkContext.setLogLevel("ERROR")
    (root / "bench").mkdir()
    records = []
    for size in (int(s) for s in args.sizes.split(",")):
        metadata_only_table(root / "bench" / f"p{size}", size)
        query = f"EXPLAIN SELECT * FROM lance.bench.p{size} WHERE d = DATE'2000-01-02' AND c = 'C07'"
        spark.sql(query).collect()  # warm-up
        times = []
        for _ in range(args.repeats):
            t = time.perf_counter()
            plan = spark.sql(query).collect()[0][0]
            times.append(time.perf_counter() - t)
        scanned = plan.split("tables=")[1].split(",")[0]
        records.append({"workload": "planning_point_query", "system": "lancepart", "seconds": statistics.median(times),
                        "rows": 0, "partitions": size, "shuffle_bytes": None, "spark": spark.version,
                        "notes": f"EXPLAIN, median of {args.repeats} after a warm-up; tables={scanned}; "
                                 f"{os.cpu_count()} cores"})
        print(f"{size:>7} partition tables: {statistics.median(times) * 1000:8.1f} ms  tables={scanned}", flush=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(records, indent=1) + "\n")
    spark.stop()


if __name__ == "__main__":
    main()
