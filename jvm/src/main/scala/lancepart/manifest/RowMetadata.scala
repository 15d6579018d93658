// The `metadata` JSON of a __manifest row: the row's partition values as `partition.<field_id>`
// (spec: Runtime Namespace Properties), a table's `read_version` and lancepart's weak-mode
// `lancepart.written_version`, so that a manifest another client rewrote without the partition
// and read_version columns can be repaired from it, and `lancepart.stats` (rows and bytes of the
// leaf at the version lancepart committed) and `lancepart.copy_of` (the leaf a new leaf copied).
// Keys of other writers are kept.
package lancepart.manifest

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.ObjectNode
import lancepart.lance.LeafStats
import lancepart.spec.{FormatException, Json}
import org.apache.spark.sql.types.DataType

import scala.jdk.CollectionConverters._
import scala.util.Try
import scala.util.control.NonFatal

/** What lancepart keeps in one row's metadata; `values` maps field ids to values (NULL ones too). */
case class RowMetadata(values: Map[String, Any], readVersion: Option[Long], writtenVersion: Option[Long])

object RowMetadata {
  val PartitionPrefix = "partition."
  val ReadVersionKey = "read_version"
  val WrittenVersionKey = "lancepart.written_version"
  val StatsKey = "lancepart.stats"
  val CopyOfKey = "lancepart.copy_of"

  /** The field ids whose partition value is NULL, as a JSON array in one string: Lance's
   * DirectoryNamespace reads metadata as a map of strings, so no value may be JSON null. */
  val NullPartitionsKey = "lancepart.null_partitions"

  /** The JSON for `row`: its metadata as read with lancepart's keys set anew, values as text and
   * the fields of NULL values listed under [[NullPartitionsKey]] (so that a partition whose values
   * are all NULL can be restored too), or None when there is nothing to keep. Metadata whose keys
   * come out unchanged keeps its text. */
  def json(row: ManifestRow, types: Map[String, DataType]): Option[String] = {
    val read = row.metadata.flatMap(objectOf)
    val node = read.fold(Json.obj())(_.deepCopy())
    node.fieldNames().asScala.toList.filter(ours).foreach(node.remove)
    val nulls = Json.mapper.createArrayNode()
    for ((fieldId, value) <- row.values.toSeq.sortBy(_._1); dt <- types.get(fieldId)) {
      if (value == null) nulls.add(fieldId)
      else node.put(PartitionPrefix + fieldId, JsonValues.toJson(value, dt).asText())
    }
    if (!nulls.isEmpty) node.put(NullPartitionsKey, Json.write(nulls))
    row.readVersion.foreach(v => node.put(ReadVersionKey, java.lang.Long.toUnsignedString(v)))
    row.writtenVersion.foreach(v => node.put(WrittenVersionKey, java.lang.Long.toUnsignedString(v)))
    // flat string values: other clients (Lance's DirectoryNamespace) read metadata as a string map
    for (s <- row.stats; location <- row.location) {
      node.put(StatsKey + ".location", location)
      node.put(StatsKey + ".version", s.version.toString)
      node.put(StatsKey + ".rows", s.rows.toString)
      node.put(StatsKey + ".bytes", s.bytes.toString)
    }
    row.copyOf.foreach { c =>
      node.put(CopyOfKey + ".location", c.location)
      node.put(CopyOfKey + ".version", java.lang.Long.toUnsignedString(c.version))
    }
    if (read.contains(node)) row.metadata // unchanged: the text as another writer wrote it
    else if (!node.isEmpty) Some(Json.write(node)) else None
  }

  private def ours(key: String): Boolean =
    key.startsWith(PartitionPrefix) || key == NullPartitionsKey || key == ReadVersionKey || key == WrittenVersionKey ||
      key.startsWith(StatsKey + ".") || key.startsWith(CopyOfKey + ".")

  /** `text` as a JSON object, None when it is not one. */
  def objectOf(text: String): Option[ObjectNode] =
    try Some(Json.mapper.readTree(text)).collect { case o: ObjectNode => o }
    catch { case NonFatal(_) => None }

  /** What `text` keeps, partition values typed by `types` (field id to value type): the fields
   * `text` names, NULL ones included. */
  def parse(text: String, types: Map[String, DataType], table: String, objectId: String): RowMetadata = {
    val node = objectOf(text).getOrElse(throw new FormatException(
      s"table $table: __manifest row $objectId has metadata that is not a JSON object: $text"))
    val nulls = textOf(node.get(NullPartitionsKey)).fold(Set.empty[String]) { text =>
      val list = Json.parse(text, s"table $table: __manifest row $objectId metadata key $NullPartitionsKey")
      if (!list.isArray || !list.elements().asScala.forall(_.isTextual)) throw new FormatException(
        s"table $table: __manifest row $objectId has metadata key $NullPartitionsKey '$text', which is no JSON " +
          "array of field ids")
      list.elements().asScala.map(_.asText()).toSet
    }
    // a JSON null value is what lancepart wrote for a NULL value before NullPartitionsKey
    val values = types.collect {
      case (fieldId, dt) if node.has(PartitionPrefix + fieldId) =>
        fieldId -> textOf(node.get(PartitionPrefix + fieldId)).map(v =>
          JsonValues.fromJson(Json.mapper.getNodeFactory.textNode(v), dt)).orNull
      case (fieldId, _) if nulls(fieldId) => fieldId -> null
    }
    def version(key: String) = textOf(node.get(key)).map { v =>
      try java.lang.Long.parseUnsignedLong(v)
      catch {
        case _: NumberFormatException => throw new FormatException(
            s"table $table: __manifest row $objectId has metadata key $key '$v', which is no version number")
      }
    }
    RowMetadata(values, version(ReadVersionKey), version(WrittenVersionKey))
  }

  /** lancepart's weak-mode written version in metadata `node`, if it holds a well-formed one. */
  def writtenVersion(node: ObjectNode): Option[Long] =
    textOf(node.get(WrittenVersionKey)).flatMap(s => Try(s.toLong).toOption)

  /** lancepart's stats in metadata `node` of the leaf at `location`, if it holds well-formed ones of
   * it (a client that moved the row to another leaf and kept the metadata leaves stats of another one). */
  def stats(node: ObjectNode, location: Option[String]): Option[LeafStats] = {
    def number(key: String) = textOf(node.get(s"$StatsKey.$key")).flatMap(s => Try(s.toLong).toOption)
    if (location.isEmpty || textOf(node.get(s"$StatsKey.location")) != location) None
    else for {
      version <- number("version")
      rows <- number("rows")
      bytes <- number("bytes")
    } yield LeafStats(version, rows, bytes)
  }

  /** The leaf that the leaf of the row with metadata `node` copied, if it holds a well-formed one. */
  def copyOf(node: ObjectNode): Option[LeafCopyOf] = for {
    location <- textOf(node.get(s"$CopyOfKey.location"))
    version <- textOf(node.get(s"$CopyOfKey.version")).flatMap(s => Try(java.lang.Long.parseUnsignedLong(s)).toOption)
  } yield LeafCopyOf(location, version)

  private def textOf(n: JsonNode): Option[String] = Option(n).filterNot(_.isNull).map(_.asText())
}
