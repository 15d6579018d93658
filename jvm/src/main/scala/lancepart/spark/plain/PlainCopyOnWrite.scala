// DELETE, UPDATE and MERGE INTO of a plain Lance table as Spark rewrites them (copy-on-write): the
// command's scan reads whole fragments, Spark computes what they hold afterwards, and one Lance
// Update replaces exactly the fragments read.
package lancepart.spark.plain

import lancepart.spark.write.RowRewrite
import org.apache.spark.sql.connector.expressions.{Expressions, NamedReference}
import org.apache.spark.sql.connector.read.{Scan, ScanBuilder}
import org.apache.spark.sql.connector.write.{
  LogicalWriteInfo, RowLevelOperation, RowLevelOperationInfo, Write, WriteBuilder
}
import org.apache.spark.sql.connector.write.RowLevelOperation.Command
import org.apache.spark.sql.util.CaseInsensitiveStringMap

/**
 * One row-level command on `table` (as loaded when Spark planned it). At run time Spark narrows
 * the scan to the fragments whose `_fragment` holds rows the command changes. The commit is a
 * Lance Update at the version read: Lance rebases it over appends committed meanwhile, and fails
 * it when another writer changed or removed a fragment it replaces (snapshot isolation).
 */
class PlainCopyOnWrite(table: PlainTable, info: RowLevelOperationInfo) extends RowLevelOperation {
  private var scan: Option[PlainScan] = None

  override def command(): Command = info.command()

  override def description(): String = s"copy-on-write ${command()} of ${table.name()}"

  override def requiredMetadataAttributes(): Array[NamedReference] = Array(Expressions.column(FragmentColumn.Name))

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = {
    if (table.plainColumns.fields.exists(_.name.equalsIgnoreCase(FragmentColumn.Name))) {
      throw new UnsupportedOperationException(
        s"table ${table.name()}: cannot ${command()} rows: its column '${FragmentColumn.Name}' hides the metadata " +
          "column of that name, which tells the command which fragments to rewrite; rename the column")
    }
    RowRewrite.requireExact(table.name(), command(), table.plainColumns.arrow)
    new PlainScanBuilder(table, options, wholeFragments = true) {
      override def build(): Scan = {
        val built = plainScan()
        scan = Some(built)
        built
      }
    }
  }

  override def newWriteBuilder(writeInfo: LogicalWriteInfo): WriteBuilder = new WriteBuilder {
    override def build(): Write = {
      val read = scan.getOrElse(throw new IllegalStateException(
        s"table ${table.name()}: the write of a ${command()} was planned before its scan"))
      val what = if (command() == Command.MERGE) "MERGE INTO" else command().name()
      new PlainWrite(table.tableName, table.filesUri, table.writtenColumns, table.fileVersion, table.lance)(fragments =>
        PlainWrite.replace(table, what, read.fragmentsRead, fragments))
    }
  }
}
