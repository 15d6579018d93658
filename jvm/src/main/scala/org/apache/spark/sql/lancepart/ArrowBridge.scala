// Spark keeps its Spark<->Arrow schema mapping package-private; this bridge exposes it to lancepart.
package org.apache.spark.sql.lancepart

import org.apache.arrow.vector.types.pojo.Field
import org.apache.spark.sql.types.DataType
import org.apache.spark.sql.util.ArrowUtils

object ArrowBridge {

  /** Arrow field Spark itself uses for `dt`; zoned timestamps are microseconds in UTC. */
  def toArrowField(name: String, dt: DataType, nullable: Boolean): Field =
    ArrowUtils.toArrowField(name, dt, nullable, "UTC")
}
