// The scan: one manifest query picks the partition tables; they are read one per input
// partition when the scan reports its partitioning, else packed several to an input partition.
package lancepart.spark.read

import lancepart.arrow.ArrowTypes
import lancepart.lance.Lance
import lancepart.manifest.ManifestRow
import lancepart.prune.{LanceSql, ManifestFilter}
import lancepart.spark.{DdlPartitioning, PartitionedCatalog, PartitionedTable, TableBranches}
import lancepart.spark.functions.CalendarKey
import lancepart.spec.{BoundField, CalendarRun, NamespaceSchema, TableMetadata, TransactionMode}
import lancepart.transform.Transform
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.util.QuotingUtils
import org.apache.spark.sql.connector.expressions.{Expression, Expressions, Literal, NamedReference}
import org.apache.spark.sql.connector.expressions.filter.Predicate
import org.apache.spark.sql.connector.read.{
  Batch, HasPartitionKey, InputPartition, LocalScan, PartitionReaderFactory, Scan, SupportsReportPartitioning,
  SupportsRuntimeV2Filtering
}
import org.apache.spark.sql.connector.read.partitioning.{KeyGroupedPartitioning, Partitioning, UnknownPartitioning}
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2ScanRelation
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.{DataType, DoubleType, FloatType, LongType, StructField, StructType}
import org.apache.spark.sql.util.CaseInsensitiveStringMap

/**
 * `required`: the columns Spark reads, namespace columns and possibly [[PartitionTableColumn]].
 * `wholeTables`: the scan of a copy-on-write DELETE, UPDATE or MERGE, which returns every row of
 * the partition tables it reads (filters only prune tables), since the operation replaces them;
 * Spark may narrow it at run time to the tables holding rows the operation changes.
 * `search`: each partition table returns its k best rows (filters applied first, unless the search
 * post-filters) with the search's column; Spark merges the top k.
 */
