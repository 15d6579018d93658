// Namespace schema evolution (spec: Schema; legacy proposal section 4): add, rename, drop, widen,
// comment and move top-level columns, editing the stored JSON so that ids stay stable and are never
// reused (a drop records the largest id in the schema's metadata).
package lancepart.spec

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.{ArrayNode, ObjectNode}
import lancepart.arrow.ArrowTypes
import lancepart.transform.{BucketHash, Transform}
import org.apache.spark.sql.types._

import scala.jdk.CollectionConverters._

object SchemaEvolution {
  sealed trait Change
  case class AddColumn(name: String, dataType: DataType, comment: Option[String] = None) extends Change
  case class RenameColumn(name: String, newName: String) extends Change
  case class DropColumn(name: String) extends Change
  case class WidenColumn(name: String, dataType: DataType) extends Change

  /** Sets (Some) or removes (None) a column's COMMENT. */
  case class CommentColumn(name: String, comment: Option[String]) extends Change

  /** Moves a column first (`after` None) or right after column `after` (ALTER COLUMN ... FIRST/AFTER). */
  case class MoveColumn(name: String, after: Option[String]) extends Change

  /** `meta`'s schema after `changes`, in order; errors name the table, column and reason. */
  def apply(meta: TableMetadata, changes: Seq[Change]): NamespaceSchema =
    changes.foldLeft(meta.schema)((schema, change) => applyOne(meta, schema, change))

  private def applyOne(meta: TableMetadata, schema: NamespaceSchema, change: Change): NamespaceSchema = {
    val table = meta.table
    def column(name: String): SchemaField = schema.byName(name).getOrElse(
      throw new IllegalArgumentException(
        s"table $table: no column '$name' (columns: ${schema.fields.map(_.name).mkString(", ")})"))
    def free(name: String): Unit = if (schema.byName(name).isDefined) {
      throw new IllegalArgumentException(s"table $table: a column named '$name' already exists")
    }
    val root = Json.parse(schema.json, s"table $table: schema").asInstanceOf[ObjectNode]
    val fields = root.get("fields").asInstanceOf[ArrayNode]
    def node(f: SchemaField): ObjectNode = fields.elements().asScala.collectFirst {
      case n: ObjectNode if Json.stringMap(n.get("metadata")).get(NamespaceSchema.FieldIdKey).contains(f.id.toString) =>
        n
    }.get
    change match {
      case AddColumn(name, dt, comment) =>
        NamespaceSchema.checkColumnName(table, name)
        free(name)
        var next = schema.maxFieldId
        val nextId = () => { next += 1; next }
        NamespaceSchema.checkNoNestedComments(table, name, dt)
        val added = SchemaJson.fieldToJson(NamespaceSchema.stored(table, StructField(name, dt)), nextId(), nextId)
        comment.foreach(c => added.get("metadata").asInstanceOf[ObjectNode].put(NamespaceSchema.CommentKey, c))
        fields.add(added)
      case RenameColumn(name, newName) =>
        val f = column(name)
        NamespaceSchema.checkColumnName(table, newName)
        if (!f.name.equalsIgnoreCase(newName)) free(newName)
        node(f).put("name", newName)
      case DropColumn(name) =>
        val f = column(name)
        val users = meta.currentSpec.fields.filter(_.field.sourceIds.contains(f.id)).map(_.fieldId)
        if (users.nonEmpty) {
          throw new IllegalArgumentException(s"table $table: column '${f.name}' is a source of partition field(s) " +
            s"${users.mkString(", ")} of the current spec; evolve the partition spec first")
        }
        val at = fields.elements().asScala.indexWhere(_ eq node(f))
        fields.remove(at)
        val metadata =
          Option(root.get("metadata")).collect { case m: ObjectNode => m }.getOrElse(root.putObject("metadata"))
        metadata.put(NamespaceSchema.MaxFieldIdKey, schema.maxFieldId.toString)
      case WidenColumn(name, dt) =>
        val f = column(name)
        if (!isWidening(f.dataType, dt)) {
          throw new IllegalArgumentException(s"table $table: column '${f.name}' cannot change from ${f.dataType.sql} " +
            s"to ${dt.sql} (only int to bigint, float to double and a larger decimal precision with the same scale)")
        }
        val hashing = hashedBy(meta, f)
        if (hashing.nonEmpty && BucketHash.encodingChanges(f.dataType, dt)) {
          throw new IllegalArgumentException(s"table $table: column '${f.name}' cannot change from ${f.dataType.sql} " +
            s"to ${dt.sql}: it is hashed by partition field(s) ${hashing.mkString(", ")}, and the hash of a " +
            s"${dt.sql} differs from the hash of the same ${f.dataType.sql} value")
        }
        val n = node(f)
        n.set[JsonNode](
          "type",
          ArrowJsonType.fromArrow(
            ArrowTypes.sparkOwn(name, dt, nullable = true),
            () => throw new IllegalStateException("primitive type")))
      case MoveColumn(name, after) =>
        val f = column(name)
        val anchor = after.map(column)
        if (anchor.exists(_.id == f.id)) throw new IllegalArgumentException(
          s"table $table: column '${f.name}' cannot be moved after itself")
        val moved = node(f)
        fields.remove(fields.elements().asScala.indexWhere(_ eq moved))
        fields.insert(anchor.fold(0)(a => fields.elements().asScala.indexWhere(_ eq node(a)) + 1), moved)
      case CommentColumn(name, comment) =>
        val metadata = node(column(name)).get("metadata").asInstanceOf[ObjectNode]
        comment.fold(metadata.remove(NamespaceSchema.CommentKey))(metadata.put(NamespaceSchema.CommentKey, _))
    }
    NamespaceSchema.parse(Json.write(root), table)
  }

