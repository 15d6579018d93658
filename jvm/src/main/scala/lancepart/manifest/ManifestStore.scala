// The __manifest table of one partitioned namespace: create, load metadata, query rows, upsert rows.
package lancepart.manifest

import java.util.Collections

import lancepart.arrow.{ArrowTypes, ArrowValues, UnsupportedArrowType}
import lancepart.lance.{DatasetBranches, DatasetTags, Lance, LanceAccess, RootReader}
import lancepart.spec.{BoundField, FormatException, PartitionField, PartitionSpec, TableMetadata, TransactionMode}
import org.apache.arrow.c.{ArrowArrayStream, Data}
import org.apache.arrow.vector.VectorSchemaRoot
import org.apache.arrow.vector.types.pojo.{ArrowType, Field, FieldType, Schema}
import org.apache.spark.sql.catalyst.util.DateTimeUtils
import org.apache.spark.sql.types.{DataType, Decimal}
import org.lance.Dataset
import org.lance.ipc.ScanOptions
import org.lance.merge.MergeInsertParams
import org.lance.operation.{Restore, UpdateConfig, UpdateMap}

import scala.collection.compat._
import scala.collection.mutable.ArrayBuffer
import scala.jdk.CollectionConverters._
import scala.util.Try
import scala.util.control.NonFatal

/** `branch`: the `__manifest` branch this store reads and commits (None: main; see
 * docs/format.md "Branches"). */
