// The Spark catalog: `spark.sql.catalog.<name>=lancepart.spark.PartitionedCatalog` with `.root`
// and `.storage.*` options. Namespaces are directories; tables are partitioned namespaces, and plain
// Lance tables as the Directory Namespace spec lays them out (see [[PlainTables]]).
package lancepart.spark

import java.util

import lancepart.lance.{LanceAccess, LeafField, PartitionValues}
import lancepart.manifest.{ManifestConflict, ManifestRow, ManifestStore, Naming, TableFiles}
import lancepart.spark.functions.PartitionFunctions
import lancepart.spark.read.SpjPolicy
import lancepart.spec.{
  ArrowJsonType, FormatException, NamespaceSchema, SchemaEvolution, SpecEvolution, TableMetadata, TransactionMode
}
import lancepart.storage.Directories
import lancepart.txn.{Committer, LeafRenames}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.{
  NamespaceAlreadyExistsException, NoSuchFunctionException, NoSuchNamespaceException, NoSuchTableException,
  NonEmptyNamespaceException, TableAlreadyExistsException
}
import org.apache.spark.sql.connector.catalog._
import org.apache.spark.sql.connector.catalog.functions.UnboundFunction
import lancepart.spark.line.{ProcedureCatalog, UnboundProcedure}
import lancepart.spark.procedures.Procedures
import lancepart.spark.plain.{PlainAlter, PlainDdl, PlainTable, PlainTables, PlainToPartitioned}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.types.{DataType, StructField, StructType}
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import scala.annotation.tailrec
import scala.collection.mutable
import scala.jdk.CollectionConverters._
import scala.util.Try
import scala.util.control.NonFatal

