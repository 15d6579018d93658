// The namespace `schema` property (spec: Schema): JsonArrowSchema with `lance:field_id` on every field.
package lancepart.spec

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.ObjectNode
import lancepart.arrow.{ArrowTypes, FieldIds, UnsupportedArrowType}
import org.apache.arrow.vector.types.pojo.Field
import org.apache.spark.sql.types._

import scala.jdk.CollectionConverters._
import scala.util.Try

/** One top-level column of the namespace schema with its stable field id and its COMMENT. */
case class SchemaField(id: Int, name: String, dataType: DataType, nullable: Boolean, comment: Option[String] = None)

/**
 * The shared schema of every partition table. `json` is kept as stored so that ids of nested
 * fields, which this model does not expose, are written back unchanged. `droppedMaxId` is the
 * largest id of a dropped column (the schema's metadata key [[NamespaceSchema.MaxFieldIdKey]]):
 * ids are never reused.
 */
case class NamespaceSchema(fields: Seq[SchemaField], json: String, droppedMaxId: Int = -1) {

  /** The columns as Spark sees them; a fixed-size list says its size in the field metadata. */
  lazy val sparkSchema: StructType = StructType(fields.map { f =>
    val column = ArrowTypes.sparkField(arrow(f), f.name, f.dataType, f.nullable)
    f.comment.foldLeft(column)(_.withComment(_))
  })

  /** The Arrow field (of the column's name) that new partition tables store column `f` as: its
   * type in the JSON, units and zones as [[ArrowJsonType]] reads them. */
  def arrow(f: SchemaField): Field = {
    val stored = arrowFields(f.id)
    new Field(f.name, stored.getFieldType, stored.getChildren)
  }

  /**
   * [[arrow]] of column `f` with its namespace field ids as Lance takes them from a write's Arrow
   * schema (`lance:field_id` on the column and on every field inside it): a partition table
   * created from it has the namespace's field ids (spec: Field IDs "must remain consistent across
   * partition tables"), gaps of dropped columns included.
   */
  def withFieldIds(f: SchemaField): Field = NamespaceSchema.withIds(arrow(f), columnNodes(f.id))

  @transient private lazy val arrowFields: Map[Int, Field] =
    NamespaceSchema.columns(json, "schema").map { case (_, field, id, _) => id -> field }.toMap

  @transient private lazy val columnNodes: Map[Int, JsonNode] =
    Json.array(Json.parse(json, "schema"), "fields", "schema").map { node =>
      SchemaJson.fieldFromJson(node, "schema")._3 -> node
    }.toMap

  /** A column by id; None for a dropped one (old specs may still name it as a source). */
  def byId(id: Int): Option[SchemaField] = fields.find(_.id == id)

  /** A column by name. */
  def byName(name: String, caseSensitive: Boolean = false): Option[SchemaField] =
    fields.find(f => if (caseSensitive) f.name == name else f.name.equalsIgnoreCase(name))

  /** The largest field id ever used, nested fields and dropped columns included. */
  lazy val maxFieldId: Int =
    (NamespaceSchema.IdPattern.findAllMatchIn(json).map(_.group(1).toInt) ++ Iterator(droppedMaxId)).max
}

object NamespaceSchema {
  val FieldIdKey = "lance:field_id"

  /** Schema metadata key: the largest field id any column had, dropped ones included. */
  val MaxFieldIdKey = "lancepart:max_field_id"

  /** Field metadata key of a column's COMMENT. */
  val CommentKey = "comment"
  private val IdPattern = "\"lance:field_id\"\\s*:\\s*\"(\\d+)\"".r

  /** Parses the stored `schema` property of table `table`. */
  def parse(text: String, table: String): NamespaceSchema = {
    val what = s"table $table: property 'schema'"
    val root = Json.requireObject(Json.parse(text, what), what)
    val fields = columns(text, what).map { case (name, field, id, comment) =>
      val dt =
        try ArrowTypes.toSpark(field, s"$what, column '$name'")
        catch { case e: UnsupportedArrowType => throw new FormatException(e.getMessage) }
      SchemaField(id, name, dt, field.isNullable, comment)
    }
    val dupIds = fields.groupBy(_.id).collect { case (id, fs) if fs.size > 1 => id }
    if (dupIds.nonEmpty) throw new FormatException(s"$what: field id ${dupIds.min} is used twice")
    val dupNames = fields.groupBy(_.name.toLowerCase).collect { case (n, fs) if fs.size > 1 => n }
    if (dupNames.nonEmpty) throw new FormatException(s"$what: column '${dupNames.min}' appears twice")
    val droppedMaxId = Json.stringMap(root.get("metadata")).get(MaxFieldIdKey).map { v =>
      Try(v.toInt).getOrElse(throw new FormatException(s"$what: metadata $MaxFieldIdKey '$v' is not a number"))
    }
    NamespaceSchema(fields, text, droppedMaxId.getOrElse(-1))
  }

  /** The top-level fields of schema JSON `text`: name, Arrow field, field id and COMMENT. */
  private def columns(text: String, what: String): Seq[(String, Field, Int, Option[String])] =
    Json.array(Json.requireObject(Json.parse(text, what), what), "fields", what).map { f =>
      val (name, field, id) = SchemaJson.fieldFromJson(f, what)
      (name, field, id, Json.stringMap(f.get("metadata")).get(CommentKey))
    }

