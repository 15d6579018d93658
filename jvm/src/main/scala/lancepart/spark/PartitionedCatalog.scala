// The Spark catalog: `spark.sql.catalog.<name>=lancepart.spark.PartitionedCatalog` with `.root`
// and `.storage.*` options. Namespaces are directories; tables are partitioned namespaces.
package lancepart.spark

import java.util

import lancepart.manifest.{ManifestStore, Progress}
import lancepart.spark.functions.PartitionFunctions
import lancepart.spec.{ArrowJsonType, FormatException, NamespaceSchema, SchemaEvolution, SpecEvolution, TableMetadata, TransactionMode}
import lancepart.storage.Directories
import lancepart.txn.{Committer, Vacuum, VacuumResult}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.{NamespaceAlreadyExistsException, NoSuchFunctionException, NoSuchNamespaceException, NoSuchTableException, NonEmptyNamespaceException, TableAlreadyExistsException}
import org.apache.spark.sql.connector.catalog._
import org.apache.spark.sql.connector.catalog.functions.UnboundFunction
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure
import lancepart.spark.procedures.EvolvePartitionSpec
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.types.{StructField, StructType}
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

class PartitionedCatalog extends TableCatalog with SupportsNamespaces with FunctionCatalog with ProcedureCatalog {
  private var catalogName: String = _
  private var warehouse: Warehouse = _
  private var reportPartitioning: Boolean = true
  private var commitAttempts: Int = Committer.DefaultAttempts

  override def name(): String = catalogName

  override def initialize(name: String, options: CaseInsensitiveStringMap): Unit = {
    catalogName = name
    val root = Option(options.get("root")).filter(_.nonEmpty).getOrElse(
      throw new IllegalArgumentException(s"catalog $name: set spark.sql.catalog.$name.root to a directory or URI"))
    val storage = options.asCaseSensitiveMap().asScala.collect {
      case (k, v) if k.startsWith(PartitionedCatalog.StoragePrefix) => k.stripPrefix(PartitionedCatalog.StoragePrefix) -> v
    }.toMap
    reportPartitioning = options.getBoolean(PartitionedCatalog.SpjOption, true)
    commitAttempts = options.getInt(PartitionedCatalog.CommitAttemptsOption, Committer.DefaultAttempts)
    if (commitAttempts < 1) throw new IllegalArgumentException(
      s"catalog $name: ${PartitionedCatalog.CommitAttemptsOption} must be at least 1, not $commitAttempts")
    val normalized = Warehouse.normalizeRoot(root)
    val directories = Directories.forRoot(normalized, storage, SparkSession.active.sessionState.newHadoopConf())
    warehouse = new Warehouse(normalized, storage, directories)
  }

  // ---- tables ----

  override def listTables(namespace: Array[String]): Array[Identifier] = {
    requireNamespace(namespace)
    val dir = warehouse.uri(namespace.toSeq)
    warehouse.children(dir).filter(c => warehouse.isTable(s"$dir/$c"))
      .map(c => Identifier.of(namespace, c)).toArray
  }

  /** The table as manifest version `version` recorded it (`VERSION AS OF`; strong mode only). */
  override def loadTable(ident: Identifier, version: String): Table = {
    val current = travelling(ident, s"VERSION AS OF $version")
    val number = version.toLongOption.getOrElse(throw new IllegalArgumentException(
      s"table ${qualified(ident)}: VERSION AS OF takes a manifest version number, not '$version'"))
    current.at(current.store.loadAt(number))
  }

  /** The table as it was at `timestamp` (microseconds; `TIMESTAMP AS OF`; strong mode only). */
  override def loadTable(ident: Identifier, timestamp: Long): Table = {
    val current = travelling(ident, "TIMESTAMP AS OF")
    current.at(current.store.loadAt(current.store.versionAt(timestamp)))
  }

