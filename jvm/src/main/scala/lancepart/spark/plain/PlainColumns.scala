// The columns of a plain Lance table: its dataset's top-level Arrow fields, each with the Spark
// type it reads as (the dataset's own schema is the table's; there is no namespace schema).
package lancepart.spark.plain

import lancepart.arrow.ArrowTypes
import lancepart.lance.LeafLayout
import lancepart.prune.{LanceSql, RowPredicate}
import lancepart.spark.FixedSizeLists
import lancepart.spec.{ArrowJsonType, NamespaceSchema, SchemaField}
import org.apache.arrow.vector.types.pojo.{Field, FieldType, Schema}
import org.apache.spark.sql.connector.catalog.Column
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.{DataType, StructField, StructType}

import scala.jdk.CollectionConverters._

/** `arrow`: the dataset's top-level fields in order; `table` names the table in errors. */
case class PlainColumns(table: String, arrow: Seq[Field]) {

  /** Each column as the readers and writers of partition tables take it (ids are positions:
   * columns are found by name, as a plain table's columns are untagged). */
  val fields: Seq[SchemaField] = arrow.zipWithIndex.map { case (f, i) =>
    SchemaField(
      i,
      f.getName,
      ArrowTypes.toSpark(f, s"table $table: column '${f.getName}'"),
      f.isNullable,
      Option(f.getMetadata).flatMap(m => Option(m.get(NamespaceSchema.CommentKey)))
    )
  }

  def sparkSchema: StructType = StructType(arrow.zip(fields).map { case (a, f) =>
    f.comment.foldLeft(ArrowTypes.sparkField(a, f.name, f.dataType, f.nullable))(_.withComment(_))
  })

  /** Where written rows go: every column of the dataset, in its order and Arrow types. */
  def layout(fileVersion: String): LeafLayout = LeafLayout(arrow.zip(fields.map(Some(_))), fileVersion)

  /** A column's Lance SQL form and type, for filters: only a column stored in Spark's own Arrow
   * type (Lance compares a literal in the column's stored type). */
  val lanceColumn: String => Option[(String, DataType)] = attr =>
    arrow.zip(fields).collectFirst { case (a, f) if f.name == attr && ArrowTypes.isSparkOwn(a, f.name) => f }
      .flatMap(f => LanceSql.column(f.name).map(_ -> f.dataType))

  /** The rows matching `filters`, as a Lance predicate over these columns. */
  def predicate(filters: Seq[Filter]): RowPredicate = RowPredicate(filters, lanceColumn, fields)

  def schema: Schema = new Schema(arrow.asJava)
}

object PlainColumns {

  /** The columns of a new plain table from CREATE TABLE: stored as a new partition table's
   * columns would be (fixed-size lists declared by properties), COMMENTs in field metadata. */
  def create(
      table: String,
      columns: Array[Column],
      properties: Map[String, String],
      fileVersion: String): PlainColumns = {
    columns.foreach { c =>
      NamespaceSchema.checkColumnName(table, c.name())
      ArrowJsonType.requireWritable(table, c.name(), c.dataType(), fileVersion)
    }
    val struct = FixedSizeLists.declare(
      table,
      StructType(columns.map(c =>
        FixedSizeLists.column(StructField(c.name(), c.dataType(), c.nullable()), c.metadataInJSON()))),
      properties)
    PlainColumns(
      table,
      struct.fields.toSeq.zip(columns).map { case (f, c) =>
        NamespaceSchema.checkNoNestedComments(table, f.name, f.dataType)
        val stored = NamespaceSchema.stored(table, f)
        val metadata = Option(c.comment()).map(NamespaceSchema.CommentKey -> _).toMap
        new Field(
          stored.getName,
          new FieldType(stored.isNullable, stored.getType, stored.getDictionary, metadata.asJava),
          stored.getChildren)
      }
    )
  }
}
