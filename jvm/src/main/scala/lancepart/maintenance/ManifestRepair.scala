// Repairs a __manifest that another client rewrote without the partition_field_* and
// read_version columns, from the values each lancepart row keeps in its metadata JSON; rows of
// tables another client created keep no values and are recorded as read by every scan.
package lancepart.maintenance

import lancepart.manifest.{ManifestQuery, ManifestRow, ManifestStore, Naming, RowMetadata, TableFiles}
import lancepart.spec.{BoundField, TableMetadata, TransactionMode}

import scala.jdk.CollectionConverters._

/** What a repair did: rows whose restored columns were written; the partition table rows
 * another client declared and never created, whose values stay NULL (they read as empty); and
 * the partition tables without partition values, read by every scan (see
 * [[TableMetadata.unpartitioned]]). */
case class RepairResult(restoredRows: Int, declaredWithoutValues: Seq[String], unpartitioned: Seq[String])

object ManifestRepair {
  import ManifestStore._

  private val log = org.slf4j.LoggerFactory.getLogger(getClass)

  /**
   * Restores the `partition_field_*` columns of the declared specs and the `read_version` column
   * (of a table lancepart wrote, or when a row's metadata holds a read_version) that another
   * client's rewrite of `__manifest` dropped (Lance's DirectoryNamespace keeps only its own
   * columns), from the values every lancepart row keeps in its `metadata` JSON: the columns are
   * added (NULL), then every row gets the restored columns' values in one commit, which writes
   * no other column. Returns the number of rows restored (0 when no column is missing).
   *
   * A partition table row whose metadata lacks a value of a restored column is another
   * client's, and its values are not guessed: they stay NULL. When its table was declared and
   * never created (its location holds only Lance's reservation, see
   * [[TableFiles.isDeclaredOnly]]) it holds no rows and reads as empty; otherwise its object id
   * is recorded in [[TableMetadata.UnpartitionedKey]], so that every scan reads it and Spark
   * evaluates the partition filters on its rows. The result names both kinds. Rows recorded
   * that the manifest no longer has are forgotten (which makes partition filters exact again
   * once none is left). While the columns are added but not yet filled the table metadata
   * holds [[ManifestStore.RepairInProgressKey]], so that readers refuse the table instead of
   * pruning on NULLs; an interrupted repair is finished by running it again. `progress`
   * counts the rows read, then the commit.
   */
  def run(store: ManifestStore, files: TableFiles, progress: Progress): RepairResult = {
    val declared = Seq.newBuilder[String]
    val unpartitioned = Set.newBuilder[String]
    val (meta, missing, restored, rows, tableIds) = store.lance.withDataset(store.uri) { ds =>
      val props = ds.getTableMetadata.asScala.toMap
      val meta = TableMetadata.fromProperties(props, store.table)
      val present = ds.getSchema.getFields.asScala.map(_.getName).toSet
      val interrupted = props.contains(RepairInProgressKey)
      val scanned =
        store.scan(ds, ManifestQuery.all, Seq(ObjectId, ObjectType, Location) ++ Seq(Metadata).filter(present))
      val types = meta.allFields.map(f => f.fieldId -> f.valueType).toMap
      val kept = scanned.map(r =>
        r(ObjectId).toString -> Option(r.getOrElse(Metadata, null)).map(m =>
          RowMetadata.parse(m.toString, types, store.table, r(ObjectId).toString))).toMap
      // lancepart's tables (they state their mode) had the column; another writer's needs it when
      // its rows kept read_versions
      val readVersionNeeded =
        props.contains(TransactionMode.Key) || kept.values.exists(_.exists(_.readVersion.isDefined))
      val readVersion = if (readVersionNeeded) Seq(ReadVersion) else Seq.empty
      val missing =
        (meta.allFields.map(_.arrowField) ++ readVersion.map(ManifestStore.arrowSchema(Seq.empty).findField))
          .filterNot(f => present(f.getName))
      // An interrupted repair may have added columns it did not fill: all are filled again.
      val restored = if (interrupted) meta.allFields.map(_.column) ++ readVersion else missing.map(_.getName)
      progress.start((if (restored.isEmpty) 0 else scanned.size) + 1L)
      val rows = if (restored.isEmpty) Seq.empty
      else scanned.map { r =>
        val objectId = r(ObjectId).toString
        val metadata = kept(objectId)
        if (r(ObjectType).toString == Naming.TableType) {
          val lacking = unrecoverable(meta, objectId, metadata, restored.toSet)
          if (lacking.nonEmpty) {
            if (Option(r(Location)).exists(l => files.isDeclaredOnly(l.toString))) declared += objectId
            else unpartitioned += objectId
          }
        }
        progress.advance()
        ManifestRow(
          objectId,
          r(ObjectType).toString,
          None,
          metadata.flatMap(_.readVersion),
          metadata.fold(Map.empty[String, Any])(_.values))
      }
      val tableIds = scanned.filter(_(ObjectType).toString == Naming.TableType).map(_(ObjectId).toString).toSet
      (meta, missing, restored, rows, tableIds)
    }
    val found = unpartitioned.result()
    val recorded = meta.unpartitioned.intersect(tableIds) ++ found
    if (restored.nonEmpty) {
      store.updateMetadata(Map(RepairInProgressKey -> "true"))
      record(store, meta.unpartitioned, recorded)
      store.addColumns(missing)
      store.upsert(rows, Some(c => c == ObjectId || c == ObjectType || restored.contains(c)))
      store.removeMetadata(RepairInProgressKey)
    } else record(store, meta.unpartitioned, recorded)
    progress.advance()
    val result = RepairResult(rows.size, declared.result(), recorded.toSeq.sorted)
    if (result.declaredWithoutValues.nonEmpty) log.warn(s"table ${store.table}: repair left the partition values of " +
      s"tables declared and never created NULL: ${result.declaredWithoutValues.mkString(", ")}")
    if (found.nonEmpty) log.warn(s"table ${store.table}: partition tables another client created have no partition " +
      s"values; every scan reads them: ${found.toSeq.sorted.mkString(", ")}")
    result
  }

  /** Stores the object ids of the partition tables without partition values when they changed. */
  private def record(store: ManifestStore, before: Set[String], after: Set[String]): Unit =
    if (after != before) {
      if (after.isEmpty) store.removeMetadata(TableMetadata.UnpartitionedKey)
      else store.updateMetadata(Map(TableMetadata.UnpartitionedKey -> TableMetadata.unpartitionedJson(after)))
    }

  /** The fields of a partition table row's spec version whose restored column the row's metadata
   * holds no value for. */
  private def unrecoverable(
      meta: TableMetadata,
      objectId: String,
      metadata: Option[RowMetadata],
      restored: Set[String]): Seq[BoundField] =
    for (spec <- Naming.specVersion(objectId).flatMap(v => meta.specs.find(_.id == v)).toSeq; f <- spec.fields
      if restored(f.column) && !metadata.exists(_.values.contains(f.fieldId))) yield f
}
