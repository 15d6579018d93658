// A plain Lance table (one dataset, Directory Namespace spec) as a Spark table: its columns are the
// dataset's, scans and writes go to the dataset, versions are the dataset's own.
package lancepart.spark.plain

import java.util

import lancepart.arrow.UnsupportedArrowType
import lancepart.lance.{DatasetBranches, Lance, LanceAccess, LeafSchema}
import lancepart.maintenance.PlainMaintenance
import lancepart.prune.V2Predicates
import lancepart.spark.{FixedSizeLists, TableBranches, TableProperties, TableTags, TimeTravel}
import lancepart.spark.read.RowAddressColumn
import lancepart.spark.write.{IsolationLevel, RowLevelMode}
import lancepart.txn.{LeafCommits, RowDeletion, TransactionConflict}
import org.apache.spark.sql.connector.catalog.{
  MetadataColumn, SupportsDeleteV2, SupportsMetadataColumns, SupportsRead, SupportsRowLevelOperations, SupportsWrite,
  Table, TableCapability, TableCatalog
}
import org.apache.spark.sql.connector.expressions.filter.Predicate
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.connector.write.{
  LogicalWriteInfo, RowLevelOperationBuilder, RowLevelOperationInfo, WriteBuilder
}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import org.lance.Dataset
import org.lance.ipc.ScanOptions

import scala.jdk.CollectionConverters._
import scala.util.Try

/** The dataset at `uri` as version `version` (of branch `branch`, None: main) has it: `columns`,
 * Lance file format `fileVersion` and Lance config `config` (the user's table properties);
 * `pinned` when time travel chose the version; `named` when the statement named the branch it reads
 * (`<table>.branch_main`, VERSION AS OF 'main'), which write-audit-publish does not redirect.
 * `tableName` is the catalog-qualified name used in messages. */
