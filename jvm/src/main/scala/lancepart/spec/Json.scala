// JSON helpers shared by the format model: one ObjectMapper, typed accessors that name what is missing.
package lancepart.spec

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import com.fasterxml.jackson.databind.node.ObjectNode

import scala.jdk.CollectionConverters._

object Json {
  val mapper: ObjectMapper = new ObjectMapper()

  def parse(text: String, what: => String): JsonNode =
    try mapper.readTree(text)
    catch {
      case e: Exception =>
        throw new FormatException(s"$what is not valid JSON: ${e.getMessage.linesIterator.next()}")
    }

  def obj(): ObjectNode = mapper.createObjectNode()

  def write(node: JsonNode): String = mapper.writeValueAsString(node)

  def requireObject(node: JsonNode, what: => String): JsonNode = {
    if (node == null || !node.isObject) throw new FormatException(s"$what must be a JSON object")
    node
  }

  def string(node: JsonNode, key: String, what: => String): String = {
    val v = node.get(key)
    if (v == null || !v.isTextual) throw new FormatException(s"$what: '$key' must be a string")
    v.asText()
  }

  def int(node: JsonNode, key: String, what: => String): Int = {
    val v = node.get(key)
    if (v == null || !v.canConvertToInt || !v.isIntegralNumber) {
      throw new FormatException(s"$what: '$key' must be an integer")
    }
    v.asInt()
  }

  def array(node: JsonNode, key: String, what: => String): Seq[JsonNode] = {
    val v = node.get(key)
    if (v == null || !v.isArray) throw new FormatException(s"$what: '$key' must be an array")
    v.elements().asScala.toList
  }

  /** `map` as a JSON object of strings, as [[stringMap]] reads it back. */
  def writeStringMap(map: Map[String, String]): String = {
    val node = obj()
    map.foreach { case (k, v) => node.put(k, v) }
    write(node)
  }

  def stringMap(node: JsonNode): Map[String, String] =
    if (node == null || node.isNull) Map.empty
    else node.properties().asScala.map(e => e.getKey -> e.getValue.asText()).toMap
}
