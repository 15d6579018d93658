"""The systems compared, in one Spark session: lancepart, Spark's Parquet tables (Hive-style
partitions; bucketed tables for the join), Apache Iceberg (Hadoop catalog on local disk), and
pylance on one unpartitioned Lance dataset (no Spark: the physical reference for Lance reads,
since no lance-spark build for Spark 4 / Scala 2.13 is on Maven Central)."""

from __future__ import annotations

from dataclasses import dataclass

COLUMNS = "id BIGINT, ts TIMESTAMP, event_date DATE, country STRING, user_id BIGINT, amount DECIMAL(10, 2), payload STRING"
COUNTRIES = 50
FIRST_DAY = "2025-01-01"


def events_query(rows: int, partitions: int) -> str:
    """About ``rows`` synthetic events over ``partitions // 50`` days and 50 countries; a 200-byte
    payload that varies per row (so it does not compress away)."""
    days = max(1, partitions // COUNTRIES)
    countries = ", ".join(f"'C{i:02d}'" for i in range(COUNTRIES))
    return f"""
        SELECT id,
               ts,
               to_date(ts) AS event_date,
               element_at(array({countries}), CAST(id % {COUNTRIES} AS INT) + 1) AS country,
               (id * 2654435761) % 1000000007 AS user_id,
               CAST((id * 37) % 100000 AS DECIMAL(10, 2)) / 100 AS amount,
               repeat(md5(CAST(id AS STRING)), 7) || substr(md5(CAST(id + 1 AS STRING)), 1, 4) AS payload
        FROM (SELECT id, timestamp_seconds(unix_timestamp(TIMESTAMP'{FIRST_DAY} 00:00:00')
                                           + (id * 7919) % {days * 86400}) AS ts
              FROM range({rows}))"""


@dataclass(frozen=True)
class System:
    """A Spark table format: its name in results, the catalog and the DDL for a partitioned table."""
    name: str
    catalog: str
    using: str  # the USING clause ('' for lancepart, whose catalog has one format)

    def table(self, name: str) -> str:
        return f"{self.catalog}.bench.{name}"

    def create_events(self, spark, name: str) -> str:
        t = self.table(name)
        spark.sql(f"DROP TABLE IF EXISTS {t}")
        if self.name == "parquet":  # Hive-style: partition columns last in the table schema
            spark.sql(f"CREATE TABLE {t} ({COLUMNS}) USING parquet PARTITIONED BY (event_date, country)")
        else:
            spark.sql(f"CREATE TABLE {t} ({COLUMNS}) {self.using} PARTITIONED BY (event_date, country)")
        if self.name == "iceberg":
            # Unsorted Iceberg tables write with fanout writers (one open Parquet file per partition
            # in each task), which ran a 12 GiB driver out of heap at 10,000 partitions; a sort
            # order on the partition columns makes Spark sort each task's rows and Iceberg write
            # one file at a time, as Spark's Parquet writer and lancepart do.
            spark.sql(f"ALTER TABLE {t} WRITE ORDERED BY event_date, country")
        return t

    def create_bucketed(self, spark, name: str, buckets: int) -> str:
        t = self.table(name)
        spark.sql(f"DROP TABLE IF EXISTS {t}")
        columns = "k BIGINT, v BIGINT, payload STRING"
        if self.name == "parquet":
            spark.sql(f"CREATE TABLE {t} ({columns}) USING parquet CLUSTERED BY (k) INTO {buckets} BUCKETS")
        else:
            spark.sql(f"CREATE TABLE {t} ({columns}) {self.using} PARTITIONED BY (bucket({buckets}, k))")
        return t


LANCEPART = System("lancepart", "lance", "")
PARQUET = System("parquet", "spark_catalog", "USING parquet")
ICEBERG = System("iceberg", "iceberg", "USING iceberg")
SPARK_SYSTEMS = [LANCEPART, PARQUET, ICEBERG]
PYLANCE = "lance unpartitioned (pylance, no Spark)"
# The point query over its partition's rows cached in memory: Spark's own cost for that plan
SPARK_FLOOR = "spark floor (cached partition)"