class PartitionedScan(
    val table: PartitionedTable,
    required: StructType,
    filters: Seq[Filter],
    pruning: Boolean,
    sizing: SplitSizing,
    wholeTables: Boolean = false,
    val search: Option[LeafSearch] = None,
    options: CaseInsensitiveStringMap = CaseInsensitiveStringMap.empty())
    extends Scan with Batch with SupportsReportPartitioning with SupportsRuntimeV2Filtering {
  private val meta = table.manifest.meta
  private def metadata(name: String) =
    required.exists(_.name == name) && meta.schema.byName(name, caseSensitive = false).isEmpty
  private val tableColumn = metadata(PartitionTableColumn.Name)
  private val rowAddressColumn = metadata(RowAddressColumn.Name)
  private val dataSchema = StructType(required.filterNot(f =>
    (tableColumn && f.name == PartitionTableColumn.Name) || (rowAddressColumn && f.name == RowAddressColumn.Name) ||
      search.exists(_.field.name == f.name)))

  /** The `__manifest` filter that selects the partition tables read. */
  val manifestFilter: String = ManifestFilter.tables(meta, if (pruning) filters else Seq.empty)

  /** Partition tables that may hold matching rows, found by a filtered scan of __manifest (kept for
   * the next scan of the same version). */
  lazy val tablesSelected: Seq[ManifestRow] =
    table.files.withData(table.store.rows(table.manifest, manifestFilter, keep = true))
  private lazy val totalTables: Long = table.store.tableCount(table.manifest)

  /** The object ids of the tables a runtime filter keeps (see [[filter]]); None: all selected. */
  private var runtimeIds: Option[Set[String]] = None

  /** The tables read: those selected and kept by the runtime filter. */
  private def leaves: Seq[ManifestRow] =
    runtimeIds.fold(tablesSelected)(ids => tablesSelected.filter(r => ids(r.objectId)))

  /** Each pushed filter as Lance SQL with the columns it reads; a leaf applies those it has, except
   * those pruning answers (see [[PartitionedScan.answeredByPruning]]). */
  private val leafFilters: Seq[LeafFilter] = if (wholeTables) Seq.empty
  else filters.filterNot(PartitionedScan.answeredByPruning(meta, pruning, _)).flatMap { f =>
    LanceSql.render(f, PartitionedScan.leafColumn(meta.schema))
      .map(sql => LeafFilter(sql, f.references.toSeq))
  }

  /** Whether a search applies `filter` before ranking each partition table's rows: pruning answers
   * it, or it is a leaf filter (a leaf that cannot apply one refuses the search: [[LeafReader]]). */
  def appliedBeforeSearch(filter: Filter): Boolean = PartitionedScan.answeredByPruning(meta, pruning, filter) ||
    LanceSql.render(filter, PartitionedScan.leafColumn(meta.schema)).isDefined

  override def readSchema(): StructType = {
    val withScore = search.fold(dataSchema)(q => dataSchema.add(q.field))
    val withAddress = if (rowAddressColumn) withScore.add(RowAddressColumn.field) else withScore
    if (tableColumn) withAddress.add(PartitionTableColumn.field) else withAddress
  }

  /** A row-level operation's scan takes the partition tables holding the rows it changes. */
  override def filterAttributes(): Array[NamedReference] =
    if (wholeTables && tableColumn) Array(Expressions.column(PartitionTableColumn.Name)) else Array.empty

  /** Keeps the tables an `_partition_table IN (...)` predicate names; other predicates keep all. */
  override def filter(predicates: Array[Predicate]): Unit = predicates.foreach { p =>
    p.children().toSeq match {
      case (ref: NamedReference) +: values
          if p.name() == "IN" && ref.fieldNames().sameElements(Array(PartitionTableColumn.Name)) =>
        val ids = values.collect { case l: Literal[_] if l.value() != null => l.value().toString }.toSet
        runtimeIds = Some(runtimeIds.fold(ids)(_ intersect ids))
      case _ =>
    }
  }

  override def toBatch: Batch = this

  /** A streaming read (its query's read `options`): the rows appended between manifest versions. */
  override def toMicroBatchStream(checkpointLocation: String): MicroBatchStream = {
    table.requireWritable("stream from")
    TableBranches.requireMain(table, "stream from")
    new PartitionedMicroBatchStream(table, createReaderFactory(), options)
  }

  override def description(): String =
    s"${table.name()} [tables=${leaves.size}/$totalTables, manifest_version=${table.manifest.version}, " +
      s"filters=${filters.mkString(", ")}${search.fold("")(q => s", ${q.description}")}]"

  /**
   * The reported partition keys: partition fields every scanned spec version has that Spark can
   * group by — identity, single-column bucket, and calendar fields. A run of year, month, day,
   * hour fields over one column (starting at year) is one key (see [[CalendarKey]]), so that
   * a finer table joins a coarser one. truncate, multi_bucket and expression fields carry a
   * parameter or definition that Spark's function matching would not see, so they are not
   * reported, nor are fields over float or double columns. Empty when reporting is off or a
   * table read has no partition values.
   */
  private lazy val keys: Seq[Seq[BoundField]] = if (!table.spj.enabled || unpartitioned.nonEmpty) Seq.empty
  else {
    val read = tablesSelected.flatMap(_.specVersion).distinct.flatMap(v => meta.specs.find(_.id == v))
    val common = read.headOption.toSeq.flatMap(_.fields).filter { f =>
      read.forall(_.fields.exists(_.fieldId == f.fieldId)) && f.sources.size == 1 && f.source.isDefined &&
      f.field.transform.exists(_.reportable) && !hashesZerosApart(f)
    }
    CalendarRun.group(common)
  }

  /** The tables read that have no partition values (see [[lancepart.spec.TableMetadata]]). */
  private lazy val unpartitioned: Seq[String] = tablesSelected.map(_.objectId).filter(meta.unpartitioned)

  /** A float or double source hashes 0.0 and -0.0 (equal in a join) into different buckets. */
  private def hashesZerosApart(f: BoundField): Boolean =
    f.source.exists(s => s.dataType == FloatType || s.dataType == DoubleType)

  private def keyOf(row: ManifestRow): InternalRow = InternalRow.fromSeq(keys.map { group =>
    val values = group.map(f => row.values.getOrElse(f.fieldId, null))
    if (CalendarRun.isRun(group)) CalendarKey.combine(values) else values.head
  })

  /** How many distinct partition keys the tables read have (0 when no key can be reported). */
  private lazy val keyCount: Int = if (keys.isEmpty) 0 else tablesSelected.map(keyOf).distinct.size

  /** The data bytes the tables read hold per partition key on average, by the sizes their
   * commits recorded; None when a table has no recorded size. */
  private lazy val bytesPerKey: Option[Long] =
    if (keyCount > 0 && tablesSelected.forall(_.stats.isDefined))
      Some(tablesSelected.map(_.stats.get.bytes).sum / keyCount)
    else None

  /** Spark runs one task per reported key, so keys are reported only up to the catalog's bound,
   * and only when they hold enough data for a task each ([[SpjPolicy]]). A row-level command's
   * scan reports none: Spark checks the keys its runtime filter leaves against those reported in
   * the join's projection of them, and fails (ClassCastException) when the command joins the
   * table with itself on some of its partition fields. */
  private lazy val reporting: Boolean =
    !wholeTables && search.isEmpty && keyCount > 0 && keyCount <= table.spj.maxKeys &&
      bytesPerKey.forall(_ >= table.spj.minKeyBytes)

  override def outputPartitioning(): Partitioning =
    if (reporting) new KeyGroupedPartitioning(keys.map(keyExpression).toArray, keyCount)
    else new UnknownPartitioning(planned.length)

  private def keyExpression(group: Seq[BoundField]): Expression = {
    val name = group.head.source.get.name
    val column = DdlPartitioning.column(name)
    group.head.field.transform.get match {
      case _ if CalendarRun.isRun(group) => Expressions.apply(CalendarKey.name(group.size), column)
      case Transform.Identity => Expressions.identity(QuotingUtils.quoteIdentifier(name))
      case Transform.Bucket(n) => Expressions.bucket(n, QuotingUtils.quoteIdentifier(name))
      case t: Transform.CalendarField => Expressions.apply(t.functionName, column)
      case t @ (_: Transform.MultiBucket | _: Transform.Truncate) =>
        throw new IllegalStateException(s"table ${table.name()}: ${t.jsonName} fields are never reported for joins")
    }
  }

  /** What [[outputPartitioning]] reports for storage-partitioned joins, or why it reports nothing. */
  private def reportedPartitioning(splits: Int): String =
    if (wholeTables) "none (the scan of a DELETE, UPDATE or MERGE INTO, which Spark narrows at run time)"
    else if (search.isDefined) "none (a search, whose tables each return their own k best rows)"
    else if (!table.spj.enabled) s"none (catalog option ${PartitionedCatalog.SpjOption} is false)"
    else if (tablesSelected.isEmpty) "none (no partition table is read)"
    else if (unpartitioned.nonEmpty) s"none (partition tables without partition values are read: " +
      s"${unpartitioned.mkString(", ")})"
    else if (keys.isEmpty) "none (the spec versions read share no identity, bucket or calendar field of one column)"
    else if (keyCount > table.spj.maxKeys) s"none ($keyCount partition keys, more than catalog option " +
      s"${PartitionedCatalog.SpjMaxKeysOption} = ${table.spj.maxKeys}; partition tables packed into " +
      s"$splits input partitions)"
    else if (!reporting) s"none ($keyCount partition keys holding ${bytesPerKey.get} data bytes each on average, " +
      s"fewer than catalog option ${PartitionedCatalog.SpjMinKeyBytesOption} = ${table.spj.minKeyBytes}; " +
      s"partition tables packed into $splits input partitions)"
    else keys.map(keyExpression(_).describe()).mkString(", ")

  override def planInputPartitions(): Array[InputPartition] = planned

  /** The tables planned for runtime filter `runtimeIds`, the versions a row-level command's scan
   * pins ([[versionsRead]]) and the input partitions. */
  private case class Plan(
      runtimeIds: Option[Set[String]],
      tables: Seq[ManifestRow],
      pins: Map[String, Long],
      splits: Array[InputPartition])
  private var plan: Option[Plan] = None

  /**
   * The partition tables the input partitions read: the tables a copy-on-write operation replaces.
   * Spark plans the scan, with its runtime filter, before the write's tasks start.
   */
  def tablesRead: Seq[ManifestRow] = planDone.tables

  /**
   * For a row-level command's scan of a weak-mode table, the main-branch version each table is
   * read at (its latest when planned; the manifest does not pin one): a copy-on-write command
   * conflicts when one moved before it commits, since in weak mode writers (other clients too)
   * append to a partition table's main branch without a `__manifest` change; a merge-on-read
   * command deletes the row addresses it read at that version.
   */
  def versionsRead: Map[String, Long] = planDone.pins

  private def planDone: Plan = plan.getOrElse(throw new IllegalStateException(
    s"table ${table.name()}: a write asked which partition tables the scan reads before Spark planned the scan"))

  /** The input partitions, planned (and logged) once per runtime filter however often Spark asks. */
  private def planned: Array[InputPartition] = plan.filter(_.runtimeIds == runtimeIds).fold {
    val leaves = this.leaves
    // A table pinned by an earlier plan (before the runtime filter) keeps that version: one open per table.
    val known = plan.fold(Map.empty[String, Long])(_.pins)
    val pins = if (!(wholeTables || rowAddressColumn) || meta.mode != TransactionMode.Weak) Map.empty[String, Long]
    else {
      val (pinned, unpinned) = leaves.filter(_.readVersion.isEmpty).partition(r => known.contains(r.objectId))
      pinned.map(r => r.objectId -> known(r.objectId)).toMap ++
        Lance.parallel(unpinned)(r => r.objectId -> table.store.leafVersion(r))
    }
    val splits = planFor(leaves, pins)
    plan = Some(Plan(runtimeIds, leaves, pins, splits))
    splits
  }(_.splits)

  /** One input partition per partition table when the scan reports its partitioning, else the
   * tables packed into splits (a search's too: each returns its own k best rows, one after the
   * other, which spares a task per table); a table read at its `pins` version if it has one. */
  private def planFor(leaves: Seq[ManifestRow], pins: Map[String, Long]): Array[InputPartition] = {
    def partition(row: ManifestRow) = leafOf(row, pins.get(row.objectId))
    val splits: Seq[InputPartition] =
      if (reporting) leaves.map(row => KeyedSplit(partition(row), keyOf(row)))
      else PartitionedScan.pack(leaves.map(row => partition(row) -> row.stats.fold(0L)(_.bytes)), sizing)
        .map(PackedSplit(_))
    PartitionedScan.log.info(s"table ${table.name()}: planned ${leaves.size} of $totalTables partition tables " +
      s"in ${splits.size} input partitions (manifest version ${table.manifest.version}); partitioning reported " +
      s"for storage-partitioned joins: ${reportedPartitioning(splits.size)}")
    splits.toArray
  }

  private def leafOf(row: ManifestRow, pin: Option[Long]): LeafPartition = {
    val spec = row.specVersion.flatMap(v => meta.specs.find(_.id == v)).getOrElse(
      throw new IllegalStateException(
        s"table ${table.name()}: partition table ${row.objectId} has no known spec version"))
    LeafPartition(
      table.store.leafUri(row),
      row.readVersion.orElse(pin),
      spec.identityValues(row.values),
      row.objectId,
      branch = row.readBranch)
  }

  /** COUNT(*) over the selected partition tables from their manifests' row counts (at the
   * versions this scan reads): a one-row local scan. */
  def countScan: Scan = new LocalScan {
    override def readSchema(): StructType = StructType(Seq(StructField("count(*)", LongType, nullable = false)))
    override def rows(): Array[InternalRow] =
      Array(InternalRow(Lance.parallel(leaves)(table.store.leafRowCount(_, table.files.latestVersion)).sum))
    override def description(): String = s"${PartitionedScan.this.description()} COUNT(*) from metadata"
  }

  override def createReaderFactory(): PartitionReaderFactory =
    new LeafReaderFactory(
      dataSchema.fields.toSeq.map(f =>
        meta.schema.byName(f.name, caseSensitive = true).get
          .copy(dataType = f.dataType)),
      meta.schema.fields,
      leafFilters,
      tableColumn,
      table.store.lance,
      rowAddressColumn,
      search
    )
}

