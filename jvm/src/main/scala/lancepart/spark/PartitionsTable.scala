// The metadata table `<catalog>.<ns>.<table>.partitions`: one row per partition table with its
// spec id, partition values (a column per partition field, named by field_id), object id,
// location, read_version, row count, data size and Lance indexes, read from __manifest and Lance metadata.
package lancepart.spark

import lancepart.lance.LeafIndexes
import lancepart.manifest.{ManifestQuery, ManifestRow}
import lancepart.spec.BoundSpec
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.util.GenericArrayData
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.lance.Dataset

class PartitionsTable(table: PartitionedTable) extends MetadataTable(table, PartitionsTable.Name) {
  private val fields = table.manifest.meta.allFields
  private val fixed = Seq(
    "spec_id" -> IntegerType,
    "object_id" -> StringType,
    "location" -> StringType,
    "read_version" -> PartitionsTable.ReadVersionType,
    "row_count" -> LongType,
    "data_size_bytes" -> LongType,
    "indexes" -> PartitionsTable.IndexesType
  )
  private val fieldColumns = fields.map { f =>
    if (fixed.exists(_._1.equalsIgnoreCase(f.fieldId))) s"${f.fieldId}_partition" else f.fieldId
  }

  override protected def rowSchema: StructType = StructType(
    StructField("spec_id", IntegerType, nullable = false) +:
      fieldColumns.zip(fields).map { case (c, f) => StructField(c, f.valueType) } ++:
      fixed.tail.map { case (n, t) => StructField(n, t, nullable = n == "read_version") })

  /** The Lance indexes of `ds`: name, type, the namespace columns they cover, unindexed rows. */
  private def indexes(ds: Dataset): Seq[PartitionsTable.LeafIndex] =
    LeafIndexes.of(ds, table.manifest.meta.schema.fields).map(i =>
      PartitionsTable.LeafIndex(i.name, i.kind, i.fields.map(_.shown), i.unindexedRows))

  /** The partition tables of the spec versions the table declares, by object id, each with its
   * row count and data size at the version the table's manifest reads. */
  private def partitions(): Seq[PartitionsTable.Partition] =
    table.files.withData(table.store.rows(
      table.manifest,
      ManifestQuery.tables(table.manifest.meta))).sortBy(_.objectId).map {
      row =>
        val (count, size, leafIndexes) =
          table.store.lance.withDataset(table.store.leafUri(row), row.readVersion, row.readBranch) { ds =>
            (ds.countRows(), ds.calculateDataSize(), indexes(ds))
          }
        PartitionsTable.Partition(
          row,
          row.specVersion.flatMap(v => table.manifest.meta.specs.find(_.id == v)),
          count,
          size,
          leafIndexes)
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
      p.dataSizeBytes,
      new GenericArrayData(p.indexes.map(i =>
        InternalRow(
          UTF8String.fromString(i.name),
          UTF8String.fromString(i.kind),
          new GenericArrayData(i.columns.map(UTF8String.fromString)),
          i.unindexedRows)))
    ))
  }.toArray
}

object PartitionsTable {
  val Name = "partitions"

  /** One row of the table: a partition table's manifest row, the spec version it belongs to, its
   * row count, data size and indexes. */
  private case class Partition(
      row: ManifestRow,
      spec: Option[BoundSpec],
      rowCount: Long,
      dataSizeBytes: Long,
      indexes: Seq[LeafIndex])

  /** A Lance index of a partition table: its name, Lance's type name, the namespace columns it
   * covers and the rows it does not cover (written after its build; searched flat). */
  private case class LeafIndex(name: String, kind: String, columns: Seq[String], unindexedRows: Long)

  val IndexesType: ArrayType = ArrayType(
    StructType(Seq(
      StructField("name", StringType, nullable = false),
      StructField("type", StringType, nullable = false),
      StructField("columns", ArrayType(StringType, containsNull = false), nullable = false),
      StructField("unindexed_rows", LongType, nullable = false)
    )),
    containsNull = false
  )

  /** read_version is a uint64 (detached versions use the top bit): DECIMAL(20, 0) holds it. */
  val ReadVersionType: DecimalType = DecimalType(20, 0)
}
