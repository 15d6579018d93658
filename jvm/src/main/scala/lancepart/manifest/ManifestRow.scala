// One __manifest row: a namespace, a partition table or (strong mode) a partition table version.
package lancepart.manifest

import lancepart.lance.LeafStats

/**
 * One `__manifest` row; `values` maps partition field_id to its value (see [[lancepart.arrow.ArrowValues]]).
 * `readVersion` is the leaf version every reader reads (spec: Transaction): set by strong-mode
 * writes, NULL after weak ones (readers then read the leaf's latest version).
 * `writtenVersion` is the leaf version lancepart's last weak write left, kept in the row's
 * metadata only so that a concurrent overwrite of the partition is detected.
 * `metadata` is the row's `metadata` JSON as read: its keys of other writers survive a rewrite.
 * `stats` are what the leaf held at the version lancepart last committed to it (kept in the
 * metadata): exact for a version the row pins, a size estimate otherwise.
 * `copyOf`: the leaf this row's leaf replaced by copying its rows (kept in the metadata).
 * `readBranch`: the branch of the leaf another writer's row reads (`read_branch`, or the branch of
 * the tag its `read_tag` names, whose version is then `readVersion`); None: the main branch.
 */
case class ManifestRow(
    objectId: String,
    objectType: String,
    location: Option[String],
    readVersion: Option[Long],
    values: Map[String, Any],
    writtenVersion: Option[Long] = None,
    metadata: Option[String] = None,
    stats: Option[LeafStats] = None,
    copyOf: Option[LeafCopyOf] = None,
    readBranch: Option[String] = None) {
  def specVersion: Option[Int] = Naming.specVersion(objectId)

  /** The strong-mode record of this leaf at `version` (spec: `table_version` rows, Appendix C),
   * numbered `record`: numbers grow with every record of the partition, also across a
   * replacement of its leaf, so a reader taking the highest reads the leaf the `table` row names. */
  def versionRecord(version: Long, record: Long): ManifestRow =
    ManifestRow(Naming.versionObjectId(objectId, record), Naming.TableVersionType, location, Some(version), values)
}

/** A leaf created as a copy of the leaf at `location` at its version `version`: the new leaf's
 * first version holds that version's rows (in the namespace's columns) and nothing else; a write
 * that could not append to the old leaf as it was (a column widened, a MAP column added, or in
 * strong mode any column added) made it, and appended its own rows in the next version. Later
 * writes keep it in the row: a reader compares `location` with the leaf it followed. */
case class LeafCopyOf(location: String, version: Long)

object ManifestRow {

  /** Partition values (by field id) as messages show them, `field=value` by field, leaving out the
   * NULLs of fields of other spec versions. */
  def shownValues(values: Map[String, Any]): String =
    values.toSeq.filter(_._2 != null).sortBy(_._1).map { case (field, v) => s"$field=$v" }.mkString(", ")
}
