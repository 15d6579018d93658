// How a write treats the rows a table holds: append, overwrite, or replace what a row-level command read.
package lancepart.spark.write

import lancepart.spark.read.PartitionedScan
import org.apache.spark.sql.connector.write.RowLevelOperation.Command
import org.apache.spark.sql.sources.Filter

/** How a write treats what the table holds: append, replace what `filters` select, replace
 * the partitions written, or replace the partition tables a row-level command read. */
sealed trait WriteMode
case object AppendRows extends WriteMode
case class OverwriteWhere(filters: Seq[Filter]) extends WriteMode
case object OverwritePartitions extends WriteMode

/** The partition tables a copy-on-write command's `scan` read (at the manifest version of the
 * write's table), known once Spark planned the scan, and what concurrent writes it tolerates. */
case class ReplaceTables(scan: PartitionedScan, command: Command, isolation: IsolationLevel) extends WriteMode
