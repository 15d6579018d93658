// A plain Lance table becoming a partitioned one (ALTER TABLE ... ADD PARTITION FIELD on a table
// created without PARTITIONED BY): its dataset, put whole into the new table's directory, is the one
// partition table of spec v1, which has no fields; the requested fields start the next spec.
package lancepart.spark.plain

import lancepart.manifest.{ManifestRow, ManifestStore, Naming}
import lancepart.spark.Warehouse
import lancepart.spec.{Json, TableMetadata}

import scala.util.Try
import scala.util.control.NonFatal

object PlainToPartitioned {
  private val log = org.slf4j.LoggerFactory.getLogger(getClass)

  /** `__manifest` metadata of a conversion under way: where the plain dataset was, where it goes,
   * and the table metadata (JSON) whose commit makes the table partitioned. */
  val FromKey = "lancepart.converting.from"
  val ToKey = "lancepart.converting.to"
  val MetadataKey = "lancepart.converting.metadata"

  /**
   * Makes `plain` the partitioned table `store` with metadata `meta` (its first spec without
   * fields, its current spec the requested one). `__manifest` is created with the conversion's
   * record (no table yet: the plain table is the one found) and its rows; the dataset is put at
   * the leaf's directory (renamed; on S3 copied, refused when the plain table got a commit
   * meanwhile); one metadata commit then makes the partitioned table appear, its rows the plain
   * table's; a copied dataset's original is deleted after it. A failure before that commit leaves
   * the plain table as it was, and takes back what it can (the leaf directory of a partial copy or
   * of a rename that failed half-way stays, named in the error, for a later conversion to replace).
   */
  def convert(warehouse: Warehouse, plain: PlainTable, store: ManifestStore, meta: TableMetadata): Unit = {
    val unpartitioned = meta.specs.minBy(_.id)
    require(unpartitioned.fields.isEmpty && meta.currentSpec.id != unpartitioned.id, "a spec without fields first")
    val leaf = Naming.objectId(Seq(unpartitioned.namespace, Naming.LeafName))
    val location = Naming.location(leaf, Naming.randomName())
    val leafUri = store.leafUri(location)
    val rows = Seq(
      ManifestRow(unpartitioned.namespace, Naming.NamespaceType, None, None, Map.empty),
      ManifestRow(leaf, Naming.TableType, Some(location), None, Map.empty),
      ManifestRow(meta.currentSpec.namespace, Naming.NamespaceType, None, None, Map.empty)
    )
    val record = Map(FromKey -> plain.uri, ToKey -> leafUri, MetadataKey -> Json.writeStringMap(meta.stored))
    store.createEmpty(meta.allFields, Some(plain.fileVersion))
    var renamed: Option[Boolean] = None // whether the dataset was renamed or copied to leafUri
    try {
      store.updateMetadata(record)
      store.upsert(rows)
      renamed = Some(warehouse.transferDirectory(plain.uri, leafUri))
      if (renamed.contains(false) && latest(plain) != plain.lanceVersion) throw new IllegalStateException(
        s"another client committed to the plain table while it was copied; nothing was changed, retry")
      store.publish(record, meta.stored)
    } catch {
      case NonFatal(e) if !published(store) =>
        val left = Try(undo(warehouse, plain, store, leafUri, renamed)).fold(
          undone => { e.addSuppressed(undone); s"; its dataset may be at ${plain.uri} or $leafUri" },
          identity)
        throw new IllegalStateException(
          s"table ${plain.name()}: could not make the plain Lance table partitioned: ${e.getMessage}$left",
          e)
    }
    // the copied original goes, unless a commit reached it after the copy: that one the table lacks
    if (renamed.contains(false) && Try(latest(plain)).toOption.contains(plain.lanceVersion))
      Try(warehouse.delete(plain.uri))
    if (warehouse.exists(plain.uri)) log.warn(
      s"table ${plain.name()}: partitioned; the plain dataset at ${plain.uri} stays, and the table does not read " +
        "it: another client committed to it during the conversion (or it could not be deleted); DROP TABLE removes it")
  }

  /**
   * Finishes the conversion `store` records when its dataset was moved but the metadata commit
   * did not happen (the process converting it ended between the two): commits the metadata it
   * recorded. True when the table is partitioned now.
   */
  def finish(warehouse: Warehouse, store: ManifestStore): Boolean = {
    val stored = store.properties()
    (stored.get(FromKey), stored.get(ToKey), stored.get(MetadataKey)) match {
      case (Some(from), Some(to), Some(metadata)) if !warehouse.exists(from) && warehouse.exists(to) =>
        Try(store.publish(stored, Json.stringMap(Json.parse(metadata, s"table ${store.table}: $MetadataKey"))))
        published(store)
      case _ => false
    }
  }

  /** True when `store` holds a conversion of the plain dataset at `from` that did not finish. */
  def pending(store: ManifestStore, from: String): Boolean =
    Try(store.properties().get(FromKey).contains(from)).getOrElse(false)

  /** Takes back a conversion that failed before its metadata commit; what it leaves, for the error. */
  private def undo(
      warehouse: Warehouse,
      plain: PlainTable,
      store: ManifestStore,
      leafUri: String,
      renamed: Option[Boolean]): String = renamed match {
    case Some(true) =>
      warehouse.transferDirectory(leafUri, plain.uri)
      warehouse.delete(store.tableUri)
      ""
    case Some(false) => warehouse.delete(store.tableUri); "" // a copy: the plain dataset is whole
    case None if !warehouse.exists(leafUri) => warehouse.delete(store.tableUri); ""
    case None => s"; the plain table stays at ${plain.uri}, and what reached $leafUri stays too"
  }

  private def latest(plain: PlainTable): Long = plain.lance.withDataset(plain.uri)(_.version())

  private def published(store: ManifestStore): Boolean = Try(store.loadIfPartitioned().isDefined).getOrElse(false)
}