  /** `field` with the ids of its JsonArrowField `node`, whose nested `fields` are, in order, the
   * Arrow field's children ([[ArrowJsonType.toArrow]] reads them so). */
  private def withIds(field: Field, node: JsonNode): Field = {
    val id = Json.stringMap(node.get("metadata"))(FieldIdKey).toInt
    val nested =
      Option(node.get("type")).filter(_.has("fields")).fold(Seq.empty[JsonNode])(_.get("fields").asScala.toList)
    FieldIds.withId(field, id, field.getChildren.asScala.toSeq.zip(nested).map { case (c, n) => withIds(c, n) })
  }

  /** Refuses a COMMENT on a field inside column `column` (of type `dt`), which would be lost. */
  def checkNoNestedComments(table: String, column: String, dt: DataType): Unit = dt match {
    case StructType(fields) => fields.foreach { f =>
        if (f.getComment().isDefined) throw new IllegalArgumentException(s"table $table: field '$column.${f.name}' has " +
          "a COMMENT, which lancepart does not keep for fields inside a column (comments of top-level columns are kept)")
        checkNoNestedComments(table, s"$column.${f.name}", f.dataType)
      }
    case ArrayType(element, _) => checkNoNestedComments(table, s"$column.element", element)
    case MapType(k, v, _) =>
      checkNoNestedComments(table, s"$column.key", k)
      checkNoNestedComments(table, s"$column.value", v)
    case _ =>
  }

  /** Refuses a top-level column name that partition tables cannot hold: Lance refuses a `.` in
   * a top-level field name, and lance-core's Java API cannot scan a column whose name holds a
   * character outside the Basic Multilingual Plane (its JNI passes names as modified UTF-8). */
  /** Columns Lance adds to scans (row ids and addresses, row versions). */
  private val LanceSystemColumns =
    Set("_rowid", "_rowaddr", "_rowoffset", "_row_created_at_version", "_row_last_updated_at_version")

  def checkColumnName(table: String, name: String): Unit = {
    val reason =
      if (name.contains('.')) Some("Lance does not allow '.' in a top-level column name (use a struct field)")
      else if (LanceSystemColumns(name.toLowerCase)) Some(
        "Lance reserves it for the column it adds to scans that ask for it (a table with it cannot be read)")
      else if (name.codePoints().anyMatch(Character.isSupplementaryCodePoint)) Some(
        "lance-core cannot read a column whose name holds a character outside the Basic Multilingual Plane (such as an emoji)")
      else None
    reason.foreach(r => throw new IllegalArgumentException(s"table $table: column name '$name' is not supported: $r"))
  }

  /** A new schema for `struct`: ids 0, 1, ... in pre-order, nested fields included; top-level
   * comments are kept, comments of nested fields are refused (the schema keeps them nowhere); an
   * array with [[ArrowTypes.FixedSizeListKey]] in its field metadata is a fixed-size list. */
  def fromSpark(struct: StructType, table: String): NamespaceSchema = {
    var next = 0
    val nextId = () => { val id = next; next += 1; id }
    val root = Json.obj()
    val arr = root.putArray("fields")
    struct.fields.foreach { f =>
      checkNoNestedComments(table, f.name, f.dataType)
      val node = SchemaJson.fieldToJson(stored(table, f), nextId(), nextId)
      f.getComment().foreach(c => node.get("metadata").asInstanceOf[ObjectNode].put(CommentKey, c))
      arr.add(node)
    }
    parse(Json.write(root), table)
  }

  /**
   * `schema` with the field ids a Lance dataset gives its fields (`ids`, by dotted path: `c`,
   * `c.x`), which a plain table made partitioned keeps, so that its dataset's ids are the
   * namespace's (spec: field ids "must remain consistent across partition tables"); a field the
   * dataset has no id for (a fixed-size list's element) gets one above every id in use. `used` is
   * the largest id the dataset ever used (data files of dropped columns included): new columns
   * are numbered above it.
   */
  def withIds(schema: NamespaceSchema, ids: Map[String, Int], used: Int, table: String): NamespaceSchema = {
    val root = Json.parse(schema.json, s"table $table: schema").asInstanceOf[ObjectNode]
    var next = (used +: ids.values.toSeq).max
    def renumber(node: JsonNode, path: String): Unit = {
      val id = ids.getOrElse(path, { next += 1; next })
      node.get("metadata").asInstanceOf[ObjectNode].put(FieldIdKey, id.toString)
      Option(node.get("type")).flatMap(t => Option(t.get("fields"))).foreach(
        _.asScala.foreach(c => renumber(c, s"$path.${c.get("name").asText()}")))
    }
    root.get("fields").asScala.foreach(c => renumber(c, c.get("name").asText()))
    Option(root.get("metadata")).collect { case m: ObjectNode => m }.getOrElse(root.putObject("metadata"))
      .put(MaxFieldIdKey, next.toString)
    parse(Json.write(root), table)
  }

  /** The Arrow field new column `f` of `table` is stored as (see [[ArrowTypes.stored]]). */
  def stored(table: String, f: StructField): Field =
    try ArrowTypes.stored(f)
    catch { case e: IllegalArgumentException => throw new IllegalArgumentException(s"table $table: ${e.getMessage}") }
}
