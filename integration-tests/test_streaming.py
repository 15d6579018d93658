"""Structured Streaming into partitioned tables: a stream of JSON files appends each micro-batch
once, as the same stream into Iceberg does, also when Spark replays a micro-batch whose commit it
did not record; output mode complete replaces the table; rows that do not fit the table are
refused naming the column; and a stream killed with SIGKILL in each commit phase, in both
transaction modes, then restarted from its checkpoint after expire_snapshots and vacuum, holds
exactly the source's rows.

Reading streams: the Scala StreamingReadSuite (on Spark 3.5 with Scala 2.12, and 4.1), the stream over a
table another writer appends to, and the same read streams of lancepart and of Iceberg, below."""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import lance
import pyarrow as pa
import pytest
from pyspark.errors import StreamingQueryException

from differential import ICEBERG_CATALOG
from test_faults import phase_files

# kills per transaction mode, each commit phase in turn; LANCEPART_STREAM_TRIALS raises it. A
# weak-mode micro-batch that appends to existing partitions commits __manifest twice (it begins,
# then publishes): "manifest commit" is the first new version, "publish" the second. Each mode
# starts with the phases whose kills its replay must get right: weak mode's partition-table
# commits, visible before the micro-batch is published; strong mode's publish, after which Spark
# records nothing (the replay before the last fragments or partition-table commits only redoes
# invisible work, as test_faults' kills check).
TRIALS = {mode: int(os.environ.get("LANCEPART_STREAM_TRIALS", default))
          for mode, default in (("weak", "2"), ("strong", "1"))}
PHASES = {"weak": ("leaf commit", "manifest commit", "publish", "fragments"),
          "strong": ("publish", "leaf commit", "manifest commit", "fragments")}


def phase_began(table_dir: Path, phase: str, before: set[str]) -> bool:
    if phase == "publish":
        return len(phase_files(table_dir, "manifest commit") - before) >= 2
    return bool(phase_files(table_dir, phase) - before)
SCRIPT = Path(__file__).with_name("stream_process.py")
SCHEMA = "id BIGINT, c STRING"


class Source:
    """A directory of JSON files, each a micro-batch of rows with ids unique across files: rows in
    partitions US and FR, which the table holds already, and in a partition of the file's own."""

    def __init__(self, directory: Path):
        self.directory = directory
        directory.mkdir()
        self.files = 0

    def add(self, rows_per_partition: int = 20) -> None:
        n = self.files
        rows = [{"id": n * 1000 + p * rows_per_partition + i, "c": c}
                for p, c in enumerate(["US", "FR", f"N{n}"]) for i in range(rows_per_partition)]
        hidden = self.directory / f".part-{n:04d}.json"  # the file source skips names starting with '.'
        hidden.write_text("".join(json.dumps(r) + "\n" for r in rows))
        hidden.rename(self.directory / f"part-{n:04d}.json")
        self.files += 1

    def rows(self) -> list[tuple[int, str]]:
        return sorted((r["id"], r["c"]) for f in sorted(self.directory.glob("part-*.json"))
                      for r in map(json.loads, f.read_text().splitlines()))


def drain(spark, source: Source, table: str, checkpoint: Path, complete: bool = False) -> None:
    """Runs the stream of ``source`` into ``table`` until it has read every file (Trigger.AvailableNow):
    appended, or with ``complete`` the count of rows per partition value in output mode complete."""
    stream = spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(str(source.directory))
    if complete:
        stream = stream.groupBy("c").count()
    writer = stream.writeStream.option("checkpointLocation", str(checkpoint)).trigger(availableNow=True)
    writer.outputMode("complete" if complete else "append").toTable(table).awaitTermination()


def rows(spark, table: str) -> list[tuple]:
    return sorted(tuple(r) for r in spark.table(table).collect())


def manifest_version(spark, table: str) -> int:
    return spark.sql(f"CALL lance.system.describe('{table}')").head()["manifest_version"]


def iceberg(spark) -> bool:
    return spark.conf.get(f"spark.sql.catalog.{ICEBERG_CATALOG}", None) is not None


