// ARRAY columns stored as Arrow fixed-size lists (vector embeddings): declared at CREATE TABLE by
// TBLPROPERTIES ('lancepart.fixed-size-list.<column>' = '<size>') or by Spark field metadata.
package lancepart.spark

import lancepart.arrow.ArrowTypes
import lancepart.spec.NamespaceSchema
import org.apache.arrow.vector.types.pojo.{ArrowType, Field}
import org.apache.spark.sql.types.{ArrayType, Metadata, MetadataBuilder, StructField, StructType}

import scala.jdk.CollectionConverters._
import scala.util.Try

object FixedSizeLists {

  /** Property key prefix; the rest is the column, or `column.field` for a field of a struct. */
  val Prefix = "lancepart.fixed-size-list."

  /** `struct` with each column the properties name marked as a fixed-size list of the given size
   * (Spark field metadata [[ArrowTypes.FixedSizeListKey]]). */
  def declare(table: String, struct: StructType, properties: Map[String, String]): StructType =
    properties.collect { case (k, v) if k.startsWith(Prefix) => (k, v) }.foldLeft(struct) { case (s, (key, value)) =>
      val size = Try(value.trim.toInt).filter(_ > 0).getOrElse(throw new IllegalArgumentException(
        s"table $table: property '$key' must be a positive number of elements, got '$value'"))
      mark(table, key, s, key.stripPrefix(Prefix).split('.').toList, size)
    }

  private def mark(table: String, key: String, struct: StructType, path: List[String], size: Int): StructType = {
    val field = struct.fields.find(_.name.equalsIgnoreCase(path.head)).getOrElse(throw new IllegalArgumentException(
      s"table $table: property '$key' names no column: '${path.head}' is not one of ${struct.fieldNames.mkString(", ")}"))
    val marked = (path.tail, field.dataType) match {
      case (Nil, _: ArrayType) =>
        field.copy(metadata = new MetadataBuilder().withMetadata(field.metadata)
          .putLong(ArrowTypes.FixedSizeListKey, size).build())
      case (Nil, other) => throw new IllegalArgumentException(
          s"table $table: property '$key': column '${field.name}' has type ${other.sql}; only an ARRAY can be a fixed-size list")
      case (rest, s: StructType) => field.copy(dataType = mark(table, key, s, rest, size))
      case (_, other) => throw new IllegalArgumentException(
          s"table $table: property '$key': '${field.name}' has type ${other.sql}, which has no fields")
    }
    StructType(struct.fields.map(f => if (f eq field) marked else f))
  }

  /** The properties declaring the fixed-size lists of `schema` (SHOW CREATE TABLE takes them back). */
  def properties(schema: NamespaceSchema): Map[String, String] = properties(schema.fields.map(schema.arrow))

  /** The properties declaring the fixed-size lists of top-level columns `columns`. */
  def properties(columns: Seq[Field]): Map[String, String] = {
    def of(path: String, f: Field): Seq[(String, String)] = f.getType match {
      case l: ArrowType.FixedSizeList => Seq(Prefix + path -> l.getListSize.toString)
      case _: ArrowType.Struct => f.getChildren.asScala.toSeq.flatMap(c => of(s"$path.${c.getName}", c))
      case _ => Seq.empty
    }
    columns.flatMap(c => of(c.getName, c)).toMap
  }

  /** Spark field `f` from a CREATE column with its field metadata (JSON, as Spark passes it). */
  def column(f: StructField, metadataJson: String): StructField =
    if (metadataJson == null || metadataJson.isEmpty) f
    else f.copy(metadata = Metadata.fromJson(metadataJson))
}
