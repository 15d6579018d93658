// Structured Streaming out of partitioned tables on every Spark line: a stream reads a table
// whole, then the rows appended since (new partitions and new fragments of existing ones), each
// once, skipping compactions, in both transaction modes; a DELETE or an overwrite fails it
// unless its options skip them; stream-from-timestamp starts after a time; read limits split what
// there is to read into micro-batches, the oldest commits first.
package lancepart.spark

import org.apache.spark.sql.Row
import org.apache.spark.sql.streaming.{StreamingQueryException, Trigger}
import org.scalatest.funsuite.AnyFunSuite

class StreamingReadSuite extends AnyFunSuite with StreamingSession {

  private def create(table: String, mode: String): Unit = spark.sql(
    s"CREATE TABLE lance.ns.$table (id BIGINT, c STRING) PARTITIONED BY (c) TBLPROPERTIES ('transaction.mode' = '$mode')")

  /** Streams `source` into `sink` (created on first use) until it read everything there is; the
   * rows each micro-batch that read any read. */
  private def drain(source: String, sink: String, options: Map[String, String] = Map.empty): Seq[Long] = {
    if (!spark.catalog.tableExists(s"lance.ns.$sink")) create(sink, "weak")
    val query = spark.readStream.options(options).table(s"lance.ns.$source").writeStream
      .option("checkpointLocation", root.resolve(s"checkpoint-$sink").toString).trigger(Trigger.AvailableNow())
      .toTable(s"lance.ns.$sink")
    query.awaitTermination()
    query.recentProgress.map(_.numInputRows).filter(_ > 0).toSeq
  }

  private def rows(table: String): Seq[Row] = spark.table(s"lance.ns.$table").orderBy("id").collect().toSeq

  /** Runs statements on `table`, which they name `{t}`. */
  private def on(table: String): String => Unit = statement => spark.sql(statement.replace("{t}", s"lance.ns.$table"))

  for (mode <- Seq("strong", "weak")) {
    test(s"$mode mode: a stream reads the table, then the rows appended since, each once; a compaction adds none") {
      val (source, sink) = (s"events_$mode", s"copy_$mode")
      create(source, mode)
      spark.sql(s"INSERT INTO lance.ns.$source VALUES (1, 'a'), (2, 'b')")
      drain(source, sink)
      assert(rows(sink) == Seq(Row(1L, "a"), Row(2L, "b")))
      spark.sql(s"INSERT INTO lance.ns.$source VALUES (3, 'a')") // a fragment of an existing partition table
      spark.sql(s"INSERT INTO lance.ns.$source VALUES (4, 'c'), (5, 'a')") // a new partition table, one more fragment
      spark.sql(s"CALL lance.system.rewrite_data_files(table => 'ns.$source', where => 'c = \\'a\\'')")
      spark.sql(s"INSERT INTO lance.ns.$source VALUES (6, 'a')")
      drain(source, sink)
      assert(rows(sink) == rows(source))
      drain(source, sink) // nothing new
      assert(rows(sink) == rows(source))
    }
  }