  private def travelling(ident: Identifier, clause: String): PartitionedTable = loadTable(ident) match {
    case t: PartitionedTable if t.manifest.meta.mode == TransactionMode.Strong => t
    case _: PartitionedTable => throw new UnsupportedOperationException(
      s"table ${qualified(ident)}: $clause needs ${TransactionMode.Key}=strong; in weak mode partition tables are " +
        "read at their latest versions, so older manifest versions do not pin what was visible then")
    case _ => throw new UnsupportedOperationException(s"table ${qualified(ident)}: $clause is not supported")
  }

  /** A partitioned table, or `<table>.partitions`, its partitions metadata table. */
  override def loadTable(ident: Identifier): Table = {
    val store = warehouse.store(ident, qualified(ident))
    // As Warehouse.isTable: a __manifest Lance cannot open is no table; a partitioned one whose
    // metadata breaks the spec fails with the FormatException that says how.
    val manifest = if (!warehouse.exists(store.uri)) None else {
      try store.loadIfPartitioned()
      catch { case e: FormatException => throw e; case NonFatal(_) => None }
    }
    manifest match {
      case Some(m) => new PartitionedTable(qualified(ident), store, warehouse.files(store.tableUri), m,
        warehouse.storage, reportPartitioning, commitAttempts)
      case None if ident.name() == PartitionsTable.Name && ident.namespace().nonEmpty =>
        loadTable(Identifier.of(ident.namespace().init, ident.namespace().last)) match {
          case t: PartitionedTable => new PartitionsTable(t)
          case _ => throw new NoSuchTableException(ident)
        }
      case None => throw new NoSuchTableException(ident)
    }
  }

  override def createTable(
      ident: Identifier,
      columns: Array[Column],
      partitions: Array[Transform],
      properties: util.Map[String, String]): Table = {
    val uri = warehouse.tableUri(ident)
    if (ident.namespace().nonEmpty) requireNamespace(ident.namespace())
    if (warehouse.isTable(uri)) throw new TableAlreadyExistsException(ident)
    if (warehouse.exists(s"$uri/${ManifestStore.DirName}")) {
      throw new IllegalStateException(s"table ${qualified(ident)}: $uri already holds a __manifest that is not a partitioned namespace")
    }
    columns.foreach(c => ArrowJsonType.requireWritable(qualified(ident), c.name(), c.dataType()))
    val struct = StructType(columns.map(c => StructField(c.name(), c.dataType(), c.nullable())))
    val schema = NamespaceSchema.fromSpark(struct)
    val meta = PartitionedCatalog.newTable(qualified(ident), schema, partitions, properties)
    warehouse.store(ident, qualified(ident)).create(meta)
    loadTable(ident)
  }

  /**
   * Adds the next partition spec version to `ident` (spec: Partition Evolution) with the fields
   * of `items`. New writes use it; old partitions stay as they are.
   */
  def evolvePartitionSpec(ident: Identifier, items: Seq[DdlPartitioning.Item]): PartitionedTable = {
    val table = loadTable(ident).asInstanceOf[PartitionedTable]
    val current = table.manifest.meta
    val requested = DdlPartitioning.fields(qualified(ident), current.schema, items)
    val next = PartitionedCatalog.checked(current.withSpec(SpecEvolution.next(current, requested)))
    table.store.evolve(current, next)
    loadTable(ident).asInstanceOf[PartitionedTable]
  }