@pytest.mark.parametrize("mode", ["weak", "strong"])
def test_a_stream_appends_every_micro_batch_once_as_iceberg_does(spark, ns, tmp_path, mode):
    source = Source(tmp_path / "source")
    tables = {f"lance.{ns}.s": tmp_path / "lance-checkpoint"}
    spark.sql(f"CREATE TABLE lance.{ns}.s ({SCHEMA}) PARTITIONED BY (c) TBLPROPERTIES ('transaction.mode' = '{mode}')")
    spark.sql(f"INSERT INTO lance.{ns}.s VALUES (-1, 'US'), (-2, 'FR')")
    if iceberg(spark) and mode == "weak":  # the comparison once
        spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {ICEBERG_CATALOG}.{ns}")
        spark.sql(f"CREATE TABLE {ICEBERG_CATALOG}.{ns}.s ({SCHEMA}) USING iceberg PARTITIONED BY (c)")
        spark.sql(f"INSERT INTO {ICEBERG_CATALOG}.{ns}.s VALUES (-1, 'US'), (-2, 'FR')")
        tables[f"{ICEBERG_CATALOG}.{ns}.s"] = tmp_path / "iceberg-checkpoint"
    seeded = [(-2, "FR"), (-1, "US")]
    for _ in range(3):
        source.add()
    for table, checkpoint in tables.items():
        drain(spark, source, table, checkpoint)
        assert rows(spark, table) == sorted(seeded + source.rows()), table

    # A restart after the sink committed a micro-batch and before Spark recorded that: Spark runs
    # micro-batch 2 again, and the sink commits nothing.
    version = manifest_version(spark, f"{ns}.s")
    for table, checkpoint in tables.items():
        for name in ("2", ".2.crc"):  # the record and the checksum Hadoop's local file system keeps of it
            (checkpoint / "commits" / name).unlink(missing_ok=True)
        drain(spark, source, table, checkpoint)
        assert (checkpoint / "commits" / "2").is_file(), "Spark did not run micro-batch 2 again"
        assert rows(spark, table) == sorted(seeded + source.rows()), table
    assert manifest_version(spark, f"{ns}.s") == version

    source.add()
    for table, checkpoint in tables.items():
        drain(spark, source, table, checkpoint)
        assert rows(spark, table) == sorted(seeded + source.rows()), table


def test_output_mode_complete_replaces_the_table_as_iceberg_does(spark, ns, tmp_path):
    source = Source(tmp_path / "source")
    tables = {f"lance.{ns}.counts": tmp_path / "lance-checkpoint"}
    spark.sql(f"CREATE TABLE lance.{ns}.counts (c STRING, count BIGINT) PARTITIONED BY (c)")
    if iceberg(spark):
        spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {ICEBERG_CATALOG}.{ns}")
        spark.sql(f"CREATE TABLE {ICEBERG_CATALOG}.{ns}.counts (c STRING, count BIGINT) USING iceberg PARTITIONED BY (c)")
        tables[f"{ICEBERG_CATALOG}.{ns}.counts"] = tmp_path / "iceberg-checkpoint"
    for files in (2, 3):
        while source.files < files:
            source.add()
        expected = {}
        for _, c in source.rows():
            expected[c] = expected.get(c, 0) + 1
        for table, checkpoint in tables.items():
            drain(spark, source, table, checkpoint, complete=True)
            assert rows(spark, table) == sorted(expected.items()), table


def test_rows_that_do_not_fit_the_table_are_refused_naming_the_column(spark, ns, tmp_path):
    source = Source(tmp_path / "source")
    source.add()
    spark.sql(f"CREATE TABLE lance.{ns}.narrow (id INT, c STRING) PARTITIONED BY (c)")
    spark.sql(f"CREATE TABLE lance.{ns}.required (id BIGINT NOT NULL, c STRING) PARTITIONED BY (c)")
    for table, message in [("narrow", "writes column 'id' as BIGINT (nullable), which does not fit the table's INT"),
                           ("required", "writes column 'id' as BIGINT (nullable), which does not fit the table's "
                                        "BIGINT NOT NULL")]:
        with pytest.raises(StreamingQueryException, match="does not fit") as failure:
            drain(spark, source, f"lance.{ns}.{table}", tmp_path / f"{table}-checkpoint")
        assert message in str(failure.value), str(failure.value)
        assert spark.table(f"lance.{ns}.{table}").count() == 0