  /** The ids of the fields of any spec version that hash column `f`: bucket, multi_bucket and
   * expressions calling murmur3. */
  private def hashedBy(meta: TableMetadata, f: SchemaField): Seq[String] = meta.allFields.map(_.field).filter { p =>
    p.sourceIds.contains(f.id) && (p.transform match {
      case Some(_: Transform.Bucket | _: Transform.MultiBucket) => true
      case _ => p.expression.exists(_.toLowerCase(java.util.Locale.ROOT).contains("murmur3"))
    })
  }.map(_.fieldId)

  /** Why a stored value of type `stored` cannot be read as `read` (nested fields by name, a field
   * the stored value lacks reads as NULL, narrower types widened), naming the field at `path`. */
  def mismatch(stored: DataType, read: DataType, path: String): Option[String] = (stored, read) match {
    case (s: StructType, r: StructType) => r.fields.flatMap { f =>
        s.find(_.name == f.name).flatMap(c => mismatch(c.dataType, f.dataType, s"$path.${f.name}"))
      }.headOption
    case (s: ArrayType, r: ArrayType) => mismatch(s.elementType, r.elementType, s"$path.element")
    case (s: MapType, r: MapType) =>
      mismatch(s.keyType, r.keyType, s"$path.key").orElse(mismatch(s.valueType, r.valueType, s"$path.value"))
    case _ if isWidening(stored, read) || ArrowTypes.sameValues(stored, read) => None
    case _ => Some(s"'$path' has type ${stored.sql}, which cannot be read as ${read.sql}")
  }

  /** Type changes that every old value survives unchanged. */
  def isWidening(from: DataType, to: DataType): Boolean = (from, to) match {
    case (ByteType, ShortType | IntegerType | LongType) => true
    case (ShortType, IntegerType | LongType) => true
    case (IntegerType, LongType) => true
    case (FloatType, DoubleType) => true
    case (a: DecimalType, b: DecimalType) => a.scale == b.scale && b.precision >= a.precision
    case (a, b) => a == b
  }
}
