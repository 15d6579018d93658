// How a write treats the rows a table holds.
package lancepart.spark.write

import org.apache.spark.sql.sources.Filter

/** How a write treats what the table holds: append, replace what `filters` select, or replace
 * the partitions written. */
sealed trait WriteMode
case object AppendRows extends WriteMode
case class OverwriteWhere(filters: Seq[Filter]) extends WriteMode
case object OverwritePartitions extends WriteMode
