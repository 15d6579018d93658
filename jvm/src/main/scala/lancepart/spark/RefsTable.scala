// The metadata table `<table>.refs`, as Iceberg's: the table's named versions, its main branch (the
// latest version), its other branches (TableBranches) and its tags (TableTags), with the version
// each names and how long it is kept. A branch's versions are numbered in a line of their own,
// which VERSION AS OF <n> does not read: its snapshot_id is NULL (read it by name).
package lancepart.spark

import lancepart.spark.plain.PlainTable
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.Table
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

class RefsTable(table: Table) extends MetadataTable(table, RefsTable.Name) {
  override protected def rowSchema: StructType = StructType(Seq(
    StructField("name", StringType, nullable = false),
    StructField("type", StringType, nullable = false),
    StructField("snapshot_id", LongType),
    StructField("max_reference_age_in_ms", LongType),
    StructField("min_snapshots_to_keep", IntegerType),
    StructField("max_snapshot_age_in_ms", LongType)
  ))

  override protected def rows(): Array[InternalRow] = {
    val latest = table match {
      case t: PartitionedTable => t.manifest.version
      case t: PlainTable => t.lanceVersion
      case t => throw new IllegalArgumentException(s"${t.name()} has no versions")
    }
    def row(name: String, kind: String, version: Option[Long], maxAge: Option[Long]) = InternalRow(
      UTF8String.fromString(name),
      UTF8String.fromString(kind),
      version.getOrElse(null),
      maxAge.getOrElse(null),
      null,
      null)
    (row(TableTags.Main, "BRANCH", Some(latest), None) +:
      (TableBranches.list(table).map(b => row(b.name, "BRANCH", None, b.maxAgeMillis)) ++
        TableTags.list(table).map(t => row(t.name, "TAG", Some(t.version), t.maxAgeMillis)))).toArray
  }
}

object RefsTable {
  val Name = "refs"
}