  /** ADD COLUMN, RENAME COLUMN, DROP COLUMN and widening ALTER COLUMN TYPE on top-level columns:
   * the namespace schema changes, partition tables are not rewritten. */
  override def alterTable(ident: Identifier, changes: TableChange*): Table = {
    val table = loadTable(ident).asInstanceOf[PartitionedTable]
    val current = table.manifest.meta
    val (properties, columns) = changes.partition(_.isInstanceOf[TableChange.SetProperty])
    properties.foreach { case c: TableChange.SetProperty => setProperty(table, c.property(), c.value()) }
    if (columns.isEmpty) return loadTable(ident)
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
        ArrowJsonType.requireWritable(qualified(ident), c.fieldNames().mkString("."), c.dataType())
        SchemaEvolution.AddColumn(top(c.fieldNames(), c), c.dataType())
      case c: TableChange.RenameColumn => SchemaEvolution.RenameColumn(top(c.fieldNames(), c), c.newName())
      case c: TableChange.DeleteColumn => SchemaEvolution.DropColumn(top(c.fieldNames(), c))
      case c: TableChange.UpdateColumnType => SchemaEvolution.WidenColumn(top(c.fieldNames(), c), c.newDataType())
      case other => throw new UnsupportedOperationException(
        s"table ${qualified(ident)}: ALTER TABLE change ${other.getClass.getSimpleName} is not supported")
    }
    val schema = SchemaEvolution(current, evolution)
    val next = TableMetadata.fromProperties(current.properties + (TableMetadata.SchemaKey -> schema.json), qualified(ident))
    table.store.updateSchema(current, next)
    loadTable(ident)
  }

  /** Restores the `__manifest` columns another client dropped, from each row's metadata (see
   * [[ManifestStore.repair]]); the table need not load. Returns the number of rows restored. */
  def repair(ident: Identifier, progress: Progress): Int = {
    if (!warehouse.isTable(warehouse.tableUri(ident))) throw new NoSuchTableException(ident)
    warehouse.store(ident, qualified(ident)).repair(progress)
  }

  /** Removes files failed writers left that are older than `cutoffMillis` (see [[Vacuum]]). */
  def vacuum(ident: Identifier, cutoffMillis: Long, progress: Progress): VacuumResult = loadTable(ident) match {
    case t: PartitionedTable => Vacuum.run(t.store, t.files, t.storage, cutoffMillis, progress)
    case _ => throw new NoSuchTableException(ident)
  }

  /** `ALTER TABLE ... SET TBLPROPERTIES`: only `transaction.mode`, and only from weak to strong
   * (data committed in strong mode is in detached versions that weak readers would not see). */
  private def setProperty(table: PartitionedTable, key: String, value: String): Unit = {
    if (key != TransactionMode.Key) throw new UnsupportedOperationException(
      s"table ${table.name()}: property '$key' cannot be set; the only table property is ${TransactionMode.Key}")
    val mode = TransactionMode.parse(value, table.name())
    if (table.manifest.meta.mode == TransactionMode.Strong && mode == TransactionMode.Weak) {
      throw new UnsupportedOperationException(s"table ${table.name()}: ${TransactionMode.Key} cannot go from strong " +
        "back to weak: strong-mode writes are detached leaf versions that weak-mode readers (who read each leaf's " +
        "latest main version) would not see")
    }
    table.store.updateMetadata(Map(TransactionMode.Key -> mode.name))
  }

  override def dropTable(ident: Identifier): Boolean = {
    val uri = warehouse.tableUri(ident)
    warehouse.isTable(uri) && warehouse.delete(uri)
  }

  override def purgeTable(ident: Identifier): Boolean = dropTable(ident)

  override def renameTable(oldIdent: Identifier, newIdent: Identifier): Unit =
    throw new UnsupportedOperationException(s"RENAME TABLE is not supported for ${qualified(oldIdent)}")

  // ---- namespaces ----

  override def listNamespaces(): Array[Array[String]] = listNamespaces(Array.empty[String])

  override def listNamespaces(namespace: Array[String]): Array[Array[String]] = {
    if (namespace.nonEmpty) requireNamespace(namespace)
    val dir = warehouse.uri(namespace.toSeq)
    warehouse.children(dir).filterNot(c => warehouse.isTable(s"$dir/$c")).map(c => namespace :+ c).toArray
  }

  override def namespaceExists(namespace: Array[String]): Boolean = {
    val uri = warehouse.uri(namespace.toSeq)
    namespace.isEmpty || (warehouse.exists(uri) && !warehouse.isTable(uri))
  }

  override def loadNamespaceMetadata(namespace: Array[String]): util.Map[String, String] = {
    requireNamespace(namespace)
    Map(SupportsNamespaces.PROP_LOCATION -> warehouse.uri(namespace.toSeq)).asJava
  }

  override def createNamespace(namespace: Array[String], metadata: util.Map[String, String]): Unit = {
    if (namespaceExists(namespace)) throw new NamespaceAlreadyExistsException(namespace)
    if (namespace.length > 1) requireNamespace(namespace.init)
    warehouse.mkdirs(warehouse.uri(namespace.toSeq))
  }

  override def alterNamespace(namespace: Array[String], changes: NamespaceChange*): Unit =
    throw new UnsupportedOperationException(s"namespace properties are not supported by catalog $catalogName")

  override def dropNamespace(namespace: Array[String], cascade: Boolean): Boolean = {
    if (!namespaceExists(namespace)) return false
    val uri = warehouse.uri(namespace.toSeq)
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
      .filter(_ => ident.namespace().isEmpty || ident.namespace().sameElements(Array(PartitionedCatalog.FunctionNamespace)))
      .getOrElse(throw new NoSuchFunctionException(ident))

  // ---- procedures ----

  override def listProcedures(namespace: Array[String]): Array[Identifier] =
    if (namespace.sameElements(Array(PartitionedCatalog.FunctionNamespace))) Array(Identifier.of(namespace, EvolvePartitionSpec.Name))
    else Array.empty

  override def loadProcedure(ident: Identifier): UnboundProcedure =
    if (ident.namespace().sameElements(Array(PartitionedCatalog.FunctionNamespace)) && ident.name() == EvolvePartitionSpec.Name) {
      new EvolvePartitionSpec(this)
    } else {
      throw new IllegalArgumentException(
        s"catalog $catalogName has no procedure '$ident' (it has ${PartitionedCatalog.FunctionNamespace}.${EvolvePartitionSpec.Name})")
    }

  private def qualified(ident: Identifier): String = s"$catalogName.$ident"

  private def requireNamespace(namespace: Array[String]): Unit =
    if (!namespaceExists(namespace)) throw new NoSuchNamespaceException(namespace)
}

