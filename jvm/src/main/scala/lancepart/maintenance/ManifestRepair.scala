// Repairs a __manifest that another client rewrote without the partition_field_* and
// read_version columns, from the values each lancepart row keeps in its metadata JSON.
package lancepart.maintenance

import lancepart.manifest.{ManifestQuery, ManifestRow, ManifestStore, Naming, RowMetadata, TableFiles}
import lancepart.spec.{BoundField, FormatException, TableMetadata, TransactionMode}

import scala.jdk.CollectionConverters._

/** What a repair did: rows whose restored columns were written, and the partition table rows
 * another client declared and never created, whose values stay NULL (they read as empty). */
case class RepairResult(restoredRows: Int, declaredWithoutValues: Seq[String])

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
   * Before anything changes, a partition table row whose metadata lacks a value of a restored
   * column fails the repair, naming the row and the field: its value is not guessed. Rows of
   * tables another client declared and never created (their location holds only Lance's
   * reservation, see [[TableFiles.isDeclaredOnly]]) are the exception: they hold no rows, so
   * their columns stay NULL and the result names them. While the
   * columns are added but not yet filled the table metadata holds
   * [[ManifestStore.RepairInProgressKey]], so that readers refuse the table instead of pruning
   * on NULLs; an interrupted repair is finished by running it again. `progress` counts the rows
   * read, then the commit.
   */
  def run(store: ManifestStore, files: TableFiles, progress: Progress): RepairResult = {
    val declared = Seq.newBuilder[String]
    val (missing, restored, rows) = store.lance.withDataset(store.uri) { ds =>
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
      val missing = (meta.allFields.map(_.arrowField) ++
        Option.when(readVersionNeeded)(ManifestStore.arrowSchema(Seq.empty).findField(ReadVersion))).filterNot(f =>
        present(f.getName))
      // An interrupted repair may have added columns it did not fill: all are filled again.
      val restored = if (interrupted) meta.allFields.map(_.column) ++ Option.when(readVersionNeeded)(ReadVersion)
      else missing.map(_.getName)
      progress.start((if (restored.isEmpty) 0 else scanned.size) + 1L)
      val rows = if (restored.isEmpty) Seq.empty
      else scanned.map { r =>
        val objectId = r(ObjectId).toString
        val metadata = kept(objectId)
        if (r(ObjectType).toString == Naming.TableType) {
          val lacking = unrecoverable(meta, objectId, metadata, restored.toSet)
          if (lacking.nonEmpty) {
            if (Option(r(Location)).exists(l => files.isDeclaredOnly(l.toString))) declared += objectId
            else throw new FormatException(s"table ${store.table}: cannot restore column ${lacking.head.column}: " +
              s"__manifest row $objectId keeps no value of partition field '${lacking.head.fieldId}' in its metadata; " +
              "nothing was changed. A table another client created inside the table's partition namespaces has no " +
              "partition values: remove its row with that client (Lance's DirectoryNamespace: drop_table or " +
              s"deregister_table of id ${objectId.split('$').mkString("[\"", "\", \"", "\"]")}) and run the repair again")
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
      (missing, restored, rows)
    }
    if (restored.nonEmpty) {
      store.updateMetadata(Map(RepairInProgressKey -> "true"))
      if (missing.nonEmpty) store.lance.withDataset(store.uri)(_.addColumns(missing.asJava))
      store.upsert(rows, c => c == ObjectId || c == ObjectType || restored.contains(c))
      store.removeMetadata(RepairInProgressKey)
    }
    progress.advance()
    val result = RepairResult(rows.size, declared.result())
    if (result.declaredWithoutValues.nonEmpty) log.warn(s"table ${store.table}: repair left the partition values of " +
      s"tables declared and never created NULL: ${result.declaredWithoutValues.mkString(", ")}")
    result
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
