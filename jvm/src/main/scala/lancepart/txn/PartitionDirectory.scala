// Where each partition's rows go: existing namespaces and leaves of the current spec, and the
// object ids and locations a write derives for partitions the manifest does not have yet.
package lancepart.txn

import lancepart.manifest.{Manifest, ManifestQuery, ManifestRow, ManifestStore, Naming}
import lancepart.spec.BoundSpec

/** The leaf a partition's rows are written to, the version they are written against (an existing
 * leaf's read_version; the driver's rebase reads it in strong mode), and whether the rows replace
 * the partition's (a replaced partition gets a new leaf at a new location). */
case class LeafTarget(
    objectId: String,
    location: String,
    isNew: Boolean,
    baseVersion: Option[Long],
    key: PartitionKey,
    replaces: Boolean = false)

/**
 * `namespaces` maps the key of each namespace (level k holds the first k values) to its object
 * id; `leaves` maps full keys to the leaf's row. `seed` is random per write: names of new
 * namespaces derive from it and the values (see [[Naming.derivedName]]), so resolving against a
 * newer manifest gives the same names for what is still new. An overwrite replaces the
 * partitions in `replacing` (all it writes when `replaceAll`).
 */
case class PartitionDirectory(
    specId: Int,
    fieldIds: Seq[String],
    namespaces: Map[PartitionKey, String],
    leaves: Map[PartitionKey, ManifestRow],
    seed: String,
    replaceAll: Boolean = false,
    replacing: Set[String] = Set.empty) {
  def isOverwrite: Boolean = replaceAll || replacing.nonEmpty

  def replacingFor(replaceAll: Boolean, replacing: Set[String]): PartitionDirectory =
    copy(replaceAll = replaceAll, replacing = replacing)

  def resolve(key: PartitionKey): LeafTarget = leaves.get(key) match {
    case Some(row) if replaceAll || replacing(row.objectId) => replacement(key)
    case Some(row) => LeafTarget(row.objectId, row.location.get, isNew = false, row.readVersion, key)
    case None =>
      val objectId = Naming.objectId(Seq(namespacesAbove(key).lastOption.fold(s"v$specId")(_._1), Naming.LeafName))
      LeafTarget(objectId, Naming.location(objectId, seed), isNew = true, None, key, replaces = isOverwrite)
  }

  /** The manifest rows of the namespaces above a new leaf of `key` that the directory does not have. */
  def newNamespaces(key: PartitionKey): Seq[ManifestRow] = namespacesAbove(key).flatMap(_._2)

  /** The leaf that replaces the existing leaf of partition `key`: a new leaf at a new location
   * under the same object id (what an overwrite of the partition writes). */
  def replacement(key: PartitionKey): LeafTarget = {
    val row = leaves(key)
    LeafTarget(row.objectId, Naming.location(row.objectId, seed), isNew = true, row.readVersion, key, replaces = true)
  }

  /** The object ids of the namespaces above a leaf of `key`, outermost first, each with its
   * manifest row when it is new (its name derived from the seed and the values). */
  private def namespacesAbove(key: PartitionKey): Seq[(String, Option[ManifestRow])] = {
    var parent = s"v$specId"
    (1 to key.values.size).map { k =>
      val prefix = key.prefix(k)
      val known = namespaces.get(prefix)
      parent = known.getOrElse(Naming.objectId(Seq(
        parent,
        Naming.derivedName(seed, specId.toString +: prefix.values.map(render)))))
      val row =
        if (known.isEmpty) Some(ManifestRow(parent, Naming.NamespaceType, None, None, prefix.byFieldId)) else None
      parent -> row
    }
  }

  private def render(v: Any): String = v match {
    case null => "\u0000null"
    case b: Array[Byte] => s"bytes:${b.map(x => f"${x & 0xff}%02x").mkString}"
    case _ => s"${v.getClass.getName}:$v"
  }
}

object PartitionDirectory {

  /** The directory of an operation that writes no rows (DELETE): nothing to read. */
  def empty(spec: BoundSpec): PartitionDirectory =
    PartitionDirectory(spec.id, spec.fields.map(_.fieldId), Map.empty, Map.empty, Naming.randomName())

  /** Reads the current spec's rows from the manifest (one filtered scan). */
  def load(store: ManifestStore, manifest: Manifest, spec: BoundSpec, seed: String): PartitionDirectory = {
    val fieldIds = spec.fields.map(_.fieldId)
    val rows = store.rows(manifest, ManifestQuery.specRows(spec.id))
    def prefix(row: ManifestRow, depth: Int): PartitionKey = PartitionKey.of(fieldIds.take(depth), row.values)
    val namespaces = rows.filter(_.objectType == Naming.NamespaceType).flatMap { row =>
      val depth = row.objectId.count(_ == '$')
      if (depth >= 1 && depth <= fieldIds.size) Some(prefix(row, depth) -> row.objectId) else None
    }.toMap
    // a table without partition values is no partition's: no write resolves to it
    val leaves = rows.filter(r =>
      r.objectType == Naming.TableType && r.location.isDefined &&
        !manifest.meta.unpartitioned(r.objectId)).map(row => prefix(row, fieldIds.size) -> row).toMap
    PartitionDirectory(spec.id, fieldIds, namespaces, leaves, seed)
  }
}