class PlainTable(
    val tableName: String,
    val uri: String,
    val lance: LanceAccess,
    val lanceVersion: Long,
    val plainColumns: PlainColumns,
    val fileVersion: String,
    val config: Map[String, String],
    pinned: Boolean,
    val branch: Option[String] = None,
    named: Boolean = false)
    extends Table with SupportsRead with SupportsWrite with SupportsDeleteV2 with SupportsRowLevelOperations
    with SupportsMetadataColumns {

  override def name(): String = tableName

  // what Spark's messages show of the table
  override def toString: String = tableName

  /** This table at its Lance version `older` (VERSION AS OF). */
  def at(older: Long): PlainTable = {
    TableBranches.requireMain(this, "read an older version of")
    PlainMaintenance.requireVersion(lance, uri, tableName, older)
    PlainTable.load(tableName, uri, lance, Some(older))
  }

  /** Branch `name` of this table at its latest version (`<table>.branch_<name>`), or that version
   * read only (`pinned`: VERSION AS OF '<name>'). */
  def onBranch(name: String, pinned: Boolean = false): PlainTable =
    PlainTable.load(s"$tableName.branch_$name", uri, lance, None, Some(name), pinned)

  /** This table as `<table>.branch_main` names it (`name`): main, whatever `spark.wap.branch` says. */
  def namedMain(name: String): PlainTable = PlainTable.load(name, uri, lance, None, None, named = true)

  /** Under write-audit-publish, the branch reads (or a `write`) go to ([[TableBranches.wap]]). */
  private def wap(write: Boolean): Option[PlainTable] =
    if (pinned || named || branch.isDefined) None
    else TableBranches.wap(this, config, write)(onBranch(_), _.plainColumns.sparkSchema)

  /** Branch `name` of this table, which must exist, as [[onBranch]] gives it (`main`: this table
   * as `<table>.branch_main` names it). */
  def branchNamed(name: String, pinned: Boolean = false): PlainTable =
    if (name == TableTags.Main) namedMain(s"$tableName.branch_$name")
    else {
      DatasetBranches.get(lance, uri, tableName, name) // a missing one named in the error
      onBranch(name, pinned)
    }

  /** `f` of the dataset at `version` (default: this table's) of this table's branch. */
  def withDataset[A](version: Option[Long] = Some(lanceVersion))(f: Dataset => A): A =
    lance.withDataset(uri, version, branch)(f)

  /** Lance's identifier of this table's branch as it was loaded ([[DatasetBranches.identity]]). */
  private val branchIdentity: Option[String] = branch.flatMap(DatasetBranches.identity(lance, uri, _))

  /** Refuses a commit to this table's branch once the branch was dropped or made anew (REPLACE
   * BRANCH) after the table was loaded: the write read the rows of the branch that was. */
  def requireSameBranch(): Unit = branch.foreach { b =>
    if (DatasetBranches.identity(lance, uri, b) != branchIdentity) throw new TransactionConflict(
      s"table $tableName: branch '$b' was dropped or made anew while this write ran; nothing was committed, run " +
        "it again")
  }

  /** Where the fragments of a write to this table go (a branch keeps its own). */
  def filesUri: String = DatasetBranches.filesUri(uri, branch)

  /** Commits of DELETE and merge-on-read commands on this table's branch (as a weak-mode
   * partition table's: on the latest version). */
  def commits: LeafCommits = new LeafCommits(lance, detached = false, branch = branch)

  /** This table at the last Lance version committed at or before `micros` (TIMESTAMP AS OF). */
  def atTime(micros: Long): PlainTable = at(PlainMaintenance.versionAt(lance, uri, tableName, micros))

  override def schema(): StructType = plainColumns.sparkSchema

  /** The columns as rows written into the dataset carry them: with its Lance field ids
   * ([[LeafSchema.forAppend]]; a dataset that lost a column has gaps in them). */
  lazy val writtenColumns: PlainColumns = withDataset()(ds => PlainColumns(tableName, LeafSchema.forAppend(ds)))

  override def properties(): util.Map[String, String] =
    (config + (TableCatalog.PROP_LOCATION -> uri) + (TableProperties.FileVersionKey -> fileVersion) +
      (TableCatalog.PROP_PROVIDER -> TableProperties.Provider) ++ FixedSizeLists.properties(plainColumns.arrow)).asJava

  override def capabilities(): util.Set[TableCapability] =
    util.EnumSet.of(
      TableCapability.BATCH_READ,
      TableCapability.BATCH_WRITE,
      TableCapability.TRUNCATE,
      TableCapability.OVERWRITE_DYNAMIC)

  /** The version a row-level command on this table reads: every scan of the statement (the
   * command's own, and the one Spark runs to find the fragments holding changed rows, whose
   * fragment ids only mean something at that version) reads it. */
  @volatile private var commandVersion: Option[PlainTable] = None

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder =
    new PlainScanBuilder(
      optionBranch(options).map(_.latest).getOrElse(commandVersion.getOrElse(wap(write = false).getOrElse(latest))),
      options)

  /** The branch the read or write option `branch` names (Iceberg's), when it is given. */
  private def optionBranch(options: CaseInsensitiveStringMap): Option[PlainTable] =
    TableBranches.optionBranch(this, branch, named, pinned, options)(branchNamed(_))

  /** What a scan reads: the latest version unless time travel pinned one (a DataFrame kept across
   * writes reads what they wrote); refused when the columns changed since. */
  private def latest: PlainTable = if (pinned) this
  else {
    val now = PlainTable.load(tableName, uri, lance, None, branch, named = named)
    if (now.lanceVersion == lanceVersion) this
    else if (now.schema() != schema()) throw new IllegalStateException(
      s"table $tableName: its columns changed after this DataFrame or view loaded it; read the table again " +
        "(spark.table or a new statement)")
    else now
  }

  /** INSERT INTO appends; INSERT OVERWRITE (static or dynamic: the table has no partitions) and
   * TRUNCATE replace every row. */
  override def newWriteBuilder(info: LogicalWriteInfo): WriteBuilder = {
    TimeTravel.requireLatest(tableName, pinned, "write")
    new PlainWriteBuilder(optionBranch(info.options()).getOrElse(wap(write = true).getOrElse(this)), info)
  }

  override def metadataColumns(): Array[MetadataColumn] = Array(FragmentColumn, RowAddressColumn)

  /** UPDATE, MERGE INTO and a DELETE whose condition Lance cannot evaluate: the fragments holding
   * changed rows rewritten ([[PlainCopyOnWrite]]), or, when the command's `write.<command>.mode` is
   * merge-on-read, the changed rows deleted and their new versions appended ([[PlainMergeOnRead]]). */
  override def newRowLevelOperationBuilder(info: RowLevelOperationInfo): RowLevelOperationBuilder = () => {
    TimeTravel.requireLatest(tableName, pinned, "write")
    val read = optionBranch(info.options()).map(_.latest)
      .getOrElse(commandVersion.getOrElse(wap(write = true).getOrElse(latest)))
    commandVersion = Some(read)
    RowLevelMode.of(tableName, info.command(), read.config) match {
      case RowLevelMode.CopyOnWrite => new PlainCopyOnWrite(read, info)
      case RowLevelMode.MergeOnRead => new PlainMergeOnRead(read, info)
    }
  }

  override def canDeleteWhere(predicates: Array[Predicate]): Boolean =
    V2Predicates.toFilters(predicates.toSeq).exists(plainColumns.predicate(_).isExpressible)

  /** DELETE FROM: a Lance delete (deletion files) of the matching rows on the latest version. */
  override def deleteWhere(predicates: Array[Predicate]): Unit = {
    TimeTravel.requireLatest(tableName, pinned, "write")
    val filters = V2Predicates.toFilters(predicates.toSeq).getOrElse(
      throw new UnsupportedOperationException(s"table $tableName: cannot delete where ${predicates.mkString(" AND ")}"))
    val target = wap(write = true).getOrElse(this)
    target.requireSameBranch()
    target.commits.update(uri, None, Some(RowDeletion.Matching(target.plainColumns.predicate(filters))), Seq.empty)
  }
}

