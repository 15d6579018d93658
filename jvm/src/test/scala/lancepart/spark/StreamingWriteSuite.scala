// Structured Streaming into partitioned tables on every Spark line: a stream of JSON files appends
// each micro-batch once in both transaction modes, also when Spark runs again a micro-batch whose
// commit its checkpoint does not record; output mode complete replaces the table; rows that do
// not fit the table's columns are refused before anything is written.
package lancepart.spark

import java.nio.file.{Files, Path}

import org.apache.spark.sql.Row
import org.apache.spark.sql.streaming.{StreamingQueryException, Trigger}
import org.scalatest.funsuite.AnyFunSuite

class StreamingWriteSuite extends AnyFunSuite with StreamingSession {

  /** Adds the `n`th file (from 0) to the source directory `dir`: 3 rows in partition US, 2 in a
   * partition of its own; returns its rows. */
  private def addFile(dir: Path, n: Int): Seq[Row] = {
    val rows = (0 until 3).map(i => Row(n * 10L + i, "US")) ++ (3 until 5).map(i => Row(n * 10L + i, s"N$n"))
    Files.createDirectories(dir)
    val hidden = dir.resolve(s".part-$n.json") // the file source skips names starting with '.'
    Files.writeString(hidden, rows.map(r => s"""{"id": ${r.getLong(0)}, "c": "${r.getString(1)}"}""").mkString("\n"))
    Files.move(hidden, dir.resolve(s"part-$n.json"))
    rows
  }

  /** Streams the files of `dir` into `table` until all are read, one file a micro-batch. */
  private def drain(dir: Path, table: String, checkpoint: Path, complete: Boolean = false): Unit = {
    val files = spark.readStream.schema("id BIGINT, c STRING").option("maxFilesPerTrigger", "1").json(dir.toString)
    val stream = if (complete) files.groupBy("c").count() else files
    stream.writeStream.option("checkpointLocation", checkpoint.toString).trigger(Trigger.AvailableNow())
      .outputMode(if (complete) "complete" else "append").toTable(table).awaitTermination()
  }

  private def rows(table: String): Seq[Row] = spark.table(table).orderBy("id").collect().toSeq

  private def manifestVersion(table: String): Long =
    spark.sql(s"CALL lance.system.describe('$table')").head().getAs[Long]("manifest_version")

  for (mode <- Seq("weak", "strong")) {
    test(s"$mode mode: each micro-batch is appended once, also when Spark runs it again") {
      val table = s"lance.ns.appended_$mode"
      val dir = root.resolve(s"source-$mode")
      val checkpoint = root.resolve(s"checkpoint-$mode")
      spark.sql(s"CREATE TABLE $table (id BIGINT, c STRING) PARTITIONED BY (c) " +
        s"TBLPROPERTIES ('transaction.mode' = '$mode')")
      spark.sql(s"INSERT INTO $table VALUES (-1, 'US')")
      val written = Row(-1L, "US") +: (0 until 3).flatMap(addFile(dir, _))
      drain(dir, table, checkpoint)
      assert(rows(table) == written.sortBy(_.getLong(0)))

      // Spark records a micro-batch's commit after the sink's: a query stopped in between runs
      // micro-batch 2 again, and the sink commits nothing
      val version = manifestVersion(s"ns.appended_$mode")
      Seq("2", ".2.crc").foreach(name => Files.deleteIfExists(checkpoint.resolve("commits").resolve(name)))
      drain(dir, table, checkpoint)
      assert(Files.exists(checkpoint.resolve("commits").resolve("2")), "Spark did not run micro-batch 2 again")
      assert(manifestVersion(s"ns.appended_$mode") == version)
      assert(rows(table) == written.sortBy(_.getLong(0)))
    }
  }

  test("output mode complete replaces the table with each micro-batch's result") {
    val dir = root.resolve("source-complete")
    val checkpoint = root.resolve("checkpoint-complete")
    spark.sql("CREATE TABLE lance.ns.counts (c STRING, count BIGINT) PARTITIONED BY (c)")
    val written = (0 until 2).flatMap(addFile(dir, _))
    drain(dir, "lance.ns.counts", checkpoint, complete = true)
    val more = written ++ addFile(dir, 2)
    drain(dir, "lance.ns.counts", checkpoint, complete = true)
    val expected =
      more.groupBy(_.getString(1)).map { case (c, rs) => Row(c, rs.size.toLong) }.toSeq.sortBy(_.getString(0))
    assert(spark.table("lance.ns.counts").orderBy("c").collect().toSeq == expected)
  }

  test("rows that do not fit the table's columns are refused, naming the column, before anything is written") {
    val dir = root.resolve("source-narrow")
    addFile(dir, 0)
    spark.sql("CREATE TABLE lance.ns.narrow (id INT, c STRING) PARTITIONED BY (c)")
    val failure = intercept[StreamingQueryException](drain(dir, "lance.ns.narrow", root.resolve("checkpoint-narrow")))
    assert(
      failure.getMessage.contains("writes column 'id' as BIGINT (nullable), which does not fit the table's INT"),
      failure.getMessage)
    assert(spark.table("lance.ns.narrow").count() == 0)
  }

  test("a stream into a plain table, which takes no streams, fails naming the table") {
    // Regression (a new user's trial): Spark's message named the table object, PlainTable@7cbefcaf.
    val dir = root.resolve("source-plain")
    addFile(dir, 0)
    spark.sql("CREATE TABLE lance.ns.plain (id BIGINT, c STRING)")
    val failure = intercept[Exception](drain(dir, "lance.ns.plain", root.resolve("checkpoint-plain")))
    assert(!failure.getMessage.contains("PlainTable@"), failure.getMessage)
    assert(failure.getMessage.contains("lance.ns.plain"), failure.getMessage)
  }
}
