// Scan of a plain Lance table: the dataset's fragments at one version, packed into input partitions
// by size; filters Lance can evaluate narrow what is read (Spark applies every filter again).
package lancepart.spark.plain

import lancepart.prune.{LanceSql, V2Predicates}
import lancepart.spark.read.{
  LeafFilter, LeafPartition, LeafReaderFactory, PackedSplit, PartitionedScan, RowAddressColumn, SplitSizing
}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.expressions.{Expressions, Literal, NamedReference}
import org.apache.spark.sql.connector.expressions.aggregate.{Aggregation, CountStar}
import org.apache.spark.sql.connector.expressions.filter.Predicate
import org.apache.spark.sql.connector.read.{
  Batch, InputPartition, LocalScan, PartitionReaderFactory, Scan, ScanBuilder, SupportsPushDownAggregates,
  SupportsPushDownRequiredColumns, SupportsPushDownV2Filters, SupportsRuntimeV2Filtering
}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.{LongType, StructField, StructType}
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import scala.jdk.CollectionConverters._

/** `wholeFragments`: builds the scan of a copy-on-write command (see [[PlainScan]]). */
class PlainScanBuilder(table: PlainTable, options: CaseInsensitiveStringMap, wholeFragments: Boolean = false)
    extends ScanBuilder with SupportsPushDownV2Filters with SupportsPushDownRequiredColumns
    with SupportsPushDownAggregates {
  private var pushed: Array[(Predicate, Filter)] = Array.empty
  private var required: StructType = table.schema()
  private var countStar = false

  /** Every predicate stays for Spark too: Lance's filters only narrow what is read. */
  override def pushPredicates(predicates: Array[Predicate]): Array[Predicate] = {
    pushed = predicates.flatMap(p => V2Predicates.toFilter(p).map(p -> _))
    predicates
  }

  override def pushedPredicates(): Array[Predicate] =
    pushed.collect { case (p, f) if LanceSql.render(f, table.plainColumns.lanceColumn).isDefined => p }

  override def pruneColumns(requiredSchema: StructType): Unit = required = requiredSchema

  /** COUNT(*) without filters or grouping: the dataset's row count at the version read. */
  override def pushAggregation(aggregation: Aggregation): Boolean = {
    countStar = aggregation.groupByExpressions().isEmpty &&
      aggregation.aggregateExpressions().toSeq.forall(_.isInstanceOf[CountStar])
    countStar
  }

  override def supportCompletePushDown(aggregation: Aggregation): Boolean = pushAggregation(aggregation)

  override def build(): Scan = if (countStar) plainScan().countScan else plainScan()

  def plainScan(): PlainScan = new PlainScan(
    table,
    required,
    pushed.map(_._2).toSeq,
    SplitSizing.of(table.name(), options, table.config, SQLConf.get),
    wholeFragments)
}

/**
 * `required`: the columns Spark reads, possibly with the metadata columns [[FragmentColumn]] and
 * [[RowAddressColumn]] (a merge-on-read command's row id). `wholeFragments`: the
 * scan of a copy-on-write DELETE, UPDATE or MERGE, which returns every row of the fragments it
 * reads (the command replaces them); Spark may narrow it at run time to the fragments holding
 * rows the command changes.
 */