  test("a DELETE or an overwrite fails the stream, unless its options skip such commits") {
    create("changing", "strong")
    spark.sql("INSERT INTO lance.ns.changing VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    drain("changing", "changes")
    def failure(): String = intercept[StreamingQueryException](drain("changing", "changes")).getMessage

    spark.sql("DELETE FROM lance.ns.changing WHERE c = 'a'") // a whole partition: its table goes
    assert(
      failure().matches(
        "(?s).*partition \\(c=a\\) was removed at manifest version \\d+; to skip such commits, set read " +
          "option streaming-skip-delete-snapshots=true.*"))
    drain("changing", "changes", Map("streaming-skip-delete-snapshots" -> "true"))

    spark.sql("UPDATE lance.ns.changing SET id = 20 WHERE id = 2") // copy-on-write: the partition table is replaced
    assert(failure().contains("partition (c=b) was replaced at manifest version"))
    spark.sql("INSERT INTO lance.ns.changing VALUES (4, 'd')")
    drain("changing", "changes", Map("streaming-skip-overwrite-snapshots" -> "true"))

    spark.sql("ALTER TABLE lance.ns.changing SET TBLPROPERTIES ('write.delete.mode' = 'merge-on-read')")
    spark.sql("DELETE FROM lance.ns.changing WHERE id = 3") // merge-on-read: Lance deletes in the partition table
    assert(failure().contains("partition (c=c) had rows deleted (Lance Delete) at manifest version"))
    drain("changing", "changes", Map("streaming-skip-delete-snapshots" -> "true"))
    // what was appended, once; what was deleted or changed, as the stream first read it
    assert(rows("changes") == Seq(Row(1L, "a"), Row(2L, "b"), Row(3L, "c"), Row(4L, "d")))
  }

  for (mode <- Seq("strong", "weak")) {
    test(s"$mode mode: skipping a replaced or removed partition table, the rows appended before and after are read") {
      // Regression (a new user's trial): the rows appended to the old partition table after the
      // stream's position, and to the new one, were lost with the skip options.
      val (source, sink) = (s"skipping_$mode", s"skipping_copy_$mode")
      val sql = on(source)
      create(source, mode)
      sql("INSERT INTO {t} VALUES (1, 'a'), (2, 'b')")
      drain(source, sink)
      sql("INSERT INTO {t} VALUES (10, 'a')")
      sql("UPDATE {t} SET id = 100 WHERE id = 1") // copy-on-write: a new partition table for c = 'a'
      sql("INSERT INTO {t} VALUES (11, 'a')")
      sql("INSERT INTO {t} VALUES (20, 'b')")
      sql("DELETE FROM {t} WHERE c = 'b'") // the partition's table goes
      sql("INSERT INTO {t} VALUES (21, 'b')") // a new one for the partition
      // with a read limit: the micro-batch that reaches a replaced or removed table reads to the latest offset
      val limit = Map("streaming-max-rows-per-micro-batch" -> "1")
      def failure(): String = intercept[StreamingQueryException](drain(source, sink, limit)).getMessage
      val replaced = failure()
      assert(replaced.contains("partition (c=a) was replaced at manifest version"), replaced)
      val skip =
        limit ++ Map("streaming-skip-overwrite-snapshots" -> "true", "streaming-skip-delete-snapshots" -> "true")
      drain(source, sink, skip)
      def ids: Seq[Long] = rows(sink).map(_.getLong(0))
      assert(ids == Seq(1L, 2L, 10L, 11L, 20L, 21L))
      sql("INSERT INTO {t} VALUES (12, 'a'), (22, 'b')")
      drain(source, sink, skip)
      assert(ids == Seq(1L, 2L, 10L, 11L, 12L, 20L, 21L, 22L))
      // a partition appended to and removed between two micro-batches (a review found its rows lost, unnoticed)
      sql("INSERT INTO {t} VALUES (30, 'e')")
      sql("DELETE FROM {t} WHERE c = 'e'")
      assert(failure().contains("partition (c=e) was removed at manifest version"))
      drain(source, sink, skip)
      assert(ids == Seq(1L, 2L, 10L, 11L, 12L, 20L, 21L, 22L, 30L))
      if (mode == "strong") { // a rollback (strong mode only): what the stream read since is no longer in the table
        val before = spark.sql(s"CALL lance.system.describe('ns.$source')").head().getAs[Long]("manifest_version")
        sql("INSERT INTO {t} VALUES (40, 'a')")
        drain(source, sink, skip)
        sql(s"CALL lance.system.rollback_to_version(table => 'ns.$source', version => $before)")
        assert(failure().contains(s"rolled the table back to version $before"))
      }
    }
  }

  for (mode <- Seq("strong", "weak")) {
    test(s"$mode mode: an INSERT that rewrites a partition table for a widened column is read as an append") {
      // Regression: the rewrite (the old table's rows copied into a new one, with the INSERT's)
      // looked like an overwrite: it failed the stream, and the skip option lost the INSERT's rows.
      val (source, sink) = (s"widened_$mode", s"widened_copy_$mode")
      for (t <- Seq(source, sink)) spark.sql(
        s"CREATE TABLE lance.ns.$t (id INT, c STRING) PARTITIONED BY (c) TBLPROPERTIES ('transaction.mode' = '$mode')")
      spark.sql(s"INSERT INTO lance.ns.$source VALUES (1, 'a'), (2, 'b')")
      drain(source, sink)
      spark.sql(s"INSERT INTO lance.ns.$source VALUES (3, 'a')")
      for (t <- Seq(source, sink)) spark.sql(s"ALTER TABLE lance.ns.$t ALTER COLUMN id TYPE BIGINT")
      val before = spark.sql(s"SELECT location FROM lance.ns.$source.partitions WHERE c = 'a'").head().getString(0)
      spark.sql(s"INSERT INTO lance.ns.$source VALUES (4, 'a'), (5, 'b')") // rewrites both partition tables
      val after = spark.sql(s"SELECT location FROM lance.ns.$source.partitions WHERE c = 'a'").head().getString(0)
      assert(before != after, "the INSERT did not rewrite the partition table")
      spark.sql(s"INSERT INTO lance.ns.$source VALUES (6, 'a')")
      drain(source, sink, Map("streaming-max-rows-per-micro-batch" -> "1"))
      assert(rows(sink) == rows(source))
      assert(rows(sink).map(_.getLong(0)) == Seq(1L, 2L, 3L, 4L, 5L, 6L))
    }
  }

  for (mode <- Seq("strong", "weak")) {
    test(s"$mode mode: a skipped commit takes none of its rows, in any partition") {
      // Regression (a new user's trial): the rows a skipped MERGE, UPDATE or overwrite added to
      // partitions it did not replace were read (one moved by an UPDATE, twice).
      val (source, sink) = (s"skipped_$mode", s"skipped_copy_$mode")
      val sql = on(source)
      create(source, mode)
      sql("INSERT INTO {t} VALUES (1, 'a'), (2, 'b'), (3, 'a')")
      drain(source, sink)
      val skip = Map("streaming-skip-overwrite-snapshots" -> "true")
      def failure(): String = intercept[StreamingQueryException](drain(source, sink)).getMessage
      sql("INSERT INTO {t} VALUES (10, 'a')")
      // copy-on-write: replaces partition a, creates c and appends to b in one commit
      sql("MERGE INTO {t} t USING (SELECT * FROM VALUES (3L, 'a'), (30L, 'c'), (31L, 'b') AS s(id, c)) s " +
        "ON t.id = s.id WHEN MATCHED THEN UPDATE SET id = 300 WHEN NOT MATCHED THEN INSERT *")
      sql("INSERT INTO {t} VALUES (20, 'b')")
      assert(failure().contains("partition (c=a) was replaced at manifest version"))
      drain(source, sink, skip)
      def ids: Seq[Long] = rows(sink).map(_.getLong(0))
      assert(ids == Seq(1L, 2L, 3L, 10L, 20L))
      // merge-on-read: a row moved to another partition, rows deleted from one and added to another
      sql("ALTER TABLE {t} SET TBLPROPERTIES ('write.update.mode' = 'merge-on-read')")
      sql("UPDATE {t} SET c = 'b' WHERE id = 10")
      val moved = failure()
      assert(
        moved.contains("partition (c=a) had rows deleted (Lance Delete), and rows were added at manifest version") &&
          moved.contains("streaming-skip-overwrite-snapshots=true"),
        moved
      )
      drain(source, sink, skip)
      assert(ids == Seq(1L, 2L, 3L, 10L, 20L))
      // a dynamic overwrite: replaces partition a, creates d
      spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
      try sql("INSERT OVERWRITE {t} VALUES (40, 'd'), (41, 'a')")
      finally spark.conf.unset("spark.sql.sources.partitionOverwriteMode")
      sql("INSERT INTO {t} VALUES (50, 'a'), (51, 'd')")
      drain(source, sink, skip)
      assert(ids == Seq(1L, 2L, 3L, 10L, 20L, 50L, 51L))
      // a REPLACE TABLE: every partition replaced
      sql(s"CREATE OR REPLACE TABLE {t} PARTITIONED BY (c) TBLPROPERTIES ('transaction.mode' = '$mode') AS " +
        "SELECT id + 100 AS id, c FROM {t}")
      sql("INSERT INTO {t} VALUES (60, 'a')")
      val replaced = failure()
      assert(replaced.contains("streaming-skip-overwrite-snapshots=true"), replaced)
      drain(source, sink, skip)
      assert(ids == Seq(1L, 2L, 3L, 10L, 20L, 50L, 51L, 60L))
      // a partition that appeared since the last micro-batch, then took part in a skipped commit and a DELETE
      // (a review found both missed: the new partition table was read whole)
      sql("INSERT INTO {t} VALUES (70, 'f')")
      sql("MERGE INTO {t} t USING (SELECT * FROM VALUES (60L, 'a'), (71L, 'f') AS s(id, c)) s " +
        "ON t.id = s.id WHEN MATCHED THEN UPDATE SET id = 600 WHEN NOT MATCHED THEN INSERT *")
      sql("DELETE FROM {t} WHERE id = 70")
      val deleted = intercept[StreamingQueryException](drain(source, sink, skip)).getMessage
      assert(
        deleted.contains("partition (c=f) had rows deleted (Lance Delete) at manifest version") &&
          deleted.contains("streaming-skip-delete-snapshots=true"),
        deleted
      )
      drain(source, sink, skip ++ Map("streaming-skip-delete-snapshots" -> "true"))
      assert(ids == Seq(1L, 2L, 3L, 10L, 20L, 50L, 51L, 60L, 70L))
    }
  }

  test("a checkpoint of a table dropped and created again under its name is refused") {
    // Regression (a new user's trial): the old checkpoint read the new table from its version.
    val (source, sink) = ("recreated", "recreated_copy")
    create(source, "strong")
    spark.sql(s"INSERT INTO lance.ns.$source VALUES (1, 'a')")
    drain(source, sink)
    spark.sql(s"DROP TABLE lance.ns.$source")
    create(source, "strong")
    spark.sql(s"INSERT INTO lance.ns.$source VALUES (2, 'a')")
    spark.sql(s"INSERT INTO lance.ns.$source VALUES (3, 'b')")
    val e = intercept[StreamingQueryException](drain(source, sink)).getMessage
    assert(e.contains("the table was dropped and created again") && e.contains("with a new checkpoint"), e)
    assert(rows(sink) == Seq(Row(1L, "a")))
  }

  for (mode <- Seq("strong", "weak")) {
    test(s"$mode mode: read limits hold on both sides of a skipped commit, which a micro-batch takes alone") {
      // Regression (a new user's trial): a skipped commit in the backlog made one micro-batch of all of it.
      val (source, sink) = (s"limited_skip_$mode", s"limited_skip_copy_$mode")
      val sql = on(source)
      create(source, mode)
      sql("INSERT INTO {t} VALUES (1, 'a')")
      drain(source, sink)
      for (id <- 2 to 4) sql(s"INSERT INTO {t} VALUES ($id, '${if (id % 2 == 0) "a" else "b"}')")
      sql("UPDATE {t} SET id = 100 WHERE id = 1") // copy-on-write: an overwrite, skipped
      for (id <- 5 to 7) sql(s"INSERT INTO {t} VALUES ($id, '${if (id % 2 == 0) "a" else "b"}')")
      val options =
        Map("streaming-max-rows-per-micro-batch" -> "2", "streaming-skip-overwrite-snapshots" -> "true")
      val batches = drain(source, sink, options)
      assert(batches.forall(_ <= 2) && batches.sum == 6, batches)
      assert(rows(sink).map(_.getLong(0)) == (1L to 7L))
    }
  }

  test("a stream over a weak-mode table switched to strong mode reads every row appended before and after") {
    // Regression (a new user's trial): a running stream kept listing main-branch versions and lost
    // the rows appended after the switch to existing partitions; a restarted one failed.
    val (source, sink) = ("switched", "switched_copy")
    create(source, "weak")
    create(sink, "weak")
    spark.sql(s"INSERT INTO lance.ns.$source VALUES (1, 'a'), (2, 'b')")
    val query = spark.readStream.table(s"lance.ns.$source").writeStream
      .option("checkpointLocation", root.resolve(s"checkpoint-$sink").toString)
      .trigger(Trigger.ProcessingTime(100)).toTable(s"lance.ns.$sink")
    try {
      query.processAllAvailable()
      spark.sql(s"INSERT INTO lance.ns.$source VALUES (3, 'a')")
      query.processAllAvailable()
      spark.sql(s"ALTER TABLE lance.ns.$source SET TBLPROPERTIES ('transaction.mode' = 'strong')")
      spark.sql(s"INSERT INTO lance.ns.$source VALUES (4, 'a'), (5, 'c')") // an existing partition and a new one
      query.processAllAvailable()
      assert(rows(sink).map(_.getLong(0)) == Seq(1L, 2L, 3L, 4L, 5L))
    } finally query.stop()
    spark.sql(s"INSERT INTO lance.ns.$source VALUES (6, 'b'), (7, 'a')") // b: still without a read_version
    drain(source, sink)
    assert(rows(sink) == rows(source))
  }

  for (mode <- Seq("strong", "weak")) {
    test(s"$mode mode: read limits take the oldest commits that fit, at least one, each partition table's in order") {
      val (source, sink) = (s"limited_$mode", s"limited_copy_$mode")
      val insert = (values: String) => spark.sql(s"INSERT INTO lance.ns.$source VALUES $values")
      val maxRows = Map("streaming-max-rows-per-micro-batch" -> "2")
      create(source, mode)
      insert("(1, 'b')")
      insert("(2, 'a'), (3, 'a'), (4, 'a')")
      // the first read takes each partition table whole, the oldest first: b, then a above the limit
      assert(drain(source, sink, maxRows) == Seq(1, 3))
      insert("(5, 'a')")
      insert("(6, 'a'), (7, 'b')")
      insert("(8, 'c')") // a new partition table
      assert(drain(source, sink, maxRows) == Seq(2, 2))
      insert("(9, 'a'), (10, 'b'), (11, 'c')")
      assert(drain(source, sink, Map("streaming-max-partition-tables-per-micro-batch" -> "1")) == Seq(1, 1, 1))
      assert(rows(sink) == rows(source))
    }
  }

  test("a read limit that is not a positive whole number is refused naming the option") {
    create("unlimited", "strong")
    val limit = Map("streaming-max-rows-per-micro-batch" -> "0")
    val e = intercept[StreamingQueryException](drain("unlimited", "unlimited_copy", limit))
    assert(e.getMessage.contains("read option streaming-max-rows-per-micro-batch must be a positive whole number"))
  }

  test("stream-from-timestamp reads what was appended after that time") {
    create("timed", "strong")
    spark.sql("INSERT INTO lance.ns.timed VALUES (1, 'a')")
    Thread.sleep(20)
    val from = System.currentTimeMillis()
    Thread.sleep(20)
    spark.sql("INSERT INTO lance.ns.timed VALUES (2, 'a'), (3, 'b')")
    drain("timed", "timed_copy", Map("stream-from-timestamp" -> from.toString))
    assert(rows("timed_copy") == Seq(Row(2L, "a"), Row(3L, "b")))
  }
}
