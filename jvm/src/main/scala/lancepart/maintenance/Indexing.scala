// Index builds on partition tables (Lance's scalar and vector indexes) as one transaction: the
// driver plans one job per partition table at the version the manifest reads, executors build
// each table's index over all its fragments without committing it ([[Indexing.build]]), and the
// Committer commits every table's index and one __manifest commit. An index replaces the
// partition table's index of its name. Dropping an index is one such transaction too.
package lancepart.maintenance

import lancepart.lance.{DescribedIndex, IndexedField, Lance, LanceAccess, LeafIndexes, LeafSchema}
import lancepart.manifest.{Manifest, ManifestRow, ManifestStore}
import lancepart.spec.SchemaField
import lancepart.txn.{Committer, LeafIndex, PartitionDirectory, TableWrite}
import org.apache.arrow.vector.types.pojo.ArrowType
import org.lance.Dataset
import org.lance.index.{DistanceType, Index, IndexOptions, IndexParams, IndexType}
import org.lance.index.scalar.{InvertedIndexParams, ScalarIndexParams}
import org.lance.index.vector.{
  HnswBuildParams, IvfBuildParams, PQBuildParams, SQBuildParams, VectorIndexParams, VectorTrainer
}

import java.util.{Optional, UUID}
import scala.collection.compat._
import scala.jdk.CollectionConverters._
import scala.util.Try
import scala.util.control.NonFatal

/** An index named `name` of `kind` over namespace column `column` of `table`, with Lance's `options`. */
case class IndexSpec(table: String, column: SchemaField, kind: IndexKind, name: String, options: IndexSettings)

/** One partition table to index: `objectId` at `uri`, at version `version`, whose columns map to
 * the namespace's `namespace` fields. */
case class IndexJob(objectId: String, uri: String, version: Long, namespace: Seq[SchemaField], spec: IndexSpec)

/** What an index build did: partition tables indexed, those left without (no rows, too few rows
 * to train a vector index on, or no such column yet), and the rows indexed. */
case class IndexResult(indexedTables: Int, skippedTables: Int, indexedRows: Long)

/** An index Lance built and has not committed, as executors send it to the driver. */
case class BuiltIndex(
    uuid: String,
    fields: Seq[Int],
    name: String,
    datasetVersion: Long,
    fragments: Seq[Int],
    details: Option[Array[Byte]],
    indexVersion: Int,
    indexType: String,
    rows: Long) {
  def toLance: Index = {
    val builder = Index.builder().uuid(UUID.fromString(uuid)).fields(fields.map(Int.box).asJava).name(name)
      .datasetVersion(datasetVersion).fragments(fragments.map(Int.box).asJava).indexVersion(indexVersion)
      .indexType(IndexType.valueOf(indexType))
    details.foreach(builder.indexDetails)
    builder.build()
  }
}

object BuiltIndex {
  def of(index: Index, rows: Long): BuiltIndex = BuiltIndex(
    index.uuid().toString,
    index.fields().asScala.map(_.intValue).toSeq,
    index.name(),
    index.datasetVersion(),
    index.fragments().orElse(java.util.List.of()).asScala.map(_.intValue).toSeq,
    Option(index.indexDetails().orElse(null)),
    index.indexVersion(),
    index.indexType().name(),
    rows
  )
}

/** The options an index build takes, checked against those its kind knows (Lance's names). */
case class IndexSettings(table: String, kind: String, values: Map[String, String]) {
  def int(key: String, default: => Int): Int = values.get(key).fold(default)(v =>
    Try(v.trim.toInt).filter(_ > 0).getOrElse(fail(s"option '$key' takes a positive whole number, not '$v'")))

  def bool(key: String, default: Boolean): Boolean = values.get(key).fold(default)(v =>
    Try(v.trim.toLowerCase.toBoolean).getOrElse(fail(s"option '$key' takes true or false, not '$v'")))

  def string(key: String, default: String): String = values.getOrElse(key, default)

  def distance: DistanceType = {
    val name = string("distance_type", "l2").toLowerCase
    Lance.Distances.getOrElse(name, fail(s"option 'distance_type' takes l2, cosine or dot, not '$name'"))
  }

  def fail(message: String): Nothing = throw new IllegalArgumentException(s"table $table: create_index $kind: $message")

  /** Reads every option given, so that a bad value fails before any index is built. */
  def check(): Unit = values.keys.foreach {
    case "distance_type" => distance
    case key if IndexSettings.Flags(key) => bool(key, default = false)
    case key if IndexSettings.Strings(key) => string(key, "")
    case key => int(key, 1)
  }
}

