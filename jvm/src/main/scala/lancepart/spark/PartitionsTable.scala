// The metadata table `<catalog>.<ns>.<table>.partitions`: one row per partition table with its
// spec id, partition values (a column per partition field, named by field_id), object id,
// location, read_version, row count and data size, read from __manifest and Lance metadata.
package lancepart.spark

import lancepart.manifest.{ManifestQuery, ManifestRow}
import lancepart.spec.BoundSpec
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

class PartitionsTable(table: PartitionedTable) extends MetadataTable(table, PartitionsTable.Name) {
  private val fields = table.manifest.meta.allFields
  private val fixed = Seq(
    "spec_id" -> IntegerType,
    "object_id" -> StringType,
    "location" -> StringType,
    "read_version" -> PartitionsTable.ReadVersionType,
    "row_count" -> LongType,
    "data_size_bytes" -> LongType
  )
  private val fieldColumns = fields.map { f =>
    if (fixed.exists(_._1.equalsIgnoreCase(f.fieldId))) s"${f.fieldId}_partition" else f.fieldId
  }

  override protected def rowSchema: StructType = StructType(
    StructField("spec_id", IntegerType, nullable = false) +:
      fieldColumns.zip(fields).map { case (c, f) => StructField(c, f.valueType) } ++:
      fixed.tail.map { case (n, t) => StructField(n, t, nullable = n == "read_version") })

  /** The partition tables of the spec versions the table declares, by object id, each with its
   * row count and data size at the version the table's manifest reads. */
  private def partitions(): Seq[PartitionsTable.Partition] =
    table.files.withData(table.store.rows(
      table.manifest,
      ManifestQuery.tables(table.manifest.meta))).sortBy(_.objectId).map {
      row =>
        val (count, size) = table.store.lance.withDataset(table.store.leafUri(row), row.readVersion) { ds =>
          (ds.countRows(), ds.calculateDataSize())
        }
        PartitionsTable.Partition(
          row,
          row.specVersion.flatMap(v => table.manifest.meta.specs.find(_.id == v)),
          count,
          size)
    }

  override protected def rows(): Array[InternalRow] = partitions().map { p =>
    val row = p.row
    val values = fields.map(f =>
      if (p.spec.exists(_.fields.exists(_.fieldId == f.fieldId))) row.values.getOrElse(f.fieldId, null) else null)
    InternalRow.fromSeq((row.specVersion.getOrElse(0) +: values) ++ Seq(
      UTF8String.fromString(row.objectId),
      UTF8String.fromString(row.location.get),
      row.readVersion.map(v => Decimal(new java.math.BigDecimal(java.lang.Long.toUnsignedString(v)), 20, 0)).orNull,
      p.rowCount,
      p.dataSizeBytes
    ))
  }.toArray
}

object PartitionsTable {
  val Name = "partitions"

  /** One row of the table: a partition table's manifest row, the spec version it belongs to, its
   * row count and data size. */
  private case class Partition(row: ManifestRow, spec: Option[BoundSpec], rowCount: Long, dataSizeBytes: Long)

  /** read_version is a uint64 (detached versions use the top bit): DECIMAL(20, 0) holds it. */
  val ReadVersionType: DecimalType = DecimalType(20, 0)
}
