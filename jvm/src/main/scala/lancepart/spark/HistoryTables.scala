// The metadata tables `<table>.snapshots` (one row per manifest version, a plain table's Lance
// version: when, on top of which, the operation and a summary of what it changed) and
// `<table>.history` (each version and whether it is an ancestor of the current one), as Iceberg's
// tables of those names; see [[ManifestHistory]] and [[lancepart.spark.plain.PlainHistory]].
package lancepart.spark

import lancepart.manifest.ManifestCommit
import org.apache.spark.sql.connector.catalog.Table
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

class SnapshotsTable(table: Table) extends MetadataTable(table, SnapshotsTable.Name) {
  override protected def rowSchema: StructType = StructType(Seq(
    StructField("committed_at", TimestampType, nullable = false),
    StructField("snapshot_id", LongType, nullable = false),
    StructField("parent_id", LongType),
    StructField("operation", StringType, nullable = false),
    StructField("summary", MapType(StringType, StringType, valueContainsNull = false), nullable = false)
  ))

  override protected def rows(): Array[InternalRow] = MetadataTable.commits(table).map { c =>
    val summary = c.summary.toSeq.sortBy(_._1)
    InternalRow(
      c.committedAtMicros,
      c.version,
      c.parent.getOrElse(null),
      UTF8String.fromString(c.operation),
      ArrayBasedMapData(
        summary.map(e => UTF8String.fromString(e._1)).toArray,
        summary.map(e => UTF8String.fromString(e._2)).toArray)
    )
  }.toArray
}

object SnapshotsTable {
  val Name = "snapshots"
}

class HistoryTable(table: Table) extends MetadataTable(table, HistoryTable.Name) {
  override protected def rowSchema: StructType = StructType(Seq(
    StructField("made_current_at", TimestampType, nullable = false),
    StructField("snapshot_id", LongType, nullable = false),
    StructField("parent_id", LongType),
    StructField("is_current_ancestor", BooleanType, nullable = false)
  ))

  override protected def rows(): Array[InternalRow] = {
    val commits = MetadataTable.commits(table)
    val ancestors = HistoryTable.ancestors(commits)
    commits.map(c =>
      InternalRow(c.committedAtMicros, c.version, c.parent.getOrElse(null), ancestors(c.version))).toArray
  }
}

object HistoryTable {
  val Name = "history"

  /** The versions whose rows the latest one descends from: a rollback continues at the version
   * it restored, so the versions it rolled back are no ancestors. */
  def ancestors(commits: Seq[ManifestCommit]): Set[Long] = {
    val byVersion = commits.map(c => c.version -> c).toMap
    Iterator.iterate(commits.lastOption)(_.flatMap(c => c.restored.orElse(c.parent).flatMap(byVersion.get)))
      .takeWhile(_.isDefined).flatten.map(_.version).toSet
  }
}