object IndexSettings {
  private val Flags = Set("with_position", "lower_case", "stem", "remove_stop_words", "ascii_folding")
  private val Strings = Set("base_tokenizer", "language")
}

/** An index type create_index builds: Lance's `lanceType`, taking the options `optionNames`. */
sealed abstract class IndexKind(val name: String, val lanceType: IndexType, val optionNames: Seq[String])
    extends Serializable {
  def isVector: Boolean

  /** The type's name in Lance's index statistics. */
  def statisticsName: String

  /** Where Lance's index statistics record the options the index was built with: option name to
   * path (map keys and list positions) in the statistics. */
  protected def recorded: Map[String, Seq[Any]] = Map.empty

  /** The options that build the index `statistics` (Lance's statistics of an index of this kind)
   * describes again; those Lance does not record take their defaults. */
  def options(statistics: java.util.Map[String, Object]): Map[String, String] = recorded.flatMap {
    case (option, path) =>
      path.foldLeft(Option[Any](statistics)) {
        case (Some(m: java.util.Map[_, _]), key: String) => Option(m.get(key))
        case (Some(l: java.util.List[_]), i: Int) if i < l.size() => Option(l.get(i))
        case _ => None
      }.map(v => option -> v.toString)
  }

  /** The fewest rows a partition table needs for this index (vector indexes train on its rows). */
  def minRows(settings: IndexSettings): Long = 1

  /** Lance's parameters for the index over `column` of `ds`, which holds `rows` rows. */
  def params(ds: Dataset, column: String, rows: Long, settings: IndexSettings): IndexParams
}

object IndexKind {

  private abstract class Scalar(name: String, lanceType: IndexType, optionNames: Seq[String] = Seq.empty)
      extends IndexKind(name, lanceType, optionNames) {
    override def isVector: Boolean = false
    protected def scalar(settings: IndexSettings): ScalarIndexParams
    override def params(ds: Dataset, column: String, rows: Long, settings: IndexSettings): IndexParams =
      IndexParams.builder().setScalarIndexParams(scalar(settings)).build()
  }

  private abstract class Vector(name: String, lanceType: IndexType, optionNames: Seq[String])
      extends IndexKind(
        name,
        lanceType,
        Seq("distance_type", "num_partitions", "max_iters", "sample_rate") ++ optionNames) {
    override def isVector: Boolean = true
    override def minRows(settings: IndexSettings): Long = settings.int("num_partitions", 1)
    override protected def recorded: Map[String, Seq[Any]] = Map(
      "distance_type" -> Seq("indices", 0, "metric_type"),
      "num_partitions" -> Seq("indices", 0, "num_partitions"))

    /** IVF parameters with centroids trained on `ds` (Lance trains them itself only when it commits). */
    protected def ivf(ds: Dataset, column: String, rows: Long, settings: IndexSettings): IvfBuildParams = {
      val builder = new IvfBuildParams.Builder()
        .setNumPartitions(settings.int("num_partitions", math.max(1, math.sqrt(rows.toDouble).toInt)))
        .setMaxIters(settings.int("max_iters", 50)).setSampleRate(settings.int("sample_rate", 256))
      builder.setCentroids(VectorTrainer.trainIvfCentroids(ds, column, builder.build(), settings.distance)).build()
    }
  }

  private object BTree extends Scalar("BTREE", IndexType.BTREE) {
    override def statisticsName: String = "BTree"
    override protected def scalar(settings: IndexSettings): ScalarIndexParams = ScalarIndexParams.create("btree")
  }

  private object Bitmap extends Scalar("BITMAP", IndexType.BITMAP) {
    override def statisticsName: String = "Bitmap"
    // One shard: the whole partition table.
    override protected def scalar(settings: IndexSettings): ScalarIndexParams =
      ScalarIndexParams.create("bitmap", """{"shard_id": 0}""")
  }

  private object Inverted extends Scalar(
        "INVERTED",
        IndexType.INVERTED,
        Seq(
          "base_tokenizer",
          "language",
          "with_position",
          "max_token_length",
          "lower_case",
          "stem",
          "remove_stop_words",
          "ascii_folding")
      ) {
    override def statisticsName: String = "Inverted"
    override protected def recorded: Map[String, Seq[Any]] =
      optionNames.map(o => o -> Seq("indices", 0, "params", o)).toMap

    override protected def scalar(settings: IndexSettings): ScalarIndexParams = InvertedIndexParams.builder()
      .baseTokenizer(settings.string("base_tokenizer", "simple")).language(settings.string("language", "English"))
      .withPosition(settings.bool("with_position", default = false))
      .maxTokenLength(settings.int("max_token_length", 40)).lowerCase(settings.bool("lower_case", default = true))
      .stem(settings.bool("stem", default = true)).removeStopWords(settings.bool("remove_stop_words", default = true))
      .asciiFolding(settings.bool("ascii_folding", default = true))
      .minNgramLength(3).maxNgramLength(3).prefixOnly(false).build()
  }

