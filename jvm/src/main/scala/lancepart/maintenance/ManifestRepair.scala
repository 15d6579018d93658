// Repairs a __manifest that another client rewrote without the partition_field_* and
// read_version columns, from the values each lancepart row keeps in its metadata JSON.
package lancepart.maintenance

import lancepart.manifest.{ManifestQuery, ManifestRow, ManifestStore, Naming, RowMetadata}
import lancepart.spec.{FormatException, TableMetadata}
import org.apache.spark.sql.lancepart.ArrowBridge

import scala.jdk.CollectionConverters._

object ManifestRepair {
  import ManifestStore._

  /**
   * Restores the `partition_field_*` and `read_version` columns that another client's rewrite of
   * `__manifest` dropped (Lance's DirectoryNamespace keeps only its own columns), from the values
   * every lancepart row keeps in its `metadata` JSON: the columns are added (NULL), then every row
   * is upserted with its values in one commit. Returns the number of rows restored (0 when no
   * column is missing). A row that needs values and has no metadata fails the repair, naming it,
   * before anything changes. While the columns are added but not yet filled the table metadata
   * holds [[ManifestStore.RepairInProgressKey]], so that readers refuse the table instead of pruning on NULLs; an
   * interrupted repair is finished by running it again. `progress` counts the rows read, then
   * the commit.
   */
  def run(store: ManifestStore, progress: Progress): Int = {
    val (missing, rows, interrupted) = store.lance.withDataset(store.uri) { ds =>
      val props = ds.getTableMetadata.asScala.toMap
      val meta = TableMetadata.fromProperties(props, store.table)
      val present = ds.getSchema.getFields.asScala.map(_.getName).toSet
      val missing = (meta.allFields.map(f => ArrowBridge.toArrowField(f.column, f.valueType, nullable = true)) :+
        ManifestStore.arrowSchema(Seq.empty).findField(ReadVersion)).filterNot(f => present(f.getName))
      val types = meta.allFields.map(f => f.fieldId -> f.valueType).toMap
      val interrupted = props.contains(RepairInProgressKey)
      val scanned = if (missing.isEmpty && !interrupted) Seq.empty else store.scan(ds, ManifestQuery.all, Seq(ObjectId, ObjectType, Location, Metadata))
      progress.start(scanned.size + 1L)
      val rows = scanned.map { r =>
        val objectId = r(ObjectId).toString
        val (values, readVersion) = Option(r(Metadata)).fold((Map.empty[String, Any], Option.empty[Long]))(
          m => RowMetadata.parse(m.toString, types, store.table, objectId))
        val needsValues = objectId.contains(Naming.Delimiter)
        if (needsValues && r(Metadata) == null) throw new FormatException(
          s"table ${store.table}: __manifest row $objectId has no metadata to restore its partition values from; nothing was changed")
        progress.advance()
        ManifestRow(objectId, r(ObjectType).toString, Option(r(Location)).map(_.toString), readVersion, values)
      }
      (missing, rows, interrupted)
    }
    if (missing.nonEmpty || interrupted) {
      store.updateMetadata(Map(RepairInProgressKey -> "true"))
      if (missing.nonEmpty) store.lance.withDataset(store.uri)(_.addColumns(missing.asJava))
      store.upsert(rows)
      store.removeMetadata(RepairInProgressKey)
    }
    progress.advance()
    rows.size
  }
}