object PartitionedCatalog {
  val StoragePrefix = "storage."
  /** `spark.sql.catalog.<name>.spj.enabled` (default true): scans report their partitioning so
   * that Spark can join and aggregate without a shuffle (storage-partitioned joins). */
  val SpjOption = "spj.enabled"
  /** `spark.sql.catalog.<name>.commit.attempts` (default 30): how often a write tries to commit
   * to `__manifest` while other writers commit first. */
  val CommitAttemptsOption = "commit.attempts"
  /** Namespace of the procedures, and of the partition functions (which also resolve without one). */
  val FunctionNamespace = "system"

  /** Spec v1 for CREATE TABLE, bound and checked: every partition value must have a type that
   * the manifest can hold and prune on. */
  def newTable(table: String, schema: NamespaceSchema, partitions: Array[Transform],
               properties: util.Map[String, String]): TableMetadata = {
    val spec = DdlPartitioning.spec(table, schema, partitions.toSeq, Option(properties.get(DdlPartitioning.ExpressionsProperty)))
    val mode = Option(properties.get(TransactionMode.Key)).fold[TransactionMode](TransactionMode.Weak)(TransactionMode.parse(_, table))
    checked(TableMetadata.create(table, schema, spec, mode))
  }

  /** `meta` when every value of its newest spec has a type the manifest can hold and prune on. */
  def checked(meta: TableMetadata): TableMetadata = {
    val table = meta.table
    meta.currentSpec.fields.find(f => !TableMetadata.isSupportedPartitionType(f.valueType)).foreach { f =>
      val what = f.source.filter(_ => f.field.isIdentity).fold(s"partition field '${f.fieldId}'")(s => s"column '${s.name}'")
      throw new IllegalArgumentException(
        s"table $table: $what has type ${f.valueType.sql}, which cannot be a partition value " +
          "(supported: boolean, integers, string, date, timestamp, timestamp_ntz, decimal)")
    }
    meta
  }
}
