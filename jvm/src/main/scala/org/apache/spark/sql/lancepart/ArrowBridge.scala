// Spark keeps its Spark<->Arrow schema mapping package-private; this bridge exposes it to lancepart.
package org.apache.spark.sql.lancepart

import org.apache.arrow.vector.types.pojo.{Field, Schema}
import org.apache.spark.sql.types.{DataType, StructType}
import org.apache.spark.sql.util.ArrowUtils

object ArrowBridge {
  /** Arrow schema Spark itself uses for `schema`; zoned timestamps are microseconds in UTC. */
  def toArrowSchema(schema: StructType): Schema =
    ArrowUtils.toArrowSchema(schema, "UTC", true, false)

  def toArrowField(name: String, dt: DataType, nullable: Boolean): Field =
    ArrowUtils.toArrowField(name, dt, nullable, "UTC")

  def fromArrowField(field: Field): DataType = ArrowUtils.fromArrowField(field)
}