def start_stream(root: Path, table: str, source: Source, checkpoint: Path, jvm_tmp: str) -> subprocess.Popen:
    """stream_process.py running the stream, its stderr (the JVM's too) in ``<jvm_tmp>/stderr``.
    A JVM unpacks lance-core's native library into java.io.tmpdir and deletes it only when it
    exits normally: a killed stream's copy goes with ``jvm_tmp``."""
    options = f"{os.environ.get('JAVA_TOOL_OPTIONS', '')} -Djava.io.tmpdir={jvm_tmp}".strip()
    with open(Path(jvm_tmp) / "stderr", "w") as stderr:
        return subprocess.Popen([sys.executable, str(SCRIPT), str(root), table, str(source.directory), str(checkpoint),
                                 "run"], stdout=subprocess.DEVNULL, stderr=stderr, start_new_session=True,
                                env={**os.environ, "JAVA_TOOL_OPTIONS": options})


def kill(process: subprocess.Popen, jvm_tmp: str) -> str:
    """SIGKILL to the stream's process and its JVM (its own process group); its stderr's end."""
    os.killpg(process.pid, 9)
    process.wait()
    return (Path(jvm_tmp) / "stderr").read_text(errors="replace")[-3000:]


@pytest.mark.parametrize("mode", ["weak", "strong"])
def test_a_stream_killed_in_every_commit_phase_holds_each_row_once(spark, admin, root, ns, tmp_path, mode):
    table, table_dir = f"lance.{ns}.killed", root / ns / "killed"
    spark.sql(f"CREATE TABLE {table} ({SCHEMA}) PARTITIONED BY (c) TBLPROPERTIES ('transaction.mode' = '{mode}')")
    spark.sql(f"INSERT INTO {table} VALUES (-1, 'US'), (-2, 'FR')")
    source, checkpoint = Source(tmp_path / "source"), tmp_path / "checkpoint"
    rng = random.Random(f"{mode}-{os.getpid()}")
    for trial in range(TRIALS[mode]):
        phase = PHASES[mode][trial % len(PHASES[mode])]
        for _ in range(3):
            source.add()
        with tempfile.TemporaryDirectory(prefix="stream-jvm-") as jvm_tmp:
            before = phase_files(table_dir, "manifest commit" if phase == "publish" else phase)
            process = start_stream(root, table, source, checkpoint, jvm_tmp)
            deadline = time.monotonic() + 180
            while not phase_began(table_dir, phase, before) and process.poll() is None and time.monotonic() < deadline:
                time.sleep(0.0005)
            time.sleep(rng.uniform(0, 0.005) if phase in ("fragments", "leaf commit") else 0)
            stderr = kill(process, jvm_tmp)
            assert phase_began(table_dir, phase, before), f"trial {trial}: no {phase}; the stream's stderr ends:\n{stderr}"
        ids = [r.id for r in spark.table(table).collect()]
        assert len(ids) == len(set(ids)), f"trial {trial} ({phase}): a row appears twice"
    # What a replay reads (weak mode: the partition tables' versions since a micro-batch began) stays.
    admin.expire_snapshots(f"{ns}.killed", older_than=dt.datetime.now(dt.timezone.utc), retain_last=1)
    admin.vacuum(f"{ns}.killed", older_than=dt.timedelta(0), retention_check=False)
    drain(spark, source, table, checkpoint)
    assert rows(spark, table) == sorted([(-2, "FR"), (-1, "US")] + source.rows())


