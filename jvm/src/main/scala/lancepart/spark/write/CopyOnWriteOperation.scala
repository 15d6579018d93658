// DELETE, UPDATE and MERGE INTO as Spark rewrites them (copy-on-write): the operation's scan reads
// whole partition tables, Spark computes what they hold afterwards, and the write replaces them.
package lancepart.spark.write

import lancepart.spark.PartitionedTable
import lancepart.spark.read.{PartitionTableColumn, PartitionedScan, PartitionedScanBuilder}
import org.apache.spark.sql.connector.expressions.{Expressions, NamedReference}
import org.apache.spark.sql.connector.read.{Scan, ScanBuilder}
import org.apache.spark.sql.connector.write.{
  LogicalWriteInfo, RowLevelOperation, RowLevelOperationInfo, Write, WriteBuilder
}
import org.apache.spark.sql.connector.write.RowLevelOperation.Command
import org.apache.spark.sql.util.CaseInsensitiveStringMap

/**
 * One row-level command on `table` (as loaded when Spark planned it). Spark builds the scan first,
 * pushing the command's condition, which prunes partition tables but never filters their rows; at
 * run time Spark narrows the scan to the tables whose `_partition_table` holds rows the command
 * changes. The write replaces exactly the tables the scan read, in one commit against the
 * manifest version it read (see [[ReplaceTables]]).
 */
class CopyOnWriteOperation(table: PartitionedTable, info: RowLevelOperationInfo) extends RowLevelOperation {
  private var scan: Option[PartitionedScan] = None

  override def command(): Command = info.command()

  override def description(): String = s"copy-on-write ${command()} of ${table.name()}"

  /** The partition table of each row; Spark also passes it to the write, which needs no more than the rows. */
  override def requiredMetadataAttributes(): Array[NamedReference] =
    Array(Expressions.column(PartitionTableColumn.Name))

  /** Spark asks only when it rewrites: a DELETE that [[PartitionedTable.deleteWhere]] takes is not. */
  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = {
    if (table.manifest.meta.schema.byName(PartitionTableColumn.Name, caseSensitive = false).isDefined) {
      throw new UnsupportedOperationException(
        s"table ${table.name()}: cannot ${command()} rows: its column '${PartitionTableColumn.Name}' hides the " +
          "metadata column of that name, which tells the command which partition tables to rewrite; rename the column")
    }
    RowRewrite.requireExact(
      table.name(),
      command(),
      table.manifest.meta.schema.fields.map(table.manifest.meta.schema.arrow))
    new PartitionedScanBuilder(table, options, wholeTables = true) {
      override def build(): Scan = {
        val built = partitionedScan()
        scan = Some(built)
        built
      }
    }
  }

  override def newWriteBuilder(writeInfo: LogicalWriteInfo): WriteBuilder = new WriteBuilder {
    override def build(): Write = {
      val read = scan.getOrElse(throw new IllegalStateException(
        s"table ${table.name()}: the write of a ${command()} was planned before its scan"))
      val isolation = IsolationLevel.of(table.name(), command(), table.manifest.meta.tableProperties)
      new PartitionedWrite(table, writeInfo, ReplaceTables(read, command(), isolation))
    }
  }
}
