// A partition field's values for many rows at once: a transform in the JVM, an expression by
// lance-core's DataFusion (ExpressionEval, one query per call).
package lancepart.lance

import lancepart.spec.{BoundField, BoundSpec}

import scala.util.control.NonFatal

object PartitionValues {

  /** `f`'s value for each row of source values (Spark internal forms, following `source_ids`). A
   * failure is an [[ExpressionException]] naming the row it fails on, when one does. */
  def of(f: BoundField, rows: Seq[IndexedSeq[Any]]): IndexedSeq[Any] = f.field.expression match {
    case Some(text) => evaluator(f, text).evaluate(rows)
    case None => rows.map { r =>
        try f.transformValue(r)
        catch { case NonFatal(e) => throw new ExpressionException(e.toString, Some(r), e) }
      }.toIndexedSeq
  }

  /** Refuses, naming the table, spec and field, an expression field of `spec` that DataFusion does
   * not plan over its sources (unknown function or column, argument or result types). */
  def check(table: String, spec: BoundSpec): Unit = spec.fields.foreach { f =>
    f.field.expression.foreach { text =>
      try evaluator(f, text).check()
      catch {
        case e: ExpressionException => throw new IllegalArgumentException(
            s"table $table: ${spec.spec.key} field '${f.fieldId}': ${e.getMessage}",
            e)
      }
    }
  }

  private def evaluator(f: BoundField, text: String) =
    ExpressionEval(text, f.sources.map(_.map(_.dataType)), f.valueType)
}