  private object IvfPq extends Vector("IVF_PQ", IndexType.IVF_PQ, Seq("num_sub_vectors", "num_bits")) {
    override def statisticsName: String = "IVF_PQ"
    override protected def recorded: Map[String, Seq[Any]] = super.recorded ++ Map(
      "num_sub_vectors" -> Seq("indices", 0, "sub_index", "num_sub_vectors"),
      "num_bits" -> Seq("indices", 0, "sub_index", "nbits"))

    override def minRows(settings: IndexSettings): Long =
      math.max(super.minRows(settings), 1L << settings.int("num_bits", 8))

    override def params(ds: Dataset, column: String, rows: Long, settings: IndexSettings): IndexParams = {
      val dimension = ds.getSchema.findField(column).getType.asInstanceOf[ArrowType.FixedSizeList].getListSize
      val subVectors = settings.int("num_sub_vectors", Seq(16, 8).find(dimension % _ == 0).fold(1)(dimension / _))
      val pq = new PQBuildParams.Builder().setNumSubVectors(subVectors).setNumBits(settings.int("num_bits", 8))
        .setMaxIters(settings.int("max_iters", 50)).setSampleRate(settings.int("sample_rate", 256))
      pq.setCodebook(VectorTrainer.trainPqCodebook(ds, column, pq.build(), settings.distance))
      IndexParams.builder().setVectorIndexParams(VectorIndexParams.withIvfPqParams(
        settings.distance,
        ivf(ds, column, rows, settings),
        pq.build())).build()
    }
  }

  private object IvfHnswSq
      extends Vector("IVF_HNSW_SQ", IndexType.IVF_HNSW_SQ, Seq("m", "ef_construction", "num_bits")) {
    override def statisticsName: String = "IVF_HNSW_SQ"
    override protected def recorded: Map[String, Seq[Any]] = super.recorded ++ Map(
      "m" -> Seq("indices", 0, "sub_index", "params", "m"),
      "ef_construction" -> Seq("indices", 0, "sub_index", "params", "ef_construction"),
      "num_bits" -> Seq("indices", 0, "sub_index", "num_bits")
    )

    override def params(ds: Dataset, column: String, rows: Long, settings: IndexSettings): IndexParams =
      IndexParams.builder().setVectorIndexParams(VectorIndexParams.withIvfHnswSqParams(
        settings.distance,
        ivf(ds, column, rows, settings),
        new HnswBuildParams.Builder().setM(settings.int("m", 20)).setEfConstruction(settings.int(
          "ef_construction",
          150))
          .build(),
        new SQBuildParams.Builder().setNumBits(settings.int("num_bits", 8).toShort).build()
      )).build()
  }

  val all: Seq[IndexKind] = Seq(BTree, Bitmap, Inverted, IvfPq, IvfHnswSq)

  /** The kind named `name` (any case), for an index on `table`. */
  def apply(table: String, name: String): IndexKind = all.find(_.name.equalsIgnoreCase(name)).getOrElse(
    throw new IllegalArgumentException(
      s"table $table: create_index has no index type '$name' (types: ${all.map(_.name).mkString(", ")})"))
}

object Indexing {

  /** `options` for `kind`, refused when one is not an option of that kind. */
  def settings(table: String, kind: IndexKind, options: Map[String, String]): IndexSettings = {
    val settings = IndexSettings(table, kind.name, options.map { case (k, v) => k.toLowerCase -> v })
    for (key <- settings.values.keys if !kind.optionNames.contains(key)) settings.fail(
      s"no option '$key' (options: ${if (kind.optionNames.isEmpty) "none" else kind.optionNames.mkString(", ")})")
    settings.check()
    settings
  }

  /** The jobs that index the partition tables `rows` of `store` at the versions its manifest reads. */
  def plan(store: ManifestStore, manifest: Manifest, rows: Seq[ManifestRow], spec: IndexSpec): Seq[IndexJob] =
    Lance.parallel(rows) { row =>
      IndexJob(row.objectId, store.leafUri(row), store.leafVersion(row), manifest.meta.schema.fields, spec)
    }