object PartitionedScan {
  private val log = org.slf4j.LoggerFactory.getLogger(classOf[PartitionedScan])

  /** The scan of a planned read of a lancepart table (`case PartitionedScan.Planned(scan)`): the
   * relation is matched by type, as its fields differ between Spark lines. */
  object Planned {
    def unapply(plan: LogicalPlan): Option[PartitionedScan] = plan match {
      case relation: DataSourceV2ScanRelation =>
        relation.scan match {
          case scan: PartitionedScan => Some(scan)
          case _ => None
        }
      case _ => None
    }
  }

  /**
   * Partition tables in splits, packed the way Spark packs files (`FilePartition`): largest first,
   * each weighing its data bytes (as recorded in its `__manifest` row at lancepart's last commit to
   * it; 0 when none is) plus `sizing`'s open cost, a split taking tables up to `sizing`'s target
   * or less, so that there are at least `spark.sql.files.minPartitionNum` (by default Spark's
   * default parallelism) splits when there are as many tables. A table larger than that is a split alone.
   */
  def pack(leaves: Seq[(LeafPartition, Long)], sizing: SplitSizing): Seq[Seq[LeafPartition]] = {
    val session = SparkSession.active
    val openCost = sizing.openCostBytes
    val parallelism = session.sessionState.conf.filesMinPartitionNum.getOrElse(session.sparkContext.defaultParallelism)
    val total = leaves.map(_._2 + openCost).sum
    val maxSplit = math.min(sizing.targetBytes, math.max(openCost, total / math.max(1, parallelism)))
    val splits = Seq.newBuilder[Seq[LeafPartition]]
    var current = Vector.empty[LeafPartition]
    var size = 0L
    for ((leaf, bytes) <- leaves.sortBy(-_._2)) {
      if (current.nonEmpty && size + bytes > maxSplit) {
        splits += current
        current = Vector.empty
        size = 0L
      }
      current :+= leaf
      size += bytes + openCost
    }
    if (current.nonEmpty) splits += current
    splits.result()
  }