class PartitionedCatalog extends StagingTableCatalog with StructTypeForms with SupportsNamespaces with FunctionCatalog
    with ProcedureCatalog {
  private var catalogName: String = _
  private var warehouse: Warehouse = _
  private var plainTables: PlainTables = _
  private var plainDdl: PlainDdl = _
  private var spj: SpjPolicy = _
  private var commitAttempts: Int = Committer.DefaultAttempts

  override def name(): String = catalogName

  override def initialize(name: String, options: CaseInsensitiveStringMap): Unit = {
    SparkVersion.require(org.apache.spark.SPARK_VERSION, name)
    catalogName = name
    val root = Option(options.get("root")).filter(_.nonEmpty).getOrElse(
      throw new IllegalArgumentException(s"catalog $name: set spark.sql.catalog.$name.root to a directory or URI"))
    val lance = LanceAccess(options.asCaseSensitiveMap().asScala.collect {
      case (k, v) if k.startsWith(PartitionedCatalog.StoragePrefix) =>
        k.stripPrefix(PartitionedCatalog.StoragePrefix) -> v
    }.toMap)
    def setting[A](key: String, default: A, expected: String)(parse: String => Option[A]): A =
      Option(options.get(key)).fold(default)(v =>
        parse(v.trim).getOrElse(throw new IllegalArgumentException(
          s"catalog $name: option $key must be $expected, not '$v'")))
    spj = if (!setting(PartitionedCatalog.SpjOption, true, "true or false")(s => Try(s.toBoolean).toOption))
      SpjPolicy.Off
    else SpjPolicy(
      setting(PartitionedCatalog.SpjMaxKeysOption, PartitionedCatalog.DefaultSpjMaxKeys, "an integer of at least 0")(
        s => Try(s.toInt).toOption.filter(_ >= 0)),
      setting(
        PartitionedCatalog.SpjMinKeyBytesOption,
        PartitionedCatalog.DefaultSpjMinKeyBytes,
        "a byte count of at least 0")(s => Try(s.toLong).toOption.filter(_ >= 0))
    )
    commitAttempts = setting(
      PartitionedCatalog.CommitAttemptsOption,
      Committer.DefaultAttempts,
      "an integer of at least 1")(s => Try(s.toInt).toOption.filter(_ >= 1))
    val normalized = Warehouse.normalizeRoot(root)
    val directories = Directories.forRoot(normalized, lance, SparkSession.active.sessionState.newHadoopConf())
    warehouse = new Warehouse(normalized, lance, directories)
    plainTables = new PlainTables(warehouse)
    plainDdl = new PlainDdl(warehouse, plainTables, qualified)
  }

  // ---- tables ----

  override def listTables(namespace: Array[String]): Array[Identifier] = {
    requireNamespace(namespace)
    val dir = warehouse.uri(namespace.toSeq)
    val partitioned = warehouse.children(dir).filter(c => warehouse.isTable(s"$dir/$c"))
    (partitioned ++ plainTables.list(namespace.toSeq)).distinct.map(c => Identifier.of(namespace, c)).toArray
  }

  /** The table as manifest version `version` recorded it (`VERSION AS OF`; strong mode only), or
   * a plain table at its Lance version `version`; as Iceberg 1.12 reads it, a number is a version
   * (`<table>.tag_<tag>` and `<table>.branch_<branch>` name a ref named like one), anything else a
   * branch (its latest version, read only) or a tag; `main` is the latest version. */
  override def loadTable(ident: Identifier, version: String): Table = {
    requireNoVersionName(ident, s"VERSION AS OF $version")
    val current = loadTable(ident)
    val clause = s"VERSION AS OF $version"
    if (version == TableTags.Main) current match {
      // main, whatever spark.wap.branch says
      case t: PartitionedTable => t.namedMain(t.name())
      case t: PlainTable => t.namedMain(t.name())
      case other => other
    }
    else if (Try(version.toLong).isSuccess) at(ident, current, version.toLong, clause)
    else if (TableBranches.exists(current, version)) TableBranches.load(current, version, pinned = true)
    else if (TableTags.exists(current, version)) atTag(ident, current, version)
    else {
      def names(all: Seq[String]) = if (all.isEmpty) "none" else all.mkString(", ")
      throw new IllegalArgumentException(
        s"table ${qualified(ident)} has no tag or branch '$version' (tags: ${names(TableTags.list(current).map(_.name))}; " +
          s"branches: ${names(TableBranches.list(current).map(_.name))}; names are case-sensitive)")
    }
  }

  /** Table `ident` (`current`, loaded) at the version its tag `tag` names (`<table>.tag_<tag>`). */
  private def atTag(ident: Identifier, current: Table, tag: String): Table =
    at(ident, current, TableTags.version(current, tag), s"VERSION AS OF '$tag'")

  /** The table as it was at `timestamp` (microseconds; `TIMESTAMP AS OF`; strong mode only). */
  override def loadTable(ident: Identifier, timestamp: Long): Table = {
    requireNoVersionName(ident, "TIMESTAMP AS OF")
    loadTable(ident) match {
      case plain: PlainTable => plain.atTime(timestamp)
      case loaded => at(
          ident,
          loaded,
          partitioned(ident, loaded, "TIMESTAMP AS OF").store.versionAt(timestamp),
          "TIMESTAMP AS OF")
    }
  }

  /** Table `ident` (`current`, loaded) at its version `version`: a plain table's Lance version, or
   * a manifest version committed in strong mode (`clause` names the time travel in errors). */
  private def at(ident: Identifier, current: Table, version: Long, clause: String): Table = current match {
    case plain: PlainTable => plain.at(version)
    case _ =>
      val table = partitioned(ident, current, clause)
      def weak(what: String) = new UnsupportedOperationException(s"table ${qualified(ident)}: $clause needs " +
        s"${TransactionMode.Key}=strong; in weak mode partition tables are read at their latest versions, so $what " +
        "does not pin what was visible then")
      // a version of a table replaced as weak may be read when it was committed in strong mode
      val older =
        try table.store.loadAt(version)
        catch {
          case e: FormatException if table.manifest.meta.mode != TransactionMode.Strong =>
            throw weak("an older manifest version").initCause(e)
        }
      // a table made strong: a version from before reads partition tables at their latest too
      if (older.meta.mode != TransactionMode.Strong)
        throw weak(s"manifest version $version, committed while the table was weak,")
      table.at(older)
  }

  /** Refuses `clause` on a version named as Iceberg names them (`<table>.snapshot_id_<id>`), as Iceberg does. */
  private def requireNoVersionName(ident: Identifier, clause: String): Unit = ident.name() match {
    case PartitionedCatalog.SnapshotSuffix(_) | PartitionedCatalog.TimestampSuffix(_) | PartitionedCatalog.TagSuffix(
          _) |
        PartitionedCatalog.BranchSuffix(_) if !holdsTable(ident) =>
      throw new IllegalArgumentException(
        s"table ${qualified(ident)}: $clause cannot read a version of a table named as a version already")
    case _ =>
  }

  /** `table` (`ident`, loaded), which `clause` reads an older version of: a partitioned table. */
  private def partitioned(ident: Identifier, table: Table, clause: String): PartitionedTable = table match {
    case t: PartitionedTable => t
    case _ => throw new UnsupportedOperationException(s"table ${qualified(ident)}: $clause is not supported")
  }

  /** A partitioned table, a plain Lance table, a metadata table of one (`<table>.partitions`,
   * ...; see [[MetadataTable]]), or a version of one named as Iceberg names them:
   * `<table>.snapshot_id_<version>` (VERSION AS OF) and `<table>.at_timestamp_<epoch millis>`
   * (TIMESTAMP AS OF). */
  override def loadTable(ident: Identifier): Table = {
    val store = warehouse.store(ident, qualified(ident))
    // As Warehouse.isTable: a __manifest Lance cannot open is no table; a partitioned one whose
    // metadata breaks the spec fails with the FormatException that says how.
    val manifest = if (!warehouse.exists(store.uri)) None
    else {
      def partitioned() =
        try store.loadIfPartitioned()
        catch { case e: FormatException => throw e; case NonFatal(_) => None }
      // a plain table's conversion that ended between moving its dataset and its metadata commit is finished
      partitioned().orElse(if (PlainToPartitioned.finish(warehouse, store)) partitioned() else None)
    }
    manifest match {
      case Some(m) => new PartitionedTable(
          qualified(ident),
          store,
          warehouse.files(store.tableUri),
          m,
          spj,
          commitAttempts)
      case None => plainTables.find(ident) match {
          case Some((uri, _)) => PlainTable.load(qualified(ident), uri, warehouse.lance, None)
          case None if ident.namespace().nonEmpty && MetadataTable.exists(ident.name()) =>
            MetadataTable.of(ident.name(), loadTable(parent(ident)))
          case None if ident.namespace().nonEmpty =>
            ident.name() match {
              // a version number, never a tag of that name (as Iceberg's snapshot_id_)
              case PartitionedCatalog.SnapshotSuffix(version) =>
                at(parent(ident), loadTable(parent(ident)), version.toLong, s"VERSION AS OF $version")
              case PartitionedCatalog.TimestampSuffix(millis) => loadTable(parent(ident), millis.toLong * 1000)
              case PartitionedCatalog.TagSuffix(tag) =>
                requireNoVersionName(parent(ident), s"tag_$tag")
                atTag(parent(ident), loadTable(parent(ident)), tag)
              case PartitionedCatalog.BranchSuffix(branch) => TableBranches.load(loadTable(parent(ident)), branch)
              case _ => throw new NoSuchTableException(ident)
            }
          case None => throw new NoSuchTableException(ident)
        }
    }
  }

  /** The table that `ident` names a metadata table or a version of (`ns.t` for `ns.t.partitions`). */
  private def parent(ident: Identifier): Identifier = Identifier.of(ident.namespace().init, ident.namespace().last)

  /** Table `ident` for a change of the table itself (DDL, REPLACE, a partition spec): a branch
   * (`<table>.branch_<b>`), which takes reads and writes only, is refused. */
  private def loadForChange(ident: Identifier): Table = {
    val table = loadTable(ident)
    TableBranches.requireMain(table, "run DDL or procedures on")
    table
  }

  /** Partitioned table `ident` (not a metadata table such as `<table>.partitions`); a plain Lance
   * table is refused, saying so. */
  def loadPartitioned(ident: Identifier): PartitionedTable = loadTable(ident) match {
    case t: PartitionedTable =>
      TableBranches.requireMain(t, "run DDL or procedures on")
      t
    case _: PlainTable => throw plainRefused(ident)
    case _ => throw new NoSuchTableException(ident)
  }

  private def plainRefused(ident: Identifier) = new UnsupportedOperationException(
    s"table ${qualified(ident)} is a plain Lance table (created without PARTITIONED BY); this needs a partitioned table")

  override def createTable(
      ident: Identifier,
      columns: Array[Column],
      partitions: Array[Transform],
      properties: util.Map[String, String]): Table = {
    requireCreatable(ident)
    val fileVersion = newFileVersion(ident, columns, properties)
    if (plain(partitions, properties)) plainDdl.create(ident, columns, properties, fileVersion)
    else {
      val meta =
        tableMetadata(ident, columns, partitions, properties, specId = 1, TransactionMode.Weak, Map.empty, fileVersion)
      warehouse.store(ident, qualified(ident)).create(meta, Some(fileVersion))
    }
    loadTable(ident)
  }

  /** CREATE without PARTITIONED BY (and without expression fields) makes a plain Lance table. */
  private def plain(partitions: Array[Transform], properties: util.Map[String, String]): Boolean =
    partitions.isEmpty && !properties.containsKey(DdlPartitioning.ExpressionsProperty)

  /** The Lance file format of a new table's datasets ([[TableProperties.fileVersion]]). */
  private def newFileVersion(ident: Identifier, columns: Array[Column], properties: util.Map[String, String]): String =
    TableProperties.fileVersion(qualified(ident), properties.asScala.toMap, columns.map(_.dataType()).toSeq)

  /** True when a partitioned or a plain table is stored under the name `ident` itself (not a
   * metadata table or a version it names). */
  private def holdsTable(ident: Identifier): Boolean =
    warehouse.isTable(warehouse.tableUri(ident)) || plainTables.find(ident).isDefined

  private def requireCreatable(ident: Identifier): Unit = {
    val uri = warehouse.tableUri(ident)
    if (ident.namespace().nonEmpty) requireNamespace(ident.namespace())
    if (holdsTable(ident)) throw new TableAlreadyExistsException(ident)
    if (warehouse.exists(s"$uri/${ManifestStore.DirName}")) {
      throw new IllegalStateException(
        s"table ${qualified(ident)}: $uri already holds a __manifest that is not a partitioned namespace")
    }
  }

  /** The metadata of a new table from CREATE or REPLACE: spec version `specId`, `mode` unless
   * the properties set one, field ids that clash with `columnTypes` (see [[PartitionedCatalog.newTable]]), datasets
   * in Lance file format `fileVersion`. */
  private def tableMetadata(
      ident: Identifier,
      columns: Array[Column],
      partitions: Array[Transform],
      properties: util.Map[String, String],
      specId: Int,
      mode: TransactionMode,
      columnTypes: Map[String, DataType],
      fileVersion: String): TableMetadata = {
    columns.foreach { c =>
      NamespaceSchema.checkColumnName(qualified(ident), c.name())
      ArrowJsonType.requireWritable(qualified(ident), c.name(), c.dataType(), fileVersion)
    }
    val struct = FixedSizeLists.declare(
      qualified(ident),
      StructType(columns.map { c =>
        val field = FixedSizeLists.column(StructField(c.name(), c.dataType(), c.nullable()), c.metadataInJSON())
        Option(c.comment()).foldLeft(field)(_.withComment(_))
      }),
      properties.asScala.toMap
    )
    val user = TableProperties.atCreate(qualified(ident), warehouse.tableUri(ident), properties.asScala.toMap)
    PartitionedCatalog.newTable(
      qualified(ident),
      NamespaceSchema.fromSpark(struct, qualified(ident)),
      partitions,
      properties,
      specId,
      mode,
      user,
      columnTypes)
  }

  // ---- staged CREATE TABLE AS SELECT, REPLACE TABLE, CREATE OR REPLACE TABLE ----

  /** CTAS: `__manifest` is created without metadata (no table yet); the write commits its rows,
   * the metadata commit then makes the table appear with them. */
  override def stageCreate(
      ident: Identifier,
      columns: Array[Column],
      partitions: Array[Transform],
      properties: util.Map[String, String]): StagedTable = {
    requireCreatable(ident)
    val fileVersion = newFileVersion(ident, columns, properties)
    if (plain(partitions, properties)) plainDdl.stageCreate(ident, columns, properties, fileVersion)
    else {
      val meta =
        tableMetadata(ident, columns, partitions, properties, specId = 1, TransactionMode.Weak, Map.empty, fileVersion)
      val store = warehouse.store(ident, qualified(ident))
      store.createEmpty(meta.allFields, Some(fileVersion))
      staged(store, meta, replaced = None)
    }
  }

  /**
   * A plain table is replaced by a plain one, or by a partitioned one (with PARTITIONED BY): that
   * is staged in the table's directory as a CTAS is, and its metadata commit makes it the table
   * (a partitioned table is found before a plain one of its name); the plain dataset is then
   * deleted. A partitioned table is replaced by a partitioned one, whose spec has no fields when
   * the statement has no PARTITIONED BY (as Iceberg's unpartitioned spec).
   */
  override def stageReplace(
      ident: Identifier,
      columns: Array[Column],
      partitions: Array[Transform],
      properties: util.Map[String, String]): StagedTable = loadForChange(ident) match {
    case current: PlainTable if plain(partitions, properties) =>
      plainDdl.stageReplace(ident, current, columns, properties)
    case current: PlainTable =>
      requireFreeTableDirectory(ident, current, "replace the plain Lance table by a partitioned one")
      // its tags and branches would go with the dataset, which the partitioned table's publication deletes
      requireNoRefs(ident, current, "replaced by a partitioned table")
      // properties the statement does not restate stay, as Iceberg's REPLACE keeps them
      val kept = (current.config ++ properties.asScala).asJava
      val fileVersion = newFileVersion(ident, columns, kept)
      val meta =
        tableMetadata(ident, columns, partitions, kept, specId = 1, TransactionMode.Weak, Map.empty, fileVersion)
      val store = warehouse.store(ident, qualified(ident))
      store.createEmpty(meta.allFields, Some(fileVersion))
      staged(store, meta, replaced = None, published = () => plainTables.drop(ident))
    case _ => replacing(loadPartitioned(ident), ident, columns, partitions, properties, commitAttempts)
  }

  /** Refuses plain table `plain` (`ident`) becoming a partitioned table (`becoming`) while it has
   * tags or branches: they name versions of the plain table, which the partitioned table does not have. */
  private def requireNoRefs(ident: Identifier, plain: PlainTable, becoming: String): Unit = {
    val refs =
      TableTags.list(plain).map(t => s"tag ${t.name}") ++ TableBranches.list(plain).map(b => s"branch ${b.name}")
    if (refs.nonEmpty) throw new UnsupportedOperationException(
      s"table ${qualified(ident)}: a plain Lance table with tags or branches (${refs.mkString(", ")}) cannot be " +
        s"$becoming: they name versions of the plain table, which the partitioned table does not have; drop them " +
        "first (ALTER TABLE ... DROP TAG, DROP BRANCH)")
  }

  /** Refuses to `what` for plain table `plain` when the directory its partitioned table would have
   * exists (a namespace); a conversion of it that did not finish there (the plain table is whole:
   * it did not move) is taken back first. */
  private def requireFreeTableDirectory(ident: Identifier, plain: PlainTable, what: String): Unit = {
    val tableUri = warehouse.tableUri(ident)
    if (PlainToPartitioned.pending(warehouse.store(ident, qualified(ident)), plain.uri)) warehouse.delete(tableUri)
    if (warehouse.exists(tableUri)) throw new IllegalStateException(
      s"table ${qualified(ident)}: cannot $what: $tableUri, where the partitioned table would be, already exists")
  }

  override def stageCreateOrReplace(
      ident: Identifier,
      columns: Array[Column],
      partitions: Array[Transform],
      properties: util.Map[String, String]): StagedTable =
    if (tableExists(ident)) stageReplace(ident, columns, partitions, properties)
    else stageCreate(ident, columns, partitions, properties)

  /**
   * Stages the replacement of `current`: its spec gets the version after every one the metadata
   * or a `v<N>` row names, reserved by that row in a commit that also rewrites the current spec's
   * row, so two statements never stage under one version. The transaction mode stays unless the
   * statement sets one. Nothing readers see changes until the staged table commits.
   */
  @tailrec private def replacing(
      current: PartitionedTable,
      ident: Identifier,
      columns: Array[Column],
      partitions: Array[Transform],
      properties: util.Map[String, String],
      attempts: Int): StagedTable = {
    val store = current.store
    properties.asScala.get(TableProperties.FileVersionKey).filter(_ != current.manifest.fileVersion).foreach { v =>
      throw new IllegalArgumentException(
        s"table ${store.table}: REPLACE cannot change ${TableProperties.FileVersionKey} " +
          s"from ${current.manifest.fileVersion} to $v: the table's datasets keep their Lance file format")
    }
    val stored = store.properties()
    val old = TableMetadata.fromProperties(stored, store.table)
    val specId = (old.specs.map(_.id) ++ store.specVersionsInRows()).max + 1
    val meta = tableMetadata(
      ident,
      columns,
      partitions,
      (old.tableProperties ++ properties.asScala).asJava, // unrestated properties stay, as Iceberg's REPLACE keeps them
      specId,
      old.mode,
      store.partitionColumnTypes(),
      current.manifest.fileVersion
    )
    store.addColumns(meta.allFields.map(_.arrowField))
    val version = store.latestVersion()
    // a spec version another statement reserved since specId was chosen is taken: choose again
    val reserved = store.properties() == stored && store.specVersionsInRows().forall(_ < specId) && (try {
      store.commit(
        version,
        Seq(old.currentSpec.namespace, meta.currentSpec.namespace)
          .map(ManifestRow(_, Naming.NamespaceType, None, None, Map.empty)),
        Seq.empty)
      true
    } catch { case _: ManifestConflict => false })
    if (reserved) staged(store, meta, Some((stored, old.specs.map(_.id))))
    else if (attempts > 1) replacing(current, ident, columns, partitions, properties, attempts - 1)
    else throw new IllegalStateException(
      s"table ${store.table}: other writers kept changing it while REPLACE was being staged; nothing was changed, retry")
  }

  private def staged(
      store: ManifestStore,
      meta: TableMetadata,
      replaced: Option[(Map[String, String], Seq[Int])],
      published: () => Unit = () => ()): StagedTable = {
    val view = StagedPartitionedTable.view(store, meta)
    val table = new PartitionedTable(
      store.table,
      view,
      warehouse.files(store.tableUri),
      view.load(),
      spj,
      commitAttempts)
    new StagedPartitionedTable(table, replaced, () => warehouse.delete(store.tableUri), published)
  }

  /**
   * Adds the next partition spec version to `ident` (spec: Partition Evolution) with the fields
   * of `items`. New writes use it; old partitions stay as they are.
   */
  def evolvePartitionSpec(ident: Identifier, items: Seq[DdlPartitioning.Item]): PartitionedTable =
    evolvePartitionSpecWith(ident, (table, current) => DdlPartitioning.fields(table, current.schema, items))

  /**
   * Adds the next partition spec version to `ident` with the fields `request` gives for the
   * table's qualified name and its current metadata (ALTER TABLE ... PARTITION FIELD: the current
   * spec with one field added, dropped or replaced). The metadata is the one the evolution
   * commits on top of, so a concurrent evolution fails it rather than being undone.
   */
  def evolvePartitionSpecWith(
      ident: Identifier,
      request: (String, TableMetadata) => Seq[SpecEvolution.Requested]): PartitionedTable = {
    loadForChange(ident) match {
      case plain: PlainTable => partitionPlain(ident, plain, request)
      case _ =>
        val table = loadPartitioned(ident)
        val current = table.manifest.meta
        table.store.evolve(current, nextSpec(ident, current, request))
    }
    loadPartitioned(ident)
  }

  private def nextSpec(
      ident: Identifier,
      current: TableMetadata,
      request: (String, TableMetadata) => Seq[SpecEvolution.Requested]): TableMetadata =
    PartitionedCatalog.checked(current.withSpec(SpecEvolution.next(current, request(qualified(ident), current))))

  /**
   * A partition spec for plain table `plain`: it becomes a partitioned table whose spec v1 has no
   * fields and holds the plain dataset, moved whole (no data file is rewritten) into the table's
   * directory, and whose spec v2 has the fields of `request` ([[PlainToPartitioned]]). Its columns
   * and table properties are the plain table's; it is in weak transaction mode, as a new table.
   */
  private def partitionPlain(
      ident: Identifier,
      plain: PlainTable,
      request: (String, TableMetadata) => Seq[SpecEvolution.Requested]): Unit = {
    plainTables.find(ident).flatMap(_._2).foreach { entry =>
      throw new UnsupportedOperationException(
        s"table ${qualified(ident)} is a plain Lance table that the directory namespace __manifest in " +
          s"${entry.root} lists; only a <name>.lance table can be made partitioned")
    }
    requireFreeTableDirectory(ident, plain, "make the plain Lance table partitioned")
    // its tags would go with the dataset into a partition table
    requireNoRefs(ident, plain, "made partitioned")
    val created = tableMetadata(
      ident,
      plain.columns(),
      Array.empty,
      plain.config.asJava,
      specId = 1,
      TransactionMode.Weak,
      Map.empty,
      plain.fileVersion)
    // the dataset's field ids are the namespace's
    val schema = plain.lance.withDataset(plain.uri) { ds =>
      NamespaceSchema.withIds(
        created.schema,
        LeafField.idsByPath(LeafField.all(ds.getLanceSchema.fields())),
        LeafField.idsInUse(ds).max,
        qualified(ident))
    }
    val unpartitioned =
      TableMetadata.fromProperties(created.properties + (TableMetadata.SchemaKey -> schema.json), qualified(ident))
    val meta = nextSpec(ident, unpartitioned, request)
    PlainToPartitioned.convert(warehouse, plain, warehouse.store(ident, qualified(ident)), meta)
  }

  /** ADD COLUMN, RENAME COLUMN, DROP COLUMN, widening ALTER COLUMN TYPE, COMMENT and FIRST/AFTER on
   * top-level columns: the namespace schema changes, partition tables are not rewritten (a rename renames their
   * columns too, and an added column moves aside a leaf column of a dropped one of its name, a
   * metadata-only commit on each: [[LeafRenames]]). */
  override def alterTable(ident: Identifier, changes: TableChange*): Table = loadForChange(ident) match {
    case plain: PlainTable => PlainAlter(plain, changes.toSeq); loadTable(ident)
    case _ => alterPartitioned(ident, changes)
  }

  private def alterPartitioned(ident: Identifier, changes: Seq[TableChange]): Table = {
    val table = loadPartitioned(ident)
    val current = table.manifest.meta
    val (properties, changed) =
      changes.partition(c => c.isInstanceOf[TableChange.SetProperty] || c.isInstanceOf[TableChange.RemoveProperty])
    // DROP NOT NULL on a nullable column (SET NOT NULL on a NOT NULL one) changes nothing, as with Iceberg
    val columns = changed.filterNot {
      case c: TableChange.UpdateColumnNullability =>
        current.schema.byName(c.fieldNames().mkString(".")).exists(_.nullable == c.nullable())
      case _ => false
    }
    properties.foreach {
      case c: TableChange.SetProperty => setProperty(table, c.property(), c.value())
      case c: TableChange.RemoveProperty => removeProperty(table, c.property())
    }
    if (columns.isEmpty) return loadTable(ident)
    table.requireWritable("change the columns of")
    def top(names: Array[String], change: TableChange): String = names match {
      case Array(n) => n
      case _ => throw new UnsupportedOperationException(
          s"table ${qualified(ident)}: only top-level columns can be changed, not '${names.mkString(".")}'")
    }
    val evolution = columns.map {
      case c: TableChange.AddColumn =>
        if (!c.isNullable) throw new IllegalArgumentException(
          s"table ${qualified(ident)}: new column '${c.fieldNames().mkString(".")}' must be nullable (existing rows read it as NULL)")
        if (c.position() != null || c.defaultValue() != null) throw new UnsupportedOperationException(
          s"table ${qualified(ident)}: ADD COLUMN with a position or a default is not supported")
        ArrowJsonType.requireWritable(
          qualified(ident),
          c.fieldNames().mkString("."),
          c.dataType(),
          table.manifest.fileVersion)
        SchemaEvolution.AddColumn(top(c.fieldNames(), c), c.dataType(), Option(c.comment()))
      case c: TableChange.RenameColumn => SchemaEvolution.RenameColumn(top(c.fieldNames(), c), c.newName())
      case c: TableChange.DeleteColumn => SchemaEvolution.DropColumn(top(c.fieldNames(), c))
      case c: TableChange.UpdateColumnType => SchemaEvolution.WidenColumn(top(c.fieldNames(), c), c.newDataType())
      case c: TableChange.UpdateColumnComment =>
        SchemaEvolution.CommentColumn(top(c.fieldNames(), c), Option(c.newComment()).filter(_.nonEmpty))
      case c: TableChange.UpdateColumnPosition => c.position() match {
          case _: TableChange.First => SchemaEvolution.MoveColumn(top(c.fieldNames(), c), None)
          case after: TableChange.After => SchemaEvolution.MoveColumn(top(c.fieldNames(), c), Some(after.column()))
        }
      case c: TableChange.UpdateColumnNullability => throw new UnsupportedOperationException(
          s"table ${qualified(ident)}: column '${top(c.fieldNames(), c)}' is NOT NULL, and making it nullable is not supported")
      case other => throw new UnsupportedOperationException(
          s"table ${qualified(ident)}: ALTER TABLE change ${other.getClass.getSimpleName} is not supported")
    }
    val schema = SchemaEvolution(current, evolution)
    val next =
      TableMetadata.fromProperties(current.properties + (TableMetadata.SchemaKey -> schema.json), qualified(ident))
    // the current spec's expressions over a widened or renamed source must still plan (writes use them)
    val before = current.currentSpec.fields.map(f => f.fieldId -> f.sources).toMap
    val spec = next.currentSpec
    PartitionValues.check(
      qualified(ident),
      spec.copy(fields = spec.fields.filterNot(f => before.get(f.fieldId).contains(f.sources))))
    if (evolution.exists(c =>
        c.isInstanceOf[SchemaEvolution.RenameColumn] || c.isInstanceOf[SchemaEvolution.AddColumn])) {
      new LeafRenames(table.store, table.files, commitAttempts)(current, next)
    } else table.store.updateSchema(current, next)
    loadTable(ident)
  }

  /** The `__manifest` store of table `ident`, without loading the table: a repair
   * (`lancepart.maintenance.ManifestRepair`) fixes one that does not load. */
  def manifestStore(ident: Identifier): ManifestStore = {
    if (!warehouse.isTable(warehouse.tableUri(ident))) {
      if (plainTables.find(ident).isDefined) throw plainRefused(ident)
      throw new NoSuchTableException(ident)
    }
    warehouse.store(ident, qualified(ident))
  }

  /** The files of table `ident`'s directory. */
  def tableFiles(ident: Identifier): TableFiles = warehouse.files(warehouse.tableUri(ident))

  /** `ALTER TABLE ... SET TBLPROPERTIES` and `COMMENT ON TABLE`: user properties are kept in the
   * table metadata; LOCATION can only be the table's own. */
  private def setProperty(table: PartitionedTable, key: String, value: String): Unit =
    if (key == TransactionMode.Key) setMode(table, value)
    else if (key == TableCatalog.PROP_LOCATION) TableProperties.checkLocation(table.name(), table.store.tableUri, value)
    else {
      TableProperties.checkSettable(table.name(), key)
      TableProperties.checkValue(table.name(), key, value)
      table.store.updateMetadata(Map(TableMetadata.PropertyPrefix + key -> value))
    }

  /** `ALTER TABLE ... UNSET TBLPROPERTIES`: removes a user property. */
  private def removeProperty(table: PartitionedTable, key: String): Unit = {
    if (key == TransactionMode.Key) throw new UnsupportedOperationException(
      s"table ${table.name()}: ${TransactionMode.Key} cannot be unset; it is 'weak' or 'strong'")
    TableProperties.checkSettable(table.name(), key)
    table.store.removeMetadata(TableMetadata.PropertyPrefix + key)
  }

  /** `transaction.mode` goes only from weak to strong (data committed in strong mode is in
   * detached versions that weak readers would not see). */
  private def setMode(table: PartitionedTable, value: String): Unit = {
    val mode = TransactionMode.parse(value, table.name())
    if (table.manifest.meta.mode == TransactionMode.Strong && mode == TransactionMode.Weak) {
      throw new UnsupportedOperationException(s"table ${table.name()}: ${TransactionMode.Key} cannot go from strong " +
        "back to weak: strong-mode writes are detached leaf versions that weak-mode readers (who read each leaf's " +
        "latest main version) would not see")
    }
    table.store.updateMetadata(Map(TransactionMode.Key -> mode.name))
  }

  /** Drops the partitioned table `ident` and a plain table of its name it hides (left by a REPLACE
   * or a conversion that could not delete it), or else the plain table `ident`; a name that reads
   * as a table but holds none (a branch, a version or a metadata table of one:
   * `<table>.branch_<b>`) is refused rather than reported dropped. */
  override def dropTable(ident: Identifier): Boolean = {
    val uri = warehouse.tableUri(ident)
    if (warehouse.isTable(uri)) { warehouse.delete(uri); plainTables.drop(ident); true }
    else plainTables.drop(ident) || {
      if (ident.namespace().nonEmpty && Try(loadTable(ident)).isSuccess) throw new UnsupportedOperationException(
        s"${qualified(ident)} is a branch, a version or a metadata table of table ${qualified(parent(ident))}, not a " +
          "table: DROP TABLE drops tables (ALTER TABLE ... DROP BRANCH drops a branch)")
      false
    }
  }

  override def purgeTable(ident: Identifier): Boolean = dropTable(ident)

  override def renameTable(oldIdent: Identifier, newIdent: Identifier): Unit =
    throw new UnsupportedOperationException(s"RENAME TABLE is not supported for ${qualified(oldIdent)}")

  // ---- namespaces ----

  override def listNamespaces(): Array[Array[String]] = listNamespaces(Array.empty[String])

  override def listNamespaces(namespace: Array[String]): Array[Array[String]] = {
    if (namespace.nonEmpty) requireNamespace(namespace)
    val dir = warehouse.uri(namespace.toSeq)
    val directories = warehouse.children(dir).filterNot(c => isTableDirectory(s"$dir/$c"))
    (directories ++ plainTables.namespaces(namespace.toSeq)).distinct.map(c => namespace :+ c).toArray
  }

  /** A namespace is a directory holding no table, or one a V2 `__manifest` declares. */
  override def namespaceExists(namespace: Array[String]): Boolean = {
    val uri = warehouse.uri(namespace.toSeq)
    namespace.isEmpty || (warehouse.exists(uri) && !isTableDirectory(uri)) ||
    plainTables.declaresNamespace(namespace.toSeq)
  }

  /** A partitioned table's directory, or a Lance dataset's (plain tables, V2 table directories). */
  private def isTableDirectory(uri: String): Boolean = warehouse.isTable(uri) || plainTables.isDataset(uri)

  override def loadNamespaceMetadata(namespace: Array[String]): util.Map[String, String] = {
    requireNamespace(namespace)
    Map(SupportsNamespaces.PROP_LOCATION -> warehouse.uri(namespace.toSeq)).asJava
  }

  /** A namespace is a directory: it keeps no properties (Spark's owner is not stored) and a
   * LOCATION can only be its own directory. */
  override def createNamespace(namespace: Array[String], metadata: util.Map[String, String]): Unit = {
    val uri = warehouse.uri(namespace.toSeq)
    val kept = metadata.asScala.toMap - SupportsNamespaces.PROP_OWNER
    kept.get(SupportsNamespaces.PROP_LOCATION).filter(_.stripPrefix("file:").stripSuffix("/") != uri).foreach { l =>
      throw new UnsupportedOperationException(
        s"namespace ${namespace.mkString(".")}: LOCATION '$l' is not supported: " +
          s"namespaces of catalog $catalogName are the directories <root>/<namespace>, here $uri")
    }
    val properties = kept - SupportsNamespaces.PROP_LOCATION
    if (properties.nonEmpty) throw new UnsupportedOperationException(
      s"namespace ${namespace.mkString(".")}: ${properties.keys.toSeq.sorted.mkString(", ")} cannot be kept: namespaces of " +
        s"catalog $catalogName are plain directories without a comment or properties")
    if (namespaceExists(namespace)) throw new NamespaceAlreadyExistsException(namespace)
    if (namespace.length > 1) requireNamespace(namespace.init)
    warehouse.mkdirs(uri)
  }

  override def alterNamespace(namespace: Array[String], changes: NamespaceChange*): Unit =
    throw new UnsupportedOperationException(s"namespace properties are not supported by catalog $catalogName")

  override def dropNamespace(namespace: Array[String], cascade: Boolean): Boolean = {
    if (!namespaceExists(namespace)) return false
    val uri = warehouse.uri(namespace.toSeq)
    if (!warehouse.exists(uri)) throw new UnsupportedOperationException(
      s"namespace ${namespace.mkString(".")} is declared in the __manifest of a Lance directory namespace, not a " +
        "directory of catalog " + catalogName + "; drop it with a client of that directory namespace (pylance, LanceDB)")
    if (!cascade && warehouse.children(uri).nonEmpty) {
      throw new NonEmptyNamespaceException(namespace)
    }
    warehouse.delete(uri)
  }

  // ---- functions ----

  override def listFunctions(namespace: Array[String]): Array[Identifier] =
    if (namespace.isEmpty || namespace.sameElements(Array(PartitionedCatalog.FunctionNamespace))) {
      PartitionFunctions.all.keys.toSeq.sorted.map(n => Identifier.of(namespace, n)).toArray
    } else throw new NoSuchNamespaceException(namespace)

  override def loadFunction(ident: Identifier): UnboundFunction =
    PartitionFunctions.all.get(ident.name())
      .filter(_ =>
        ident.namespace().isEmpty || ident.namespace().sameElements(Array(PartitionedCatalog.FunctionNamespace)))
      .getOrElse(throw new NoSuchFunctionException(ident))

  // ---- procedures ----

  // ProcedureCatalog's since Spark 4.1 (SHOW PROCEDURES); on 4.0 a method of the catalog only
  def listProcedures(namespace: Array[String]): Array[Identifier] =
    if (namespace.sameElements(Array(PartitionedCatalog.FunctionNamespace)))
      Procedures.names.map(Identifier.of(namespace, _)).toArray
    else Array.empty

  override def loadProcedure(ident: Identifier): UnboundProcedure = {
    val inSystem = ident.namespace().sameElements(Array(PartitionedCatalog.FunctionNamespace))
    (if (inSystem) Procedures.load(this, ident.name()) else None).getOrElse(throw new IllegalArgumentException(
      s"catalog $catalogName has no procedure '$ident' (it has " +
        Procedures.names.map(n => s"${PartitionedCatalog.FunctionNamespace}.$n").mkString(", ") + ")"))
  }

  private def qualified(ident: Identifier): String = s"$catalogName.$ident"

  private def requireNamespace(namespace: Array[String]): Unit =
    if (!namespaceExists(namespace)) throw new NoSuchNamespaceException(namespace)
}