class ManifestStore(
    val tableUri: String,
    val table: String,
    val lance: LanceAccess,
    val branch: Option[String] = None) {
  import ManifestStore._

  val uri: String = s"$tableUri/$DirName"

  /** The same table's manifest on branch `name`. */
  def onBranch(name: String): ManifestStore = new ManifestStore(tableUri, table, lance, Some(name))

  /** `f` of `__manifest` at `version` (None: the latest) of this store's branch. */
  private def withManifest[A](version: Option[Long] = None)(f: Dataset => A): A = Lance.using(open(version))(f)

  /** `__manifest` at `version` (None: the latest) of this store's branch; the caller closes it. A
   * branch that is gone (dropped, or replaced while a write ran) says so. */
  private def open(version: Option[Long]): Dataset =
    try lance.open(uri, version, branch)
    catch {
      case NonFatal(e)
          if branch.exists(b => Try(!DatasetBranches.list(lance, uri).exists(_.name == b)).getOrElse(false)) =>
        throw new IllegalStateException(
          s"table $table: branch '${branch.get}' is gone (dropped, or replaced meanwhile); nothing was changed",
          e)
    }

  /** URI of a partition table from its location (relative to the table root). */
  def leafUri(location: String): String = s"$tableUri/$location"

  /** URI of the partition table of a `table` row; a row without a location is refused. */
  def leafUri(row: ManifestRow): String = leafUri(row.location.getOrElse(
    throw new FormatException(s"table $table: partition table ${row.objectId} has no location")))

  /** The version of a partition table that readers read now: its read_version, else (weak mode) its
   * latest (of the branch the row reads). */
  def leafVersion(row: ManifestRow): Long =
    row.readVersion.getOrElse(lance.withDataset(leafUri(row), None, row.readBranch)(_.version()))

  /**
   * A partition table's row count at the version readers read: the stats lancepart recorded, when
   * they are of that version (the one the row pins; in weak mode the leaf's latest, which `latest`
   * gives from the leaf's location: another client may have committed to it since), else from the
   * leaf's Lance metadata.
   */
  def leafRowCount(row: ManifestRow, latest: String => Option[Long]): Long = {
    val read = row.readVersion.orElse(row.stats.flatMap(_ => row.location).flatMap(latest))
    // the stats are of a main-branch version: a row another writer made read a branch counts there
    row.stats.filter(s => row.readBranch.isEmpty && read.contains(s.version)).fold(
      lance.withDataset(leafUri(row), row.readVersion, row.readBranch)(_.countRows()))(_.rows)
  }

  /** Creates `__manifest` with the table's metadata and the `v<N>` row of its spec, in Lance file
   * format `fileVersion` (None: lance-core's default), which new partition tables then take. */
  def create(meta: TableMetadata, fileVersion: Option[String] = None): Unit = {
    createEmpty(meta.allFields, fileVersion)
    updateMetadata(meta.stored)
    upsert(Seq(ManifestRow(meta.currentSpec.namespace, Naming.NamespaceType, None, None, Map.empty)))
  }

  /** Creates `__manifest` with the columns of `fields` and no metadata (no table yet), in Lance
   * file format `fileVersion` (None: lance-core's default). */
  def createEmpty(fields: Seq[BoundField], fileVersion: Option[String] = None): Unit =
    lance.create(uri, arrowSchema(fields), fileVersion)

  /**
   * Adds `next`'s newest spec to a table whose metadata was `current`: first the spec's new
   * `partition_field_*` columns (all NULL), then the `partition_spec_v<N>` property, then the
   * `v<N>` namespace row, so a reader that sees the spec always finds its columns.
   */
  def evolve(current: TableMetadata, next: TableMetadata): Unit = {
    val spec = next.currentSpec
    addColumns(next.allFields.map(_.arrowField))
    val stored = properties()
    if (stored.contains(
        spec.spec.key) || stored.get(TableMetadata.SchemaKey) != current.properties.get(TableMetadata.SchemaKey)) {
      throw new IllegalStateException(s"table $table changed while ${spec.spec.key} was being added; retry")
    }
    requireAddable(latest(current), Seq(spec.namespace), records = false)
    updateMetadata(Map(spec.spec.key -> spec.spec.toJson))
    upsert(Seq(ManifestRow(spec.namespace, Naming.NamespaceType, None, None, Map.empty)))
  }

  /** Adds the columns of `fields` that `__manifest` lacks (all NULL); rows and metadata do not
   * change. Planned again on the latest version when a concurrent row commit preempts it. */
  def addColumns(fields: Seq[Field]): Unit = Lance.replanned(withManifest() { ds =>
    val present = ds.getSchema.getFields.asScala.map(_.getName).toSet
    val added = fields.filterNot(f => present(f.getName))
    if (added.nonEmpty) ds.addColumns(added.asJava)
  })

  /** The Spark type of every `partition_field_*` column, by field id (columns of every spec
   * any version of the table declared). */
  def partitionColumnTypes(): Map[String, DataType] = withManifest()(ds => partitionTypes(ds.getSchema))

  private def partitionTypes(schema: Schema): Map[String, DataType] = schema.getFields.asScala.collect {
    case f if f.getName.startsWith(PartitionField.ColumnPrefix) =>
      f.getName.stripPrefix(PartitionField.ColumnPrefix) ->
        (try ArrowTypes.toSpark(f, s"table $table: __manifest column '${f.getName}'")
        catch { case e: UnsupportedArrowType => throw new FormatException(e.getMessage) })
  }.toMap

  /** Spec versions any `v<N>` namespace row names, declared or not (a staged replace's rows). */
  def specVersionsInRows(): Set[Int] = withManifest() { ds =>
    scan(ds, ManifestQuery.specNamespaces, Seq(ObjectId))
      .flatMap(r => Naming.specVersion(r(ObjectId).toString)).toSet
  }

  /**
   * Replaces the whole table metadata with `next` in one commit, refused when it is no longer
   * `expected` (the stored map a staged CREATE or REPLACE started from). Rows of spec versions
   * `next` does not declare are no part of the table from then on.
   */
  def publish(expected: Map[String, String], next: Map[String, String]): Unit =
    withManifest() { ds =>
      if (ds.getTableMetadata.asScala.toMap != expected) throw new IllegalStateException(
        s"table $table changed while it was being created or replaced; nothing was changed, retry")
      val update = UpdateConfig.builder()
        .tableMetadataUpdates(UpdateMap.builder().updates(next.asJava).replace(true).build()).build()
      Lance.using(ds.newTransactionBuilder().operation(update).build())(_.commit().close())
    }

  /** Deletes the rows with object ids `ids` (a Lance delete, rebased over concurrent commits). */
  def deleteRows(ids: Seq[String]): Unit = if (ids.nonEmpty) withManifest()(_.delete(ManifestQuery.byId(ids)))

  /** Deletes every row of spec versions `versions` (their namespaces, leaves and records). */
  def deleteSpecVersions(versions: Seq[Int]): Unit = if (versions.nonEmpty) {
    withManifest()(_.delete(ManifestQuery.specVersionRows(versions)))
  }

  /** Stores `next` as the table's schema (one table-metadata commit); refused when the stored
   * schema is no longer `current`'s. Partition tables are not rewritten. */
  def updateSchema(current: TableMetadata, next: TableMetadata): Unit = {
    if (properties().get(TableMetadata.SchemaKey) != current.properties.get(TableMetadata.SchemaKey)) {
      throw new IllegalStateException(s"table $table changed while its schema was being altered; retry")
    }
    updateMetadata(Map(TableMetadata.SchemaKey -> next.schema.json))
  }

  /** Sets table properties (keys of the `__manifest` table metadata) in one commit. */
  def updateMetadata(updates: Map[String, String]): Unit = commitMetadata(_ => updates, replace = false)

  /** Removes `key` from the table properties (the whole map is rewritten without it). */
  def removeMetadata(key: String): Unit = commitMetadata(_ - key, replace = true)

  private def commitMetadata(updates: Map[String, String] => Map[String, String], replace: Boolean): Unit =
    withManifest() { ds =>
      val map = updates(ds.getTableMetadata.asScala.toMap)
      val update = UpdateConfig.builder()
        .tableMetadataUpdates(UpdateMap.builder().updates(map.asJava).replace(replace).build()).build()
      Lance.using(ds.newTransactionBuilder().operation(update).build())(_.commit().close())
    }

  /** The table metadata and manifest version, checked against the manifest's columns. */
  def load(): Manifest = loadIfPartitioned().getOrElse(
    throw new FormatException(s"table $table: the __manifest metadata has no partition_spec_v<N> property"))

  /** The table as it was at manifest `version` (time travel). */
  def loadAt(version: Long): Manifest = {
    val found =
      try withManifest(Some(version))(read)
      catch {
        case e: FormatException =>
          val at = new FormatException(s"${e.getMessage} (at manifest version $version)")
          at.initCause(e)
          throw at
        // a version that is there but cannot be opened now (storage failing) is not reported gone
        case NonFatal(e) if !committed().exists(_.version == version) =>
          throw new IllegalArgumentException(s"table $table has no manifest version $version", e)
      }
    found.getOrElse(throw new FormatException(s"table $table: manifest version $version declares no partition spec"))
  }

  /** The version that manifest version `version` restored, when it is a rollback (a Lance `Restore`). */
  def restoredAt(version: Long): Option[Long] =
    withManifest(Some(version))(ds => Lance.operation(ds).collect { case r: Restore => r.version() })

  /** The newest manifest version committed at or before `micros` (microseconds since the epoch;
   * TIMESTAMP AS OF), or strictly before it when `strictly` (rollback_to_timestamp, as Iceberg's). */
  def versionAt(micros: Long, strictly: Boolean = false): Long = {
    val versions = committed()
    val limit = DateTimeUtils.microsToInstant(micros)
    val at = versions.filter(v => if (strictly) v.at.isBefore(limit) else !v.at.isAfter(limit))
    if (at.isEmpty) throw new IllegalArgumentException(
      s"table $table has no manifest version ${if (strictly) "before" else "at or before"} $limit; the first is " +
        s"from ${versions.headOption.fold("-")(_.at.toString)}")
    at.map(_.version).max
  }

  /** Makes manifest `version` the latest again (a Lance restore: a new version with its rows and
   * table metadata); returns the new version. */
  def restore(version: Long): Long = withManifest(Some(version)) { ds =>
    ds.restore()
    latestVersion()
  }

  /** The latest manifest version. */
  def latestVersion(): Long = withManifest()(_.version())

  /** Every manifest version, oldest first. */
  def versions(): Seq[Long] = withManifest()(_.listVersions().asScala.map(_.getId).toSeq)

  /** Every manifest version with the time it was committed, oldest first. */
  def committed(): Seq[ManifestVersion] =
    withManifest()(_.listVersions().asScala.map(v => ManifestVersion(v.getId, v.getDataTime.toInstant)).toSeq)

  /** As [[load]], or None when the manifest declares no partition spec (a plain namespace):
   * one open of `__manifest` tells both. */
  def loadIfPartitioned(): Option[Manifest] = withManifest()(read)

  private def read(ds: Dataset): Option[Manifest] = {
    val props = ds.getTableMetadata.asScala.toMap
    if (!TableMetadata.isPartitioned(props)) None
    else {
      if (props.contains(RepairInProgressKey)) throw new FormatException(
        s"table $table: a repair of its __manifest did not finish; run Admin.repair('$table') again")
      val declared = TableMetadata.fromProperties(props, table)
      checkColumns(declared, props, ds.getSchema)
      // A table of another writer states no mode: it is strong when its rows pin leaf versions.
      val meta = if (props.contains(TransactionMode.Key) || !pinsVersions(ds)) declared
      else declared.copy(mode = TransactionMode.Strong)
      val readRefs = ReadRefs.filter(c => has(ds, c) && ds.countRows(ManifestQuery.tablesWith(c)) > 0)
      Some(Manifest(
        meta,
        ds.version(),
        ds.getLanceFileFormatVersion,
        foreignNotNull(ds, declared),
        committedAt(ds),
        readRefs))
    }
  }

  /** The latest manifest version with `meta` in force (a staged table's view, before its
   * metadata is published). */
  def latest(meta: TableMetadata): Manifest =
    withManifest()(ds =>
      Manifest(meta, ds.version(), ds.getLanceFileFormatVersion, foreignNotNull(ds, meta), committedAt(ds)))

  private def committedAt(ds: Dataset): java.time.Instant = ds.getVersion.getDataTime.toInstant

  private def pinsVersions(ds: Dataset): Boolean =
    has(ds, ReadVersion) && ds.countRows(ManifestQuery.pinnedTables) > 0

  /** The table metadata map of `__manifest`, or None when the directory has no manifest. */
  def properties(): Map[String, String] =
    withManifest()(_.getTableMetadata.asScala.toMap)

  /** Rows matching a Lance SQL `filter`, read at `manifest.version`; the filter runs inside Lance.
   * `keep`: for a scan, whose next query of the same version and filter takes the rows read now
   * ([[ManifestRowCache]]; the version is still opened, which tells whether it is still there),
   * unless a row reads its partition table at a tag, which another client may move. */
  def rows(manifest: Manifest, filter: String, keep: Boolean = false): Seq[ManifestRow] =
    atVersion(manifest.version) { ds =>
      val fields = manifest.meta.allFields
      // only rows of the version `manifest` describes (a table made anew at this location restarts
      // its version numbers)
      val key = if (keep && committedAt(ds) == manifest.committedAt)
        Some(RowsKey(
          uri,
          branch,
          manifest.version,
          manifest.committedAt,
          filter,
          fields.map(f => f.fieldId -> f.column),
          manifest.meta.unpartitioned))
      else None
      key.flatMap(ManifestRowCache.get).getOrElse {
        val (found, atTags) = rowsIn(ds, manifest, fields, filter)
        if (!atTags) key.foreach(ManifestRowCache.put(_, found))
        found
      }
    }

  /** [[rows]] read from `ds`, and whether a row reads its partition table at a tag. */
  private def rowsIn(ds: Dataset, manifest: Manifest, fields: Seq[BoundField], filter: String)
      : (Seq[ManifestRow], Boolean) = {
    val optional = (ReadVersion +: Metadata +: ReadRefs).filter(has(ds, _))
    // each partition table's tag resolved once per call
    val tags = scala.collection.mutable.Map.empty[(Option[String], String), (Option[String], Long)]
    val found = scan(ds, filter, RequiredColumns ++ optional ++ fields.map(_.column)).map { r =>
      val metadata = r.get(Metadata).flatMap(Option(_)).map(_.toString)
      val location = Option(r(Location)).map(_.toString)
      val kept = metadata.flatMap(RowMetadata.objectOf)
      def text(column: String) = r.get(column).flatMap(Option(_)).map(_.toString)
      val (readBranch, readVersion) = text(ReadTag).fold(
        (text(ReadBranch), r.get(ReadVersion).flatMap(Option(_)).map(version))) { tag =>
        val at = tags.getOrElseUpdate((location, tag), tagged(r(ObjectId).toString, location, tag))
        (at._1, Some(at._2))
      }
      ManifestRow(
        objectId = r(ObjectId).toString,
        objectType = r(ObjectType).toString,
        location = location,
        readVersion = readVersion,
        readBranch = readBranch,
        // a table without partition values has none (its NULLs are no values; none is kept in its metadata)
        values = if (manifest.meta.unpartitioned(r(ObjectId).toString)) Map.empty
        else fields.map(f => f.fieldId -> r(f.column)).toMap,
        writtenVersion = kept.flatMap(RowMetadata.writtenVersion),
        metadata = metadata,
        stats = kept.flatMap(RowMetadata.stats(_, location)),
        copyOf = kept.flatMap(RowMetadata.copyOf)
      )
    }
    found -> tags.nonEmpty
  }

  /** The branch (None: main) and version of the partition table at `location` that its tag `tag`
   * names (spec, earlier edition: a row that reads its table at a tag); `objectId` names the row. */
  private def tagged(objectId: String, location: Option[String], tag: String): (Option[String], Long) = {
    val uri =
      leafUri(location.getOrElse(throw new FormatException(s"table $table: partition table $objectId has no location")))
    val found = DatasetTags.list(lance, uri).find(_.name == tag).getOrElse(throw new FormatException(
      s"table $table: partition table $objectId reads at tag '$tag' (column $ReadTag), which $uri does not have"))
    (found.branch, found.version)
  }

  /** Rows matching `filter` as column name to value (see [[ArrowValues]]). */
  private[lancepart] def scan(ds: Dataset, filter: String, columns: Seq[String]): Seq[Map[String, Any]] = {
    val options = new ScanOptions.Builder().columns(columns.asJava).filter(filter).batchSize(8192).build()
    val out = ArrayBuffer.empty[Map[String, Any]]
    Lance.using(ds.newScan(options)) { scanner =>
      Lance.using(scanner.scanBatches()) { reader =>
        while (reader.loadNextBatch()) {
          val root = reader.getVectorSchemaRoot
          for (i <- 0 until root.getRowCount) out += columns.map(c => c -> ArrowValues.get(root.getVector(c), i)).toMap
        }
      }
    }
    out.toSeq
  }

  /** Every partition table location the `table` rows of manifest versions `versions` (default:
   * all) refer to, with the versions they pin (`read_version`). Reads each version. */
  def leafReferences(versions: Seq[Long] = this.versions()): Map[String, Set[Long]] = {
    versions.flatMap { v =>
      withManifest(Some(v))(ds =>
        scan(ds, ManifestQuery.leafReferences, Location +: Seq(ReadVersion).filter(has(ds, _))))
    }.groupMapReduce(_(
      Location).toString)(r => r.get(ReadVersion).flatMap(Option(_)).map(version).toSet)(_ ++ _)
  }

  /**
   * What expire_snapshots and vacuum keep ([[leafReferences]]): of main versions `counted` (of the
   * `listed` ones), then of every version of every branch, then of main's versions committed since
   * `listed` was listed, so that a branch published to main (fast_forward) and dropped meanwhile
   * is counted in one or the other (docs/format.md "Branches").
   */
  def keptLeafReferences(listed: Seq[Long], counted: Seq[Long]): Map[String, Set[Long]] = {
    val main = leafReferences(counted)
    val branches = DatasetBranches.names(lance, uri).flatMap(onBranch(_).leafReferences().toSeq)
    val newer = leafReferences(versions().filterNot(listed.toSet))
    (main.toSeq ++ branches ++ newer.toSeq).groupMapReduce(_._1)(_._2)(_ ++ _)
  }

  /**
   * Publishes branch `from` to main (this store): main then reads the partition tables `from`'s
   * latest version reads, when main's own `table` rows are still those of `from`'s version `since`
   * (made from main, or last published to it), whatever else main committed meanwhile (table
   * metadata, records, expiries), as Iceberg's fast-forward needs main to be an ancestor of the
   * branch; None when they are not. One transaction on main (it writes the current spec's
   * namespace row, so a concurrent one makes it a [[ManifestConflict]]): the branch's `table`
   * rows and new namespace rows, main's `table` rows the branch lacks removed, and a
   * `table_version` record of each changed partition table numbered by the version it commits
   * (the branch's own records are numbered by its versions, which main's numbers reach too).
   * Main keeps its table metadata and namespace rows; refused when its partition specs differ from
   * the branch's. Returns main's version before and after (the same when main already reads so).
   */
  def fastForward(from: ManifestStore, since: Long): Option[(Long, Long)] = {
    val main = load()
    val source = from.load()
    val specs = (m: Manifest) => m.meta.properties.filter { case (k, _) => PartitionSpec.versionOfKey(k).isDefined }
    val reads = tablesRead(main)
    if (reads == from.tablesRead(source)) Some((main.version, main.version))
    else if (reads != from.tablesRead(from.loadAt(since))) None
    else if (specs(main) != specs(source)) throw new IllegalStateException(
      s"table $table: main's partition specs changed after branch '${from.branch.getOrElse("")}' was made or last " +
        "published, so its rows cannot be published; nothing was changed")
    else {
      val kept = rows(main, ManifestQuery.entries)
      val mainRows = kept.map(r => r.objectId -> r).toMap
      val branchRows = from.rows(source, ManifestQuery.entries)
      val tables = branchRows.filter(_.objectType == Naming.TableType)
      val namespaces = branchRows.filter(r => r.objectType == Naming.NamespaceType && !mainRows.contains(r.objectId))
      val records = tables.filterNot(r =>
        mainRows.get(r.objectId).exists(m =>
          m.location == r.location && m.readVersion == r.readVersion)).flatMap(r =>
        r.readVersion.map(r.versionRecord(_, main.version + 1)))
      val removed =
        kept.filter(_.objectType == Naming.TableType).map(_.objectId).filterNot(tables.map(_.objectId).toSet)
      val written = tables ++ namespaces ++ records ++ mainRows.get(main.meta.currentSpec.namespace)
      requireAddable(main, written.map(_.objectId).filterNot(mainRows.contains), records = true)
      Some((main.version, commit(main.version, written, removed).version))
    }
  }

  /** What the `table` rows of `manifest` (a version of this store's branch) read: by object id,
   * location, read_version and read_branch. */
  private def tablesRead(manifest: Manifest): Map[String, (Option[String], Option[Long], Option[String])] =
    rows(manifest, ManifestQuery.allTables).map(r => r.objectId -> ((r.location, r.readVersion, r.readBranch))).toMap

  /** Number of partition tables at `manifest.version` whose row pins no version (NULL
   * `read_version`: read at their latest; another writer's rows in a strong-mode table). */
  def unpinnedTableCount(manifest: Manifest): Long = atVersion(manifest.version) { ds =>
    val tables = ManifestQuery.tables(manifest.meta)
    if (has(ds, ReadVersion)) ds.countRows(s"($tables) AND $ReadVersion IS NULL") else ds.countRows(tables)
  }

  /** Number of partition tables at `manifest.version` (of the spec versions it declares). */
  def tableCount(manifest: Manifest): Long =
    atVersion(manifest.version)(_.countRows(ManifestQuery.tables(manifest.meta)))

  /** `f` of `__manifest` at `version`, which a statement planned against: a failure because
   * expire_snapshots removed that version meanwhile says so. */
  private def atVersion[A](version: Long)(f: Dataset => A): A =
    try withManifest(Some(version))(f)
    catch {
      case NonFatal(e) if expired(version) =>
        throw new IllegalStateException(
          s"table $table: manifest version $version, which this statement read, was removed (expire_snapshots) " +
            "while it ran; nothing was changed, run it again",
          e
        )
    }

  /**
   * One atomic `__manifest` commit: rows whose object_id exists are replaced, others inserted
   * (merge_insert keyed on object_id); Lance retries it on top of concurrent commits. Returns
   * the new manifest version. Only `columns` are written (None: those lancepart keeps, [[written]]).
   */
  def upsert(rows: Seq[ManifestRow], columns: Option[String => Boolean] = None): Long =
    withManifest()(mergeInsert(_, rows, Seq.empty, ConflictRetries, columns)._1)

  /**
   * A transaction's commit (spec: Commit Behavior): upserts `rows` and deletes the rows of
   * `removed` in one merge_insert on top of manifest version `expected`, and succeeds only if no
   * other commit that touched a row of `rows` landed after `expected`. Every transaction writes
   * the `v<N>` row of the spec it wrote with, so two transactions never both commit from one
   * version. Throws [[ManifestConflict]] when another one did, or when a table-metadata commit
   * since `expected` changed whether or how a spec version of `rows` is declared: Lance lets rows
   * land on top of it, but a REPLACE that no longer declares their spec leaves them out of the table.
   * So does `expected` not opening because expire_snapshots removed it: that keeps the latest
   * version, so another commit landed after `expected`. (A failure once it opened is this
   * commit's own, which may have landed: it is not retried.) Returns the version committed and
   * the table metadata in force there, which another commit may have changed since `expected`.
   */
  def commit(expected: Long, rows: Seq[ManifestRow], removed: Seq[String]): Committed = {
    val base =
      try open(Some(expected))
      catch { case NonFatal(e) if expired(expected) => throw new ManifestConflict(table, expected, e) }
    Lance.using(base) { ds =>
      val (version, after) =
        try mergeInsert(ds, rows, removed, retries = 0)
        catch { case NonFatal(e) if Lance.isConflict(e) => throw new ManifestConflict(table, expected, e) }
      val before = ds.getTableMetadata.asScala
      val specKeys = rows.filter(_.objectType == Naming.NamespaceType).flatMap(r => Naming.specVersion(r.objectId))
        .map(PartitionSpec.keyOf)
      specKeys.find(k => before.get(k) != after.get(k)).foreach { key =>
        throw new ManifestConflict(
          table,
          expected,
          new IllegalStateException(
            s"$key was replaced or removed while version $version was committed; its rows are no part of the table"))
      }
      Committed(version, after)
    }
  }

  /** Whether manifest version `version` is gone (expire_snapshots); false when that cannot be told. */
  private def expired(version: Long): Boolean = Try(versions()).toOption.exists(!_.contains(version))

  /** The committed version and its table metadata. Writes `columns` (None: those lancepart keeps,
   * [[written]]); the other columns of an updated row, such as `base_objects` and another writer's
   * own, keep their values. */
  private def mergeInsert(
      ds: Dataset,
      rows: Seq[ManifestRow],
      removed: Seq[String],
      retries: Int,
      columns: Option[String => Boolean] = None): (Long, Map[String, String]) = {
    val types = partitionTypes(ds.getSchema)
    val writes = columns.getOrElse(written(ds, rows))
    val schema = new Schema(ds.getSchema.getFields.asScala.filter(f => writes(f.getName)).asJava)
    val inserts = insertsRows(ds, schema, rows)
    Lance.using(VectorSchemaRoot.create(schema, Lance.allocator)) { root =>
      root.allocateNew()
      rows.zipWithIndex.foreach { case (row, i) =>
        root.getFieldVectors.asScala.foreach(v => ArrowValues.set(v, i, columnValue(row, v.getField.getName, types)))
      }
      root.getFieldVectors.asScala.foreach(_.setValueCount(rows.size))
      root.setRowCount(rows.size)
      Lance.using(new RootReader(root, Lance.allocator)) { reader =>
        Lance.using(ArrowArrayStream.allocateNew(Lance.allocator)) { stream =>
          Data.exportArrayStream(Lance.allocator, reader, stream)
          val params = new MergeInsertParams(Collections.singletonList(ObjectId))
            .withMatchedUpdateAll()
            .withNotMatched(
              if (inserts) MergeInsertParams.WhenNotMatched.InsertAll else MergeInsertParams.WhenNotMatched.DoNothing)
            .withConflictRetries(retries)
          if (removed.nonEmpty) params.withNotMatchedBySourceDeleteIf(ManifestQuery.byId(removed))
          val result = ds.mergeInsert(params, stream)
          Lance.using(result.dataset()) { d =>
            val updated = result.stats().numUpdatedRows()
            if (!inserts && updated != rows.size) throw new IllegalStateException(
              s"table $table: __manifest version ${d.version()} was committed without ${rows.size - updated} of " +
                "the rows this write updates: a concurrent commit removed them first; check the table and repeat " +
                "the write")
            (d.version(), d.getTableMetadata.asScala.toMap)
          }
        }
      }
    }
  }

  /**
   * The columns lancepart keeps: the directory namespace's, `metadata`, `read_version`, and the
   * `partition_field_<id>` columns of the fields that a spec declared in `ds`'s table metadata has
   * or `rows` carry values of (a staged REPLACE's spec is declared when it is published). Another
   * writer's `partition_field_*` column of no declared field is its own and is never written.
   */
  private def written(ds: Dataset, rows: Seq[ManifestRow]): String => Boolean = {
    val declared = ds.getTableMetadata.asScala.toSeq.flatMap { case (key, value) =>
      PartitionSpec.versionOfKey(key).toSeq.flatMap(_ => PartitionSpec.parse(value, key, table).fields.map(_.fieldId))
    }
    keeps(declared ++ rows.flatMap(_.values.keys))
  }

  /** The columns lancepart keeps in a table whose partition fields are `fieldIds`. */
  private def keeps(fieldIds: Seq[String]): String => Boolean = {
    val partitionColumns = fieldIds.map(PartitionField.ColumnPrefix + _).toSet
    c => RequiredColumns.contains(c) || c == Metadata || c == ReadVersion || partitionColumns(c)
  }

  /** Another writer's NOT NULL columns of `ds`, a `__manifest` with `meta`. */
  private def foreignNotNull(ds: Dataset, meta: TableMetadata): Seq[String] =
    unfilled(ds, keeps(meta.allFields.map(_.fieldId)))

  /**
   * Refuses, before a transaction changes any partition table, a commit on top of `manifest` that
   * would add rows (those of `ids` it lacks; strong-mode `table_version` records when `records`)
   * while another writer's NOT NULL column has no value lancepart could give them.
   */
  def requireAddable(manifest: Manifest, ids: Seq[String], records: Boolean): Unit =
    if (manifest.foreignNotNull.nonEmpty)
      atVersion(manifest.version)(ds => refuseAdding(ds, ids, records, manifest.foreignNotNull))

  /**
   * Whether a merge of `rows`, writing `schema`'s columns, may insert rows: not when another
   * writer's NOT NULL column is not one of them (Lance refuses inserts then), and the merge then
   * only updates. A row new to `__manifest` is refused before anything is written.
   */
  private def insertsRows(ds: Dataset, schema: Schema, rows: Seq[ManifestRow]): Boolean = {
    val written = schema.getFields.asScala.map(_.getName).toSet
    val columns = unfilled(ds, written)
    refuseAdding(ds, rows.map(_.objectId), records = false, columns)
    columns.isEmpty
  }

  /** Another writer's NOT NULL columns of `__manifest` that a merge writing `written` leaves out. */
  private def unfilled(ds: Dataset, written: String => Boolean): Seq[String] =
    ds.getSchema.getFields.asScala.toSeq.filter(f => !f.isNullable && !written(f.getName)).map(_.getName)

  private def refuseAdding(ds: Dataset, ids: Seq[String], records: Boolean, unfilled: Seq[String]): Unit =
    if (unfilled.nonEmpty) {
      val existing =
        if (ids.isEmpty) Set.empty[String]
        else scan(ds, ManifestQuery.byId(ids), Seq(ObjectId)).map(_(ObjectId).toString).toSet
      val added = ids.find(id => !existing(id)).map(id => s"row '$id'")
        .orElse(if (records) Some("a table_version row (strong mode records every partition table version)") else None)
      added.foreach { what =>
        throw new UnsupportedOperationException(
          s"table $table: cannot add $what to __manifest: its column${if (unfilled.size > 1) "s" else ""} " +
            s"${unfilled.map(c => s"'$c'").mkString(", ")} (another writer's, NOT NULL) " +
            s"need${if (unfilled.size > 1) "" else "s"} a value lancepart does not know; nothing was changed. Make " +
            "the column nullable, or write this partition with the client that added it")
      }
    }

  private def columnValue(row: ManifestRow, column: String, types: Map[String, DataType]): Any = column match {
    case ObjectId => row.objectId
    case ObjectType => row.objectType
    case Location => row.location.orNull
    case Metadata => RowMetadata.json(row, types).orNull
    case ReadVersion => row.readVersion.getOrElse(null)
    case c if c.startsWith(PartitionField.ColumnPrefix) =>
      row.values.getOrElse(c.stripPrefix(PartitionField.ColumnPrefix), null)
    case c => throw new IllegalStateException(s"table $table: __manifest column '$c' is not one lancepart writes")
  }

  /** `read_version` is optional (spec: Transaction), but a table declared strong needs it. */
  private def checkColumns(meta: TableMetadata, props: Map[String, String], schema: Schema): Unit = {
    val present = schema.getFields.asScala.map(_.getName).toSet
    RequiredColumns.filterNot(present).headOption.foreach { c =>
      throw new FormatException(s"table $table: __manifest has no '$c' column")
    }
    if (!present(ReadVersion) && TransactionMode.of(props, table) == TransactionMode.Strong) throw new FormatException(
      s"table $table: __manifest has no '$ReadVersion' column, which ${TransactionMode.Key}=strong needs; another " +
        s"client rewrote the manifest without it. Admin.repair('$table') restores it")
    for (spec <- meta.specs; f <- spec.fields if !present(f.column)) {
      throw new FormatException(
        s"table $table: __manifest has no column '${f.column}' for field '${f.fieldId}' of " +
          s"${spec.spec.key}; another client rewrote the manifest without its partition columns. " +
          s"Admin.repair('$table') restores them from each row's metadata")
    }
  }
}

