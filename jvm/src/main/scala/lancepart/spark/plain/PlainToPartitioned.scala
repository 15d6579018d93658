// A plain Lance table becoming a partitioned one (ALTER TABLE ... ADD PARTITION FIELD on a table
// created without PARTITIONED BY): its dataset, moved whole into the new table's directory, is the one
// partition table of spec v1, which has no fields; the requested fields start the next spec.
package lancepart.spark.plain

import lancepart.manifest.{ManifestRow, ManifestStore, Naming}
import lancepart.spark.Warehouse
import lancepart.spec.TableMetadata

import scala.util.control.NonFatal

object PlainToPartitioned {

  /**
   * Makes `plain` the partitioned table `store` with metadata `meta` (its first spec without
   * fields, its current spec the requested one). `__manifest` is created without metadata (no
   * table yet) and given its rows, the dataset is moved to the leaf's directory, and one metadata
   * commit then makes the partitioned table appear, its rows the plain table's. A failure before
   * that commit moves the dataset back and removes the new directory: the plain table stays as it
   * was.
   */
  def convert(warehouse: Warehouse, plain: PlainTable, store: ManifestStore, meta: TableMetadata): Unit = {
    val unpartitioned = meta.specs.minBy(_.id)
    require(unpartitioned.fields.isEmpty && meta.currentSpec.id != unpartitioned.id, "a spec without fields first")
    val leaf = Naming.objectId(Seq(unpartitioned.namespace, Naming.LeafName))
    val location = Naming.location(leaf, Naming.randomName())
    val rows = Seq(
      ManifestRow(unpartitioned.namespace, Naming.NamespaceType, None, None, Map.empty),
      ManifestRow(leaf, Naming.TableType, Some(location), None, Map.empty),
      ManifestRow(meta.currentSpec.namespace, Naming.NamespaceType, None, None, Map.empty)
    )
    store.createEmpty(meta.allFields, Some(plain.fileVersion))
    var moved = false
    try {
      store.upsert(rows)
      warehouse.moveDirectory(plain.uri, store.leafUri(location))
      moved = true
      store.publish(Map.empty, meta.stored)
    } catch {
      case NonFatal(e) =>
        try {
          if (moved) warehouse.moveDirectory(store.leafUri(location), plain.uri)
          warehouse.delete(store.tableUri)
        } catch { case NonFatal(undo) => e.addSuppressed(undo) }
        throw new IllegalStateException(
          s"table ${plain.name()}: could not make the plain Lance table partitioned: ${e.getMessage}" +
            (if (moved && warehouse.exists(store.leafUri(location))) s"; its dataset is at ${store.leafUri(location)}"
             else ""),
          e
        )
    }
  }
}