  /** True when pruning answers `f` exactly (on identity partition columns): it holds for every row
   * of every table pruning selects, so neither Spark nor the leaf scans evaluate it again. */
  def answeredByPruning(meta: TableMetadata, pruning: Boolean, f: Filter): Boolean =
    pruning && ManifestFilter.isExact(meta, f)

  /** Column lookup for leaf filters: a top-level column by its exact name, when the namespace
   * stores it in Spark's own Arrow type (Lance compares a literal in the column's stored type). */
  def leafColumn(schema: NamespaceSchema): String => Option[(String, DataType)] = attr =>
    schema.byName(attr, caseSensitive = true).filter(f => ArrowTypes.isSparkOwn(schema.arrow(f), f.name))
      .flatMap(f => LanceSql.column(f.name).map(_ -> f.dataType))
}

/** One partition table to read: its URI, the version the manifest pins (None: the latest), its
 * identity values and its object id in `__manifest`; `fragments`: only these fragments (a split
 * of a plain Lance table), None for all; `branch`: the branch of the version read (None: main). */
case class LeafPartition(
    uri: String,
    readVersion: Option[Long],
    identityValues: Map[String, Any],
    objectId: String,
    fragments: Option[Seq[Int]] = None,
    branch: Option[String] = None) {

  /** The partition's identity values as messages show them after its URI (" (tenant=acme)"). */
  def shownValues: String =
    if (identityValues.isEmpty) ""
    else identityValues.toSeq.sortBy(_._1).map { case (k, v) => s"$k=$v" }.mkString(" (", ", ", ")")
}

/** An input partition: the partition tables one task reads, in order. */
sealed trait LeafSplit extends InputPartition {
  def leaves: Seq[LeafPartition]
}

/** Partition tables packed together (the scan reports no partitioning). */
case class PackedSplit(leaves: Seq[LeafPartition]) extends LeafSplit

/** One partition table with its values of the reported partition fields. */
case class KeyedSplit(leaf: LeafPartition, partitionKey: InternalRow) extends LeafSplit with HasPartitionKey {
  override def leaves: Seq[LeafPartition] = Seq(leaf)
}

case class LeafFilter(sql: String, columns: Seq[String])
