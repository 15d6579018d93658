"""A streaming query in a process of its own, for the kill test of test_streaming.py: the JSON files
of a source directory (`id BIGINT, c STRING`, one file a micro-batch) into a table of a catalog over
a root, with a checkpoint directory. `run` runs until killed; `drain` stops once every file is
read (Trigger.AvailableNow).

    python stream_process.py <root> <table> <source> <checkpoint> run|drain
"""

import sys

import lancepart

SCHEMA = "id BIGINT, c STRING"


def main(root: str, table: str, source: str, checkpoint: str, how: str) -> None:
    spark = lancepart.spark_session(root, **{"spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "2"})
    writer = (spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(source)
              .writeStream.option("checkpointLocation", checkpoint))
    if how == "drain":
        writer.trigger(availableNow=True).toTable(table).awaitTermination()
    else:
        writer.trigger(processingTime="0 seconds").toTable(table).awaitTermination()


if __name__ == "__main__":
    main(*sys.argv[1:])