class PlainScan(
    table: PlainTable,
    required: StructType,
    filters: Seq[Filter],
    sizing: SplitSizing,
    wholeFragments: Boolean)
    extends Scan with Batch with SupportsRuntimeV2Filtering {

  /** Whether Spark reads the metadata column `name` (a column of the table by that name hides it). */
  private def metadata(name: String) =
    required.exists(_.name == name) && !table.plainColumns.fields.exists(_.name.equalsIgnoreCase(name))
  private val fragmentColumn = metadata(FragmentColumn.Name)
  private val rowAddressColumn = metadata(RowAddressColumn.Name)
  private val dataSchema = StructType(required.filterNot(f =>
    (fragmentColumn && f.name == FragmentColumn.Name) || (rowAddressColumn && f.name == RowAddressColumn.Name)))
  private val leafFilters = if (wholeFragments) Seq.empty
  else filters.flatMap(f => LanceSql.render(f, table.plainColumns.lanceColumn).map(LeafFilter(_, f.references.toSeq)))

  /** The columns in the order [[LeafReaderFactory]] returns them: data, `_rowaddr`, `_fragment`. */
  override def readSchema(): StructType = {
    val withAddress = if (rowAddressColumn) dataSchema.add(RowAddressColumn.field) else dataSchema
    if (fragmentColumn) withAddress.add(FragmentColumn.field) else withAddress
  }

  override def toBatch: Batch = this

  override def description(): String =
    s"${table.name()} [plain Lance table, version=${table.lanceVersion}, filters=${filters.mkString(", ")}]"

  /** The fragments at the version read, each with its share of the dataset's bytes. */
  private lazy val fragments: Seq[(Int, Long)] =
    table.withDataset() { ds =>
      val rows = ds.getFragments.asScala.toSeq.map(f => f.getId -> f.metadata().getPhysicalRows)
      val total = math.max(1L, rows.map(_._2).sum)
      val bytes = ds.calculateDataSize()
      rows.map { case (id, n) => id -> bytes * n / total }
    }

  /** The fragment ids a runtime filter keeps (see [[filter]]); None: all. */
  private var runtimeIds: Option[Set[Int]] = None

  /** The fragments read: all, or those the runtime filter keeps. A copy-on-write command replaces these. */
  def fragmentsRead: Seq[Int] = fragments.map(_._1).filter(id => runtimeIds.forall(_(id)))

  override def filterAttributes(): Array[NamedReference] =
    if (wholeFragments && fragmentColumn) Array(Expressions.column(FragmentColumn.Name)) else Array.empty

  /** Keeps the fragments a `_fragment IN (...)` predicate names; other predicates keep all. */
  override def filter(predicates: Array[Predicate]): Unit = predicates.foreach { p =>
    p.children().toSeq match {
      case (ref: NamedReference) +: values
          if p.name() == "IN" && ref.fieldNames().sameElements(Array(FragmentColumn.Name)) =>
        val ids = values.collect { case l: Literal[_] if l.value() != null => l.value().toString.toInt }.toSet
        runtimeIds = Some(runtimeIds.fold(ids)(_ intersect ids))
      case _ =>
    }
  }

  /** Fragments packed by size as partition tables are; a split reads its fragments in one Lance
   * scan, or one after the other when each row says its fragment. */
  override def planInputPartitions(): Array[InputPartition] = {
    val read = fragmentsRead.toSet
    val packed =
      PartitionedScan.pack(fragments.collect { case (id, bytes) if read(id) => fragment(Seq(id)) -> bytes }, sizing)
    packed.map(split =>
      PackedSplit(if (fragmentColumn) split else Seq(fragment(split.flatMap(_.fragments.get))))).toArray
  }

  private def fragment(ids: Seq[Int]): LeafPartition =
    LeafPartition(table.uri, Some(table.lanceVersion), Map.empty, ids.mkString(","), Some(ids), table.branch)

  override def createReaderFactory(): PartitionReaderFactory =
    new LeafReaderFactory(
      dataSchema.fields.toSeq.map(f =>
        table.plainColumns.fields.find(_.name == f.name).get.copy(dataType = f.dataType)),
      table.plainColumns.fields,
      leafFilters,
      fragmentColumn,
      table.lance,
      rowAddress = rowAddressColumn
    )

  def countScan: Scan = new LocalScan {
    override def readSchema(): StructType = StructType(Seq(StructField("count(*)", LongType, nullable = false)))
    override def rows(): Array[InternalRow] =
      Array(InternalRow(table.withDataset()(_.countRows())))
    override def description(): String = s"${PlainScan.this.description()} COUNT(*) from metadata"
  }
}