@pytest.mark.parametrize("mode", ["weak", "strong"])
def test_a_read_stream_over_a_table_another_writer_appends_to_takes_every_row_once(spark, ns, tmp_path, mode):
    source, sink = f"lance.{ns}.appended", f"lance.{ns}.copied"
    spark.sql(f"CREATE TABLE {source} ({SCHEMA}) PARTITIONED BY (c) TBLPROPERTIES ('transaction.mode' = '{mode}')")
    spark.sql(f"CREATE TABLE {sink} ({SCHEMA}) PARTITIONED BY (c)")
    query = (spark.readStream.table(source).writeStream.option("checkpointLocation", str(tmp_path / "checkpoint"))
             .trigger(processingTime="0 seconds").toTable(sink))
    try:
        for i in range(12):  # while the stream runs: rows in 3 partitions that fill, and a new one each time
            spark.sql(f"INSERT INTO {source} VALUES ({i}, 'p{i % 3}'), ({100 + i}, 'n{i}')")
        spark.sql(f"CALL lance.system.rewrite_data_files(table => '{ns}.appended', where => 'c = \\'p0\\'')")
        spark.sql(f"INSERT INTO {source} VALUES (50, 'p0')")
        query.processAllAvailable()
    finally:
        query.stop()
    assert rows(spark, sink) == rows(spark, source)
    assert len(rows(spark, sink)) == 25


def test_a_read_stream_takes_the_rows_icebergs_takes_and_stops_at_a_delete_as_it_does(spark, ns, tmp_path):
    """The same writes into lancepart and into Iceberg, read as streams with a row limit in the same
    session: the copies hold the same rows; a DELETE of a partition fails both streams naming the
    option that skips it, and with that option both go on to the same rows; so they do past a
    copy-on-write UPDATE and a deleted partition with rows appended before and after each, and past
    commits that changed rows in one partition and added rows to others, none of which they take."""
    if not iceberg(spark):
        pytest.skip("Iceberg's runtime is not in this session")
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {ICEBERG_CATALOG}.{ns}")
    systems = {"lance": "PARTITIONED BY (c)", ICEBERG_CATALOG: "USING iceberg PARTITIONED BY (c)"}
    for catalog, clauses in systems.items():
        for name in ("events", "events_copy"):
            spark.sql(f"CREATE TABLE {catalog}.{ns}.{name} ({SCHEMA}) {clauses}")

    def each(statement: str) -> None:
        for catalog in systems:
            spark.sql(statement.format(table=f"{catalog}.{ns}.events"))

    def drained(**options: str) -> dict[str, object]:
        """Each system's copy once its stream read everything there is, or the read option its failure names."""
        out = {}
        for catalog in systems:
            query = (spark.readStream.options(**{"streaming-max-rows-per-micro-batch": "2", **options})
                     .table(f"{catalog}.{ns}.events").writeStream
                     .option("checkpointLocation", str(tmp_path / catalog)).trigger(availableNow=True)
                     .toTable(f"{catalog}.{ns}.events_copy"))
            try:
                query.awaitTermination()
                out[catalog] = rows(spark, f"{catalog}.{ns}.events_copy")
                if options:  # the limit holds on both sides of a commit the stream skips (a new user's
                    # trial found lancepart reading a whole backlog in one micro-batch then); the first
                    # micro-batch reads each partition table whole, as one commit, whatever its size
                    assert max([p["numInputRows"] for p in query.recentProgress] + [0]) <= 2, (catalog, options)
            except StreamingQueryException as e:
                out[catalog] = [o for o in ("streaming-skip-delete-snapshots",) if o in str(e)] or str(e)[:2000]
        return out

    each("INSERT INTO {table} VALUES (1, 'a'), (2, 'b')")
    each("INSERT INTO {table} VALUES (3, 'a'), (4, 'a'), (5, 'c')")
    each("INSERT INTO {table} VALUES (6, 'b')")
    assert drained() == {catalog: [(i, c) for i, c in enumerate("abaacb", 1)] for catalog in systems}
    each("DELETE FROM {table} WHERE c = 'a'")
    each("INSERT INTO {table} VALUES (7, 'c')")
    assert drained() == {catalog: ["streaming-skip-delete-snapshots"] for catalog in systems}
    expected = [(i, c) for i, c in enumerate("abaacbc", 1)]
    assert drained(**{"streaming-skip-delete-snapshots": "true"}) == {catalog: expected for catalog in systems}
    # a copy-on-write UPDATE between appends to its partition, a partition deleted between appends to it:
    # the appended rows, not the updated ones
    each("INSERT INTO {table} VALUES (8, 'b')")
    each("UPDATE {table} SET id = 100 WHERE id = 2")
    each("INSERT INTO {table} VALUES (9, 'b')")
    each("INSERT INTO {table} VALUES (10, 'c')")
    each("DELETE FROM {table} WHERE c = 'c'")
    each("INSERT INTO {table} VALUES (11, 'c')")
    skip = {"streaming-skip-delete-snapshots": "true", "streaming-skip-overwrite-snapshots": "true"}
    expected += [(8, "b"), (9, "b"), (10, "c"), (11, "c")]
    assert drained(**skip) == {catalog: expected for catalog in systems}
    # a skipped commit takes none of its rows, also in the partitions it did not replace: a MERGE that
    # creates one and appends to another, a merge-on-read UPDATE that moves a row, a dynamic overwrite
    each("MERGE INTO {table} t USING (SELECT * FROM VALUES (8L, 'b'), (12L, 'd'), (13L, 'c') AS s(id, c)) s "
         "ON t.id = s.id WHEN MATCHED THEN UPDATE SET id = 800 WHEN NOT MATCHED THEN INSERT *")
    each("ALTER TABLE {table} SET TBLPROPERTIES ('write.update.mode' = 'merge-on-read')")
    each("UPDATE {table} SET c = 'd' WHERE id = 11")
    spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
    try:
        each("INSERT OVERWRITE {table} VALUES (14, 'e'), (15, 'b')")
    finally:
        spark.conf.unset("spark.sql.sources.partitionOverwriteMode")
    each("INSERT INTO {table} VALUES (16, 'c')")
    expected += [(16, "c")]
    assert drained(**skip) == {catalog: expected for catalog in systems}


