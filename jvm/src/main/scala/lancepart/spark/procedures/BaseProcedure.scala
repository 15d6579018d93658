// What every CALL procedure of the catalog shares: binding, reading its arguments (a table name
// resolved in the catalog, string arrays and maps) and returning its result as one local scan.
package lancepart.spark.procedures

import lancepart.spark.{PartitionedCatalog, PartitionedTable, TableBranches}
import lancepart.spark.read.PartitionedScan
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.parser.CatalystSqlParser
import org.apache.spark.sql.catalyst.util.quoteIfNeeded
import org.apache.spark.sql.connector.catalog.{Identifier, Table}
import org.apache.spark.sql.catalyst.util.ArrayData
import lancepart.spark.line.{parameter, BoundProcedure, ProcedureParameter, UnboundProcedure}
import org.apache.spark.sql.connector.read.{LocalScan, Scan}
import org.apache.spark.sql.types.{StringType, StructType}
import org.apache.spark.unsafe.types.UTF8String

import scala.jdk.CollectionConverters._

/** A procedure whose result rows are of `outputType`. */
abstract class BaseProcedure(catalog: PartitionedCatalog, val outputType: StructType)
    extends UnboundProcedure with BoundProcedure {
  override def bind(inputType: StructType): BoundProcedure = this

  override def isDeterministic: Boolean = false

  /** Argument `ordinal`, a table name, as an identifier in the catalog. */
  protected def tableArgument(input: InternalRow, ordinal: Int): Identifier =
    BaseProcedure.identifier(catalog.name(), input.getUTF8String(ordinal).toString)

  /** Argument `ordinal`, a table name, as the table it names (partitioned or plain). */
  protected def table(input: InternalRow, ordinal: Int): Table = {
    val table = catalog.loadTable(tableArgument(input, ordinal))
    TableBranches.requireMain(table, s"run ${name()}() on")
    table
  }

  /** Argument `ordinal`, a table name, as the partitioned table it names. */
  protected def partitionedTable(input: InternalRow, ordinal: Int): PartitionedTable = {
    val table = catalog.loadPartitioned(tableArgument(input, ordinal))
    if (changes) table.requireWritable(s"run ${name()}() on")
    table
  }

  /** Whether the procedure changes the tables it is given (a table lancepart only reads is refused). */
  protected def changes: Boolean = true

  /** Argument `ordinal`, a table name, qualified with the catalog's name (for `spark.table`). */
  protected def tableName(input: InternalRow, ordinal: Int): String =
    s"${quoteIfNeeded(catalog.name())}.${tableArgument(input, ordinal)}"

  /** The scan of table `name` (qualified, as [[tableName]] gives it) that a read with condition
   * `where` plans, which holds the partition tables it selects; None when Spark proves the
   * condition false. */
  protected def selectedScan(name: String, where: Option[String]): Option[PartitionedScan] = {
    val frame = SparkSession.active.table(name)
    where.fold(frame)(frame.where).queryExecution.optimizedPlan.collectFirst {
      case PartitionedScan.Planned(scan) => scan
    }
  }

  /** Argument `ordinal`, a map of strings to strings. */
  protected def stringMapArgument(input: InternalRow, ordinal: Int): Map[String, String] = {
    val map = input.getMap(ordinal)
    map.keyArray().toSeq[UTF8String](StringType).map(_.toString)
      .zip(map.valueArray().toSeq[UTF8String](StringType).map(v => String.valueOf(v))).toMap
  }

  /** Fails unless arguments `ordinals` have values: a NULL would read as false or 0 (Spark 4 passes
   * NULL to a parameter whose default is not NULL). */
  protected def requireValues(input: InternalRow, ordinals: Int*): Unit =
    ordinals.find(input.isNullAt).foreach { ordinal =>
      throw new IllegalArgumentException(s"${name()}: argument '${parameters()(ordinal).name}' is NULL")
    }

  /** Argument `ordinal`, a string or NULL. */
  protected def optionalString(input: InternalRow, ordinal: Int): Option[String] =
    if (!input.isNullAt(ordinal)) Some(input.getUTF8String(ordinal).toString) else None

  /** `values` as a result column of type ARRAY<STRING>. */
  protected def stringArray(values: Seq[String]): ArrayData =
    ArrayData.toArrayData(values.map(UTF8String.fromString).toArray)

  /** Argument `ordinal`, an array of strings. */
  protected def stringsArgument(input: InternalRow, ordinal: Int): Seq[String] =
    input.getArray(ordinal).toSeq[UTF8String](StringType).map(_.toString)

  /** The failure of an index procedure when no partition table `where` selects in `table` has an
   * index `name`; `outcome` says what was left undone. */
  protected def noSuchIndex(table: String, where: Option[String], name: String, outcome: String): Nothing =
    throw new IllegalArgumentException(
      s"table $table: no partition table ${where.fold("")(w => s"selected by '$w' ")}" +
        s"has an index named '$name'; $outcome")

  /** The procedure's result: `resultRows` of [[outputType]]. */
  protected def result(resultRows: InternalRow*): java.util.Iterator[Scan] = {
    val scan: Scan = new LocalScan {
      override def rows(): Array[InternalRow] = resultRows.toArray
      override def readSchema(): StructType = outputType
    }
    Iterator.single(scan).asJava
  }
}

object BaseProcedure {

  /** The argument of a long operation that names its progress for `CALL system.progress` ([[Progress]]). */
  def progressParameter: ProcedureParameter =
    parameter("progress_id", StringType, "NULL")

  /** `ns.table` or `catalog.ns.table` (backticks quote parts) as an identifier in catalog `catalogName`. */
  def identifier(catalogName: String, name: String): Identifier = {
    val parts = CatalystSqlParser.parseMultipartIdentifier(name)
    val local = if (parts.size > 1 && parts.head == catalogName) parts.tail else parts
    Identifier.of(local.init.toArray, local.last)
  }
}