  /**
   * The jobs that build again, over all their rows, the indexes (all, or the one named `name`) of
   * the partition tables `rows` of `store` that leave rows unindexed (rows written after the
   * build), each with the type and options Lance's statistics record for it, and whether a table
   * of `rows` has an index `name`; fails naming an index of another type than create_index builds.
   */
  def stale(store: ManifestStore, manifest: Manifest, rows: Seq[ManifestRow], name: Option[String])
      : (Seq[IndexJob], Boolean) = {
    val namespace = manifest.meta.schema.fields
    val found = Lance.parallel(rows) { row =>
      val (uri, version) = (store.leafUri(row), store.leafVersion(row))
      val named = store.lance.withDataset(uri, Some(version))(LeafIndexes.of(_, namespace))
        .filter(i => name.forall(_ == i.name))
      named -> named.collect {
        case i @ DescribedIndex(_, _, Seq(IndexedField(_, _, Some(column))), statistics) if i.unindexedRows > 0 =>
          val kind = IndexKind.all.find(_.statisticsName == statistics.get("index_type")).getOrElse(
            throw new IllegalArgumentException(
              s"table ${store.table}: partition table $uri: index '${i.name}' is of type " +
                s"${statistics.get("index_type")}, which create_index does not build; optimize the others by name"))
          val spec = IndexSpec(store.table, column, kind, i.name, settings(store.table, kind, kind.options(statistics)))
          IndexJob(row.objectId, uri, version, namespace, spec)
      }
    }
    (found.flatMap(_._2), found.exists(_._1.nonEmpty))
  }

  /** Builds `job`'s index over every fragment of its partition table without committing it; None
   * when the table has no rows, too few for the index, or no such column yet. */
  def build(lance: LanceAccess, job: IndexJob): (String, Option[BuiltIndex]) = job.objectId -> lance.withDataset(
    job.uri,
    Some(job.version)) { ds =>
    val spec = job.spec
    val column = LeafSchema.find(LeafSchema.columns(ds), spec.column, job.namespace).map(_.name)
    val rows = ds.countRows()
    if (column.isEmpty || rows < spec.kind.minRows(spec.options)) None
    else {
      val fragments = ds.getFragments.asScala.map(f => Int.box(f.getId)).asJava
      try {
        val params = spec.kind.params(ds, column.get, rows, spec.options)
        val options = IndexOptions.builder(java.util.Collections.singletonList(column.get), spec.kind.lanceType, params)
          .withFragmentIds(fragments).withIndexName(spec.name).replace(true).build()
        val index = ds.createIndex(options)
        // Scalar indexes are built in parts, which Lance then merges into the index's files.
        if (!spec.kind.isVector) ds.mergeIndexMetadata(index.uuid().toString, spec.kind.lanceType, Optional.empty())
        Some(BuiltIndex.of(index, rows))
      } catch {
        case NonFatal(e) => throw new IllegalStateException(
            s"table ${spec.table}: partition table ${job.objectId}: Lance could not build the ${spec.kind.name} " +
              s"index '${spec.name}' on column '${spec.column.name}': ${e.getMessage}",
            e
          )
      }
    }
  }

  /** Commits the indexes `built` by `jobs` for partition tables `rows` (as read at `base`; a table
   * may have several jobs, one per index) in one transaction. */
  def commit(
      committer: Committer,
      base: Manifest,
      rows: Seq[ManifestRow],
      jobs: Seq[IndexJob],
      built: Seq[(String, Option[BuiltIndex])]): IndexResult = {
    val indexed = built.collect { case (id, Some(index)) => id -> index }.groupMap(_._1)(_._2)
    val before = rows.map(r => r.objectId -> r).toMap
    val versions = jobs.map(j => j.objectId -> j.version).toMap
    if (indexed.nonEmpty) committer.commit(TableWrite(
      base,
      PartitionDirectory.empty(base.meta.currentSpec),
      Seq.empty,
      indexes = indexed.map { case (id, indexes) =>
        id -> LeafIndex(before(id), versions(id), indexes.map(_.toLance), indexes.map(_.name).toSet)
      }
    ))
    IndexResult(indexed.size, built.map(_._1).distinct.size - indexed.size, indexed.values.flatten.map(_.rows).sum)
  }

  /** Drops the index `name` of the partition tables `rows` of `store` (as read at `base`) that have
   * one, in one transaction; the number of partition tables it was dropped from. */
  def drop(store: ManifestStore, committer: Committer, base: Manifest, rows: Seq[ManifestRow], name: String): Int = {
    val indexed = Lance.parallel(rows) { row =>
      val version = store.leafVersion(row)
      if (store.lance.withDataset(store.leafUri(row), Some(version))(_.listIndexes().contains(name)))
        Some(row.objectId -> LeafIndex(row, version, Seq.empty, Set(name)))
      else None
    }.flatten.toMap
    if (indexed.nonEmpty)
      committer.commit(TableWrite(base, PartitionDirectory.empty(base.meta.currentSpec), Seq.empty, indexes = indexed))
    indexed.size
  }
}