def test_a_limited_read_stream_skips_another_writers_replacement_of_a_partition_whole(spark, root, ns, tmp_path):
    """Another client replaces a partition's table the way a weak-mode writer of the spec may (a
    new Lance dataset, its __manifest row moved to it, naming no version): a read stream with a
    row limit that skips overwrites takes none of the rows the new table was made with, and the
    rows appended to it after (a review found the new table read whole once the offset stopped
    at that commit)."""
    t = f"lance.{ns}.replaced"
    for name in (t, f"{t}_copy"):
        spark.sql(f"CREATE TABLE {name} ({SCHEMA}) PARTITIONED BY (c)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a'), (2, 'b')")

    def drain() -> None:
        (spark.readStream.options(**{"streaming-max-rows-per-micro-batch": "2",
                                     "streaming-skip-overwrite-snapshots": "true"})
         .table(t).writeStream.option("checkpointLocation", str(tmp_path / "checkpoint")).trigger(availableNow=True)
         .toTable(f"{t}_copy").awaitTermination())

    drain()
    table_dir = root / ns / "replaced"
    manifest = lance.dataset(str(table_dir / "__manifest"))
    row = next(r for r in manifest.to_table().to_pylist()
               if r["object_type"] == "table" and r["partition_field_c"] == "a")
    location = "replaced_by_another_client"
    lance.write_dataset(pa.table({"id": pa.array([100], pa.int64()), "c": ["a"]}), str(table_dir / location))
    metadata = {k: v for k, v in json.loads(row["metadata"]).items() if not k.startswith("lancepart.")}
    replaced = {**row, "location": location, "metadata": json.dumps(metadata)}
    manifest.merge_insert("object_id").when_matched_update_all().execute(
        pa.Table.from_pylist([replaced], schema=manifest.schema))
    assert rows(spark, t) == [(2, "b"), (100, "a")]
    spark.sql(f"INSERT INTO {t} VALUES (3, 'a')")
    drain()
    assert rows(spark, f"{t}_copy") == [(1, "a"), (2, "b"), (3, "a")]
