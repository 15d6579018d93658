// One partitioned namespace as a Spark table: schema, partitioning, and the read/write entry points.
package lancepart.spark

import java.util

import lancepart.lance.{DatasetBranches, LeafSchema}
import lancepart.manifest.{Manifest, ManifestStore, TableFiles}
import lancepart.prune.V2Predicates
import lancepart.spark.read.{PartitionTableColumn, PartitionedScanBuilder, RowAddressColumn, SpjPolicy, LeafSearch}
import lancepart.spark.write.{
  CopyOnWriteOperation, MergeOnReadOperation, PartitionedWriteBuilder, RowLevelMode, RowRemoval
}
import lancepart.spec.{SchemaField, TransactionMode}
import lancepart.txn.{Committer, PartitionDirectory, TableWrite}
import org.apache.spark.sql.connector.catalog.{
  MetadataColumn, SupportsDeleteV2, SupportsMetadataColumns, SupportsRead, SupportsRowLevelOperations, SupportsWrite,
  Table, TableCapability, TableCatalog
}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.connector.expressions.filter.Predicate
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.connector.write.{
  LogicalWriteInfo, RowLevelOperationBuilder, RowLevelOperationInfo, WriteBuilder
}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import scala.jdk.CollectionConverters._

/** `name` is the catalog-qualified name used in messages; `manifest` is the version it loaded;
 * `spj` says when a scan reports its partitioning for storage-partitioned joins (catalog
 * options `spj.*`);
 * `commitAttempts` bounds a write's commit attempts (catalog option `commit.attempts`);
 * `pinned` when time travel chose `manifest`; `named` when the statement named the branch it reads
 * (`<table>.branch_main`, VERSION AS OF 'main'), which write-audit-publish does not redirect. */
