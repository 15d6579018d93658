// CREATE TABLE AS SELECT, REPLACE TABLE and CREATE OR REPLACE TABLE of a plain Lance table, staged:
// the write's fragments are committed with the new schema in one Lance Overwrite, which creates the
// dataset (or replaces every row and the schema of the one there), so readers see the old table or
// the new one, never an empty one.
package lancepart.spark.plain

import java.util

import lancepart.lance.LanceAccess
import lancepart.spark.TableProperties
import org.apache.spark.sql.connector.catalog.{StagedTable, SupportsWrite, TableCapability, TableCatalog}
import org.apache.spark.sql.connector.write.{LogicalWriteInfo, SupportsTruncate, Write, WriteBuilder}
import org.apache.spark.sql.types.StructType
import org.lance.FragmentMetadata

import scala.jdk.CollectionConverters._

/** `replacing`: the version of the dataset being replaced, None to create one; `config`: the
 * user's table properties; `dropNew` removes what an aborted CREATE left. */
class StagedPlainTable(
    tableName: String,
    uri: String,
    lance: LanceAccess,
    columns: PlainColumns,
    fileVersion: String,
    config: Map[String, String],
    replacing: Option[Long],
    dropNew: () => Unit) extends StagedTable with SupportsWrite {
  private var fragments = Seq.empty[FragmentMetadata]
  private var committed = false

  override def name(): String = tableName
  override def schema(): StructType = columns.sparkSchema

  override def properties(): util.Map[String, String] =
    (config + (TableCatalog.PROP_LOCATION -> uri) + (TableProperties.FileVersionKey -> fileVersion)).asJava

  override def capabilities(): util.Set[TableCapability] =
    util.EnumSet.of(TableCapability.BATCH_WRITE, TableCapability.TRUNCATE)

  /** The rows of `... AS SELECT` (REPLACE asks to truncate first: the commit replaces every row anyway). */
  override def newWriteBuilder(info: LogicalWriteInfo): WriteBuilder = new WriteBuilder with SupportsTruncate {
    override def truncate(): WriteBuilder = this
    override def build(): Write = new PlainWrite(tableName, uri, columns, fileVersion, lance)(fragments = _)
  }

  /** One Lance Overwrite: the new schema, rows and properties (the replaced table's other
   * properties stay, as Iceberg's REPLACE keeps them). */
  override def commitStagedChanges(): Unit = {
    PlainWrite.overwrite(lance, uri, replacing.getOrElse(0L), columns.schema, fragments, config)
    committed = true
  }

  override def abortStagedChanges(): Unit = if (!committed && replacing.isEmpty) dropNew()
}