object PlainTable {

  /** Refuses a serializable isolation level: a plain table's commands run at snapshot isolation
   * (Lance has no conditional commit that would fail on any write since the command read). */
  def checkProperty(table: String, key: String, value: String): Unit =
    if (IsolationLevel.Properties(key) && IsolationLevel.parse(table, key, value) == IsolationLevel.Serializable) {
      throw new IllegalArgumentException(
        s"table $table: $key cannot be serializable on a plain Lance table: DELETE, UPDATE and MERGE INTO commit " +
          "as one Lance transaction, which fails only when a fragment it rewrites or deletes rows from changed " +
          "meanwhile (snapshot isolation)")
    }

  /** Lance's Arrow schema gives a dictionary-encoded column its index type (and lance-core 7.0.0
   * cannot give its own schema of such a table); the batches a scan reads say what it is. */
  private def requireNoDictionary(tableName: String, ds: Dataset): Unit =
    if (Try(ds.getLanceSchema).isFailure) {
      val options = new ScanOptions.Builder().batchSize(1).limit(1).build()
      val fields = Lance.using(ds.newScan(options))(scanner =>
        Lance.using(scanner.scanBatches())(_.getVectorSchemaRoot.getSchema.getFields.asScala.toSeq))
      fields.find(_.getDictionary != null).foreach { f =>
        throw new UnsupportedArrowType(s"table $tableName: column '${f.getName}' is dictionary-encoded, which " +
          "Spark has no type for (its indices would be read, not its values)")
      }
    }

  /** The dataset at `uri` at `version` (None: its latest) of branch `branch` (None: main), read
   * only when `pinned` (default: when a version is given); `named`: see [[PlainTable]]. */
  def load(
      tableName: String,
      uri: String,
      lance: LanceAccess,
      version: Option[Long],
      branch: Option[String] = None,
      pinned: Boolean = false,
      named: Boolean = false): PlainTable =
    lance.withDataset(uri, version, branch) { ds =>
      requireNoDictionary(tableName, ds)
      new PlainTable(
        tableName,
        uri,
        lance,
        ds.version(),
        PlainColumns(tableName, ds.getSchema.getFields.asScala.toSeq),
        ds.getLanceFileFormatVersion,
        ds.getConfig.asScala.toMap,
        pinned = pinned || version.isDefined,
        branch,
        named
      )
    }
}
