// Where each partition's rows go: existing namespaces and leaves of the current spec, and the
// object ids and locations a write derives for partitions the manifest does not have yet.
package lancepart.spark.write

import lancepart.manifest.{Manifest, ManifestRow, ManifestStore, Naming}
import lancepart.spec.BoundSpec

/** The leaf a partition's rows are written to, and the namespace rows it still needs. */
case class LeafTarget(objectId: String, location: String, isNew: Boolean, values: Map[String, Any],
                      newNamespaces: Seq[ManifestRow])

/**
 * `namespaces` maps a prefix of partition values (level k holds the first k values) to the
 * namespace's object id; `leaves` maps full values to (object id, location). `seed` is random
 * per write: names of new namespaces derive from it and the values (see [[Naming.derivedName]]).
 */
case class PartitionDirectory(
    specId: Int,
    fieldIds: Seq[String],
    namespaces: Map[Seq[Any], String],
    leaves: Map[Seq[Any], (String, String)],
    seed: String) {

  def resolve(values: Seq[Any]): LeafTarget = {
    val named = fieldIds.zip(values).toMap
    leaves.get(values) match {
      case Some((objectId, location)) => LeafTarget(objectId, location, isNew = false, named, Seq.empty)
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
        LeafTarget(objectId, Naming.location(objectId), isNew = true, named, created.result())
    }
  }

  private def render(v: Any): String = if (v == null) "\u0000null" else s"${v.getClass.getName}:$v"
}

object PartitionDirectory {
  /** Reads the current spec's rows from the manifest (one filtered scan). */
  def load(store: ManifestStore, manifest: Manifest, spec: BoundSpec): PartitionDirectory = {
    val fieldIds = spec.fields.map(_.fieldId)
    val rows = store.rows(manifest, s"${ManifestStore.ObjectId} LIKE 'v${spec.id}${Naming.Delimiter}%'")
    def prefix(row: ManifestRow, depth: Int): Seq[Any] = fieldIds.take(depth).map(row.values.getOrElse(_, null))
    val namespaces = rows.filter(_.objectType == Naming.NamespaceType).flatMap { row =>
      val depth = row.objectId.count(_ == '$')
      if (depth >= 1 && depth <= fieldIds.size) Some(prefix(row, depth) -> row.objectId) else None
    }.toMap
    val leaves = rows.filter(_.objectType == Naming.TableType).flatMap { row =>
      row.location.map(loc => prefix(row, fieldIds.size) -> (row.objectId, loc))
    }.toMap
    PartitionDirectory(spec.id, fieldIds, namespaces, leaves, Naming.randomName())
  }
}
