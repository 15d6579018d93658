// A JVM entry point for Python tests (py4j): evaluates partition expressions as a write would, for
// checks against DataFusion. Admin operations are CALL procedures (lancepart.spark.procedures).
package lancepart.admin

import com.fasterxml.jackson.databind.node.ArrayNode
import lancepart.lance.ExpressionEval
import lancepart.manifest.JsonValues
import lancepart.spec.Json
import org.apache.spark.sql.types.DataType

import scala.jdk.CollectionConverters._

object AdminApi {

  /**
   * Evaluates a partition `expression` over rows of source values, as a write would: `sourceTypes`
   * and `resultType` are Spark DDL types, `rowsJson` a JSON array of arrays of values in the
   * [[JsonValues]] form. Returns the results as a JSON array. For checks against DataFusion.
   */
  def evaluateExpression(expression: String, sourceTypesJson: String, resultType: String, rowsJson: String): String = {
    val types =
      Json.parse(sourceTypesJson, "source types").elements().asScala.map(n => DataType.fromDDL(n.asText())).toList
    val result = DataType.fromDDL(resultType)
    val rows = Json.parse(rowsJson, "rows").elements().asScala.map { row =>
      row.elements().asScala.toList.zip(types).map { case (v, dt) => JsonValues.fromJson(v, dt) }.toIndexedSeq
    }.toList
    val out: ArrayNode = Json.mapper.createArrayNode()
    ExpressionEval(expression, types.map(Some(_)), result).evaluate(rows).foreach(v =>
      out.add(JsonValues.toJson(v, result)))
    Json.write(out)
  }
}