object PartitionedCatalog {
  val StoragePrefix = "storage."

  /** Iceberg's names of a table's versions: `<table>.snapshot_id_<id>`, `<table>.at_timestamp_<millis>`,
   * `<table>.tag_<tag>`, `<table>.branch_<branch>`. */
  private val SnapshotSuffix = "snapshot_id_(\\d+)".r
  private val TimestampSuffix = "at_timestamp_(\\d+)".r
  private val TagSuffix = "tag_(.+)".r
  private val BranchSuffix = "branch_(.+)".r

  /** `spark.sql.catalog.<name>.spj.enabled` (default true): scans report their partitioning so
   * that Spark can join and aggregate without a shuffle (storage-partitioned joins). */
  val SpjOption = "spj.enabled"

  /** `spark.sql.catalog.<name>.spj.max-partition-keys` (default 200): a scan reports its
   * partitioning only when the partition tables it reads have at most this many distinct
   * partition keys, since Spark then runs one task per key; a scan with more packs several
   * partition tables into each task instead. The default is Spark's default number of shuffle
   * partitions: a join that uses the reported keys runs no more tasks than the shuffle it saves. */
  val SpjMaxKeysOption = "spj.max-partition-keys"
  val DefaultSpjMaxKeys = 200

  /** `spark.sql.catalog.<name>.spj.min-bytes-per-partition-key` (default 2 MB): a scan reports
   * its partitioning only when its partition keys hold at least this many data bytes on average;
   * a scan of smaller keys packs partition tables instead, since a task per key would cost more
   * than the shuffle it saves (measured: docs/benchmarks.md). */
  val SpjMinKeyBytesOption = "spj.min-bytes-per-partition-key"
  val DefaultSpjMinKeyBytes: Long = 2L << 20

