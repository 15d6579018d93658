// Where each partition's rows go: existing namespaces and leaves of the current spec, and the
// object ids and locations a write derives for partitions the manifest does not have yet.
package lancepart.txn

import lancepart.manifest.{Manifest, ManifestQuery, ManifestRow, ManifestStore, Naming}
import lancepart.spec.BoundSpec

/** The leaf a partition's rows are written to, the version they are written against (an existing
 * leaf's read_version), the namespace rows a new leaf still needs, and whether the rows replace
 * the partition's (a replaced partition gets a new leaf at a new location). */
case class LeafTarget(objectId: String, location: String, isNew: Boolean, baseVersion: Option[Long],
                      values: Map[String, Any], newNamespaces: Seq[ManifestRow], replaces: Boolean = false)

/**
 * `namespaces` maps a prefix of partition values (level k holds the first k values) to the
 * namespace's object id; `leaves` maps full values to the leaf's row. `seed` is random per
 * write: names of new namespaces derive from it and the values (see [[Naming.derivedName]]), so
 * resolving against a newer manifest gives the same names for what is still new. An overwrite
 * replaces the partitions in `replacing` (all it writes when `replaceAll`).
 */
case class PartitionDirectory(
    specId: Int,
    fieldIds: Seq[String],
    namespaces: Map[Seq[Any], String],
    leaves: Map[Seq[Any], ManifestRow],
    seed: String,
    replaceAll: Boolean = false,
    replacing: Set[String] = Set.empty) {
  def isOverwrite: Boolean = replaceAll || replacing.nonEmpty

  def replacingFor(replaceAll: Boolean, replacing: Set[String]): PartitionDirectory =
    copy(replaceAll = replaceAll, replacing = replacing)

  def resolve(values: Seq[Any]): LeafTarget = {
    val named = fieldIds.zip(values).toMap
    leaves.get(values) match {
      case Some(row) if replaceAll || replacing(row.objectId) => replacement(values)
      case Some(row) => LeafTarget(row.objectId, row.location.get, isNew = false, row.readVersion, named, Seq.empty)
      case None =>
        var parent = s"v$specId"
        val created = Seq.newBuilder[ManifestRow]
        for (k <- 1 to values.size) {
          val prefix = values.take(k)
          parent = namespaces.getOrElse(prefix, {
            val id = Naming.objectId(Seq(parent, Naming.derivedName(seed, specId.toString +: prefix.map(render))))
            created += ManifestRow(id, Naming.NamespaceType, None, None, fieldIds.take(k).zip(prefix).toMap)
            id
          })
        }
        val objectId = Naming.objectId(Seq(parent, Naming.LeafName))
        LeafTarget(objectId, Naming.location(objectId), isNew = true, None, named, created.result(), replaces = isOverwrite)
    }
  }

  /** The leaf that replaces the existing leaf of partition `values`: a new leaf at a new location
   * under the same object id (what an overwrite of the partition writes). */
  def replacement(values: Seq[Any]): LeafTarget = {
    val row = leaves(values)
    LeafTarget(row.objectId, Naming.location(row.objectId, seed), isNew = true, row.readVersion,
      fieldIds.zip(values).toMap, Seq.empty, replaces = true)
  }

  private def render(v: Any): String = if (v == null) "\u0000null" else s"${v.getClass.getName}:$v"
}

object PartitionDirectory {
  /** The directory of an operation that writes no rows (DELETE): nothing to read. */
  def empty(spec: BoundSpec): PartitionDirectory =
    PartitionDirectory(spec.id, spec.fields.map(_.fieldId), Map.empty, Map.empty, Naming.randomName())

  /** Reads the current spec's rows from the manifest (one filtered scan). */
  def load(store: ManifestStore, manifest: Manifest, spec: BoundSpec, seed: String): PartitionDirectory = {
    val fieldIds = spec.fields.map(_.fieldId)
    val rows = store.rows(manifest, ManifestQuery.specRows(spec.id))
    def prefix(row: ManifestRow, depth: Int): Seq[Any] = fieldIds.take(depth).map(row.values.getOrElse(_, null))
    val namespaces = rows.filter(_.objectType == Naming.NamespaceType).flatMap { row =>
      val depth = row.objectId.count(_ == '$')
      if (depth >= 1 && depth <= fieldIds.size) Some(prefix(row, depth) -> row.objectId) else None
    }.toMap
    val leaves = rows.filter(r => r.objectType == Naming.TableType && r.location.isDefined)
      .map(row => prefix(row, fieldIds.size) -> row).toMap
    PartitionDirectory(spec.id, fieldIds, namespaces, leaves, seed)
  }
}