/** Manifest `version`, committed `at`. */
case class ManifestVersion(version: Long, at: java.time.Instant)

/** The manifest `version` a commit made, and the table metadata (`properties`) in force there. */
case class Committed(version: Long, properties: Map[String, String])

object ManifestStore {
  val DirName = "__manifest"
  val ObjectId = "object_id"
  val ObjectType = "object_type"
  val Location = "location"
  val Metadata = "metadata"
  val BaseObjects = "base_objects"
  val ReadVersion = "read_version"

  /** Columns of the spec's earlier edition that read a partition table at a branch or a tag. */
  val ReadBranch = "read_branch"
  val ReadTag = "read_tag"
  val ReadRefs: Seq[String] = Seq(ReadBranch, ReadTag)

  /** The columns every reader needs; `metadata` and `read_version` are read when present. */
  val RequiredColumns: Seq[String] = Seq(ObjectId, ObjectType, Location)

  private def has(ds: Dataset, column: String): Boolean = ds.getSchema.getFields.asScala.exists(_.getName == column)
  private val ConflictRetries = 20

  /** Table metadata key present while a repair (`lancepart.maintenance.ManifestRepair`) runs:
   * the partition columns may hold NULLs that are no partition values, so the table does not load. */
  val RepairInProgressKey = "lancepart.repair-in-progress"

  /** A `read_version` value: a Lance version number, its unsigned 64 bits as a Long. */
  private def version(v: Any): Long = v match {
    case d: Decimal => d.toJavaBigDecimal.toBigIntegerExact.longValue
    case n: Long => n
  }

  /** Directory-namespace columns, `read_version` and one column per partition field. */
  def arrowSchema(fields: Seq[BoundField]): Schema = {
    val utf8 = new ArrowType.Utf8()
    val pk = Map("lance-schema:unenforced-primary-key:position" -> "0").asJava
    val base = Seq(
      new Field(ObjectId, new FieldType(false, utf8, null, pk), null),
      Field.notNullable(ObjectType, utf8),
      Field.nullable(Location, utf8),
      Field.nullable(Metadata, utf8),
      new Field(
        BaseObjects,
        FieldType.nullable(new ArrowType.List()),
        Collections.singletonList(Field.nullable(ObjectId, utf8))),
      Field.nullable(ReadVersion, new ArrowType.Int(64, false))
    )
    val partition = fields.map(_.arrowField)
    new Schema((base ++ partition).asJava)
  }

}