  /** `spark.sql.catalog.<name>.commit.attempts` (default 30): how often a write tries to commit
   * to `__manifest` while other writers commit first. */
  val CommitAttemptsOption = "commit.attempts"

  /** Namespace of the procedures, and of the partition functions (which also resolve without one). */
  val FunctionNamespace = "system"

  /** Spec v1 for CREATE TABLE, bound and checked: every partition value must have a type that
   * the manifest can hold and prune on. */
  def newTable(
      table: String,
      schema: NamespaceSchema,
      partitions: Array[Transform],
      properties: util.Map[String, String],
      specId: Int = 1,
      defaultMode: TransactionMode = TransactionMode.Weak,
      tableProperties: Map[String, String] = Map.empty,
      columnTypes: Map[String, DataType] = Map.empty): TableMetadata = {
    val spec =
      DdlPartitioning.spec(table, schema, partitions.toSeq, Option(properties.get(DdlPartitioning.ExpressionsProperty)))
    val mode = Option(properties.get(TransactionMode.Key)).fold(defaultMode)(TransactionMode.parse(_, table))
    checked(unclashed(TableMetadata.create(table, schema, spec.copy(id = specId), mode, tableProperties), columnTypes))
  }

  /** `meta` with each field whose `partition_field_<id>` column `__manifest` already has with
   * another type (a replaced table's columns stay) renamed `<id>_2`, `<id>_3`, ... */
  private def unclashed(meta: TableMetadata, columnTypes: Map[String, DataType]): TableMetadata = {
    val spec = meta.currentSpec
    val taken = mutable.Set.empty[String] ++= columnTypes.keys ++= spec.fields.map(_.fieldId)
    val fields = spec.fields.map { f =>
      if (columnTypes.get(f.fieldId).forall(_ == f.valueType)) f.field
      else {
        val id = Iterator.from(2).map(n => s"${f.fieldId}_$n").find(!taken(_)).get
        taken += id
        f.field.copy(fieldId = id)
      }
    }
    if (fields == spec.fields.map(_.field)) meta
    else TableMetadata.create(meta.table, meta.schema, spec.spec.copy(fields = fields), meta.mode, meta.tableProperties)
  }

  /** `meta` when every value of its newest spec has a type the manifest can hold and prune on,
   * and DataFusion plans each of its expressions. */
  def checked(meta: TableMetadata): TableMetadata = {
    val table = meta.table
    PartitionValues.check(table, meta.currentSpec)
    meta.currentSpec.fields.find(f => !TableMetadata.isSupportedPartitionType(f.valueType)).foreach { f =>
      val what =
        f.source.filter(_ => f.field.isIdentity).fold(s"partition field '${f.fieldId}'")(s => s"column '${s.name}'")
      throw new IllegalArgumentException(
        s"table $table: $what has type ${f.valueType.sql}, which cannot be a partition value " +
          "(supported: boolean, integers, float, double, string, binary, date, timestamp, timestamp_ntz, decimal)")
    }
    meta
  }
}
