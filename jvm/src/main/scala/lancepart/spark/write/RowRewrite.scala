// What every DELETE, UPDATE and MERGE INTO that writes rows back requires of a table's columns.
package lancepart.spark.write

import lancepart.arrow.ArrowTypes
import org.apache.arrow.vector.types.pojo.Field
import org.apache.spark.sql.connector.write.RowLevelOperation.Command

object RowRewrite {

  /** Refuses `command` on `table` when one of its `columns` stores values finer than Spark holds
   * them: rows Spark writes back would lose that precision in columns the command did not set. */
  def requireExact(table: String, command: Command, columns: Seq[Field]): Unit =
    columns.flatMap(ArrowTypes.finerThanSpark(_)).headOption.foreach { case (path, field) =>
      throw new UnsupportedOperationException(
        s"table $table: cannot ${command.name()} rows: column '$path' stores ${ArrowTypes.name(field.getType)} " +
          "values, finer than the microseconds Spark holds, and rows written back would lose that precision; " +
          "a DELETE whose condition Lance evaluates (comparisons of columns with literals) removes rows without " +
          "writing any back")
    }
}