class PartitionedTable(
    val tableName: String,
    val store: ManifestStore,
    val files: TableFiles,
    val manifest: Manifest,
    val spj: SpjPolicy,
    commitAttempts: Int,
    pinned: Boolean = false,
    named: Boolean = false)
    extends Table with SupportsRead with SupportsWrite with SupportsDeleteV2 with SupportsRowLevelOperations
    with SupportsMetadataColumns {

  override def name(): String = tableName

  // what Spark's messages show of the table
  override def toString: String = tableName

  /** This table as manifest version `older` recorded it (time travel). */
  def at(older: Manifest): PartitionedTable = withManifest(older, pinned = true)

  /** The branch of `__manifest` this table reads and writes (None: main; see [[TableBranches]]). */
  def branch: Option[String] = store.branch

  /** Branch `name` of this table at its latest version (`<table>.branch_<name>`), or that version
   * read only (`pinned`: VERSION AS OF '<name>'). */
  def onBranch(name: String, pinned: Boolean = false): PartitionedTable = {
    val branchStore = store.onBranch(name)
    new PartitionedTable(
      s"$tableName.branch_$name",
      branchStore,
      files,
      branchStore.load(),
      spj,
      commitAttempts,
      pinned)
  }

  /** This table as `<table>.branch_main` names it: main, whatever `spark.wap.branch` says. */
  def namedMain(name: String): PartitionedTable =
    new PartitionedTable(name, store, files, manifest, spj, commitAttempts, pinned, named = true)

  /** Branch `name` of this table, which must exist, as [[onBranch]] gives it (`main`: this table
   * as `<table>.branch_main` names it). */
  def branchNamed(name: String, pinned: Boolean = false): PartitionedTable =
    if (name == TableTags.Main) namedMain(s"$tableName.branch_$name")
    else {
      DatasetBranches.get(store.lance, store.uri, tableName, name) // a missing one named in the error
      onBranch(name, pinned)
    }

  /** The branch the read or write option `branch` names (Iceberg's), when it is given. */
  private def optionBranch(options: CaseInsensitiveStringMap): Option[PartitionedTable] =
    TableBranches.optionBranch(this, branch, named, pinned, options)(branchNamed(_))

  /** The table a read goes to: under write-audit-publish ([[TableBranches.wap]]) its branch
   * once a write made it, as Iceberg's; else this one. */
  private def forRead: PartitionedTable = wap(create = false).getOrElse(latest)

  /** The table a write goes to: under write-audit-publish its branch, made from the latest version
   * by the first write, as Iceberg's; else this one. */
  private def forWrite: PartitionedTable = wap(create = true).getOrElse(this)

  private def wap(create: Boolean): Option[PartitionedTable] =
    if (pinned || named || branch.isDefined) None
    // its schema, partition specs and transaction mode
    else TableBranches.wap(this, manifest.meta.tableProperties, create)(onBranch(_), _.manifest.meta.properties)

  private def withManifest(m: Manifest, pinned: Boolean): PartitionedTable =
    new PartitionedTable(tableName, store, files, m, spj, commitAttempts, pinned, named)

  override def schema(): StructType = manifest.meta.schema.sparkSchema

  /** The current spec's fields as PARTITIONED BY transforms (see [[DdlPartitioning.transforms]]). */
  override def partitioning(): Array[Transform] = DdlPartitioning.transforms(manifest.meta.currentSpec)

  /** What CREATE TABLE takes back (SHOW CREATE TABLE prints these): the user's properties, the
   * location, the provider (`USING lance`, which Spark's session catalog needs to make a lance table
   * of the statement), the transaction mode, the Lance file format, fixed-size lists and expression fields. The format's own metadata (schema,
   * partition specs, manifest version) is shown by DESCRIBE's partitioning and `Admin.describe`. */
  override def properties(): util.Map[String, String] =
    (manifest.meta.tableProperties +
      (TableCatalog.PROP_LOCATION -> store.tableUri) +
      (TableCatalog.PROP_PROVIDER -> TableProperties.Provider) +
      (TransactionMode.Key -> manifest.meta.mode.name) +
      (TableProperties.FileVersionKey -> manifest.fileVersion) ++
      FixedSizeLists.properties(manifest.meta.schema) ++
      DdlPartitioning.expressionsProperty(
        manifest.meta.currentSpec).map(DdlPartitioning.ExpressionsProperty -> _)).asJava

  override def capabilities(): util.Set[TableCapability] =
    util.EnumSet.of(
      TableCapability.BATCH_READ,
      TableCapability.BATCH_WRITE,
      TableCapability.TRUNCATE,
      TableCapability.OVERWRITE_BY_FILTER,
      TableCapability.OVERWRITE_DYNAMIC,
      TableCapability.STREAMING_WRITE,
      TableCapability.MICRO_BATCH_READ
    )

  override def metadataColumns(): Array[MetadataColumn] = Array(PartitionTableColumn, RowAddressColumn)

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder =
    new PartitionedScanBuilder(optionBranch(options).map(_.latest).getOrElse(forRead), options)

  /** The namespace column `column` (any case); `fail` reports a table without it. */
  def column(column: String, fail: String => Nothing): SchemaField = {
    val schema = manifest.meta.schema
    schema.byName(column, caseSensitive = false).getOrElse(
      fail(s"table $tableName has no column '$column' (columns: ${schema.fields.map(_.name).mkString(", ")})"))
  }

  /** The scan of a search over this table (see [[lancepart.spark.search.SearchTable]]). */
  def searchScanBuilder(query: LeafSearch, options: CaseInsensitiveStringMap): ScanBuilder =
    new PartitionedScanBuilder(forRead, options, search = Some(query))

  /**
   * What a scan reads: the latest manifest version unless time travel pinned one. Spark plans
   * each query on a DataFrame anew with the table object it loaded once, so a DataFrame kept
   * across writes would otherwise list the partitions of when it was created. Refused when the
   * schema, specs or mode changed since (the DataFrame's columns are those of its load).
   */
  private def latest: PartitionedTable =
    if (pinned) this else latestSince("this DataFrame or view", "read the table again (spark.table or a new statement)")

  /** This table at the latest manifest version; refused when its schema, specs or mode changed
   * since `loader` loaded this object (`remedy` says what to do then). */
  def latestSince(loader: String, remedy: String): PartitionedTable = {
    val now = store.load()
    if (now.version == manifest.version) this
    else if (now.meta.properties != manifest.meta.properties) throw new IllegalStateException(
      s"table $tableName: its schema, partition specs or transaction mode changed after $loader loaded it; $remedy")
    else withManifest(now, pinned = false)
  }

  /** Refuses `what` (a write, a stream, a maintenance operation) on a version time travel chose, or
   * on a table whose rows read partition tables at a tag or branch ([[Manifest.requireOwnLayout]]). */
  def requireWritable(what: String): Unit = {
    TimeTravel.requireLatest(tableName, pinned, what)
    manifest.requireOwnLayout(tableName, what)
  }

  override def newWriteBuilder(info: LogicalWriteInfo): WriteBuilder = {
    requireWritable("write")
    new PartitionedWriteBuilder(optionBranch(info.options()).getOrElse(forWrite), info)
  }

  /** Commits writes to this table; new leaves get the namespace's columns. */
  def committer: Committer =
    new Committer(store, files, LeafSchema.arrow(manifest.meta.schema), commitAttempts)

  /** DELETE (with a condition [[deleteWhere]] does not take), UPDATE and MERGE INTO: Spark
   * rewrites the partition tables the condition may reach ([[CopyOnWriteOperation]]), or, when
   * the command's `write.<command>.mode` is merge-on-read, deletes and appends the rows it
   * changes ([[MergeOnReadOperation]]). */
  override def newRowLevelOperationBuilder(info: RowLevelOperationInfo): RowLevelOperationBuilder = () => {
    requireWritable("write")
    val table = optionBranch(info.options()).getOrElse(forWrite).latest
    RowLevelMode.of(tableName, info.command(), table.manifest.meta.tableProperties) match {
      case RowLevelMode.CopyOnWrite => new CopyOnWriteOperation(table, info)
      case RowLevelMode.MergeOnRead => new MergeOnReadOperation(table, info)
    }
  }

  override def canDeleteWhere(predicates: Array[Predicate]): Boolean =
    V2Predicates.toFilters(predicates.toSeq).exists(RowRemoval.supports(this, _))

  /** DELETE FROM: whole partitions as a metadata change when the condition is on identity
   * partition columns only, otherwise row deletions in the partition tables that may match. */
  override def deleteWhere(predicates: Array[Predicate]): Unit = {
    requireWritable("write")
    forWrite.deleteRows(predicates)
  }

  private def deleteRows(predicates: Array[Predicate]): Unit = {
    val removal = RowRemoval.plan(
      this,
      V2Predicates.toFilters(predicates.toSeq).getOrElse(
        throw new UnsupportedOperationException(
          s"table $tableName: cannot delete where ${predicates.mkString(" AND ")}"))
    )
    val tx = TableWrite(
      manifest,
      PartitionDirectory.empty(manifest.meta.currentSpec),
      Seq.empty,
      removal.removed,
      removal.deletes)
    if (!tx.isEmpty) committer.commit(tx)
  }
}
