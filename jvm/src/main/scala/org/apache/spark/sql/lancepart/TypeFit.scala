// Spark keeps its comparison of types with compatible nullability package-private; this bridge gives
// a streaming write the check a batch write's analysis makes of its rows against the table's columns.
package org.apache.spark.sql.lancepart

import org.apache.spark.sql.types.DataType

object TypeFit {

  /** True when values of type `from` fit a column of type `to` as they are: the same type, with
   * no NULL (a nullable nested field, array element or map value) where `to` takes none. */
  def apply(from: DataType, to: DataType): Boolean = DataType.equalsIgnoreCompatibleNullability(from, to)
}
