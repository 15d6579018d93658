// One __manifest row: a namespace, a partition table or (strong mode) a partition table version.
package lancepart.manifest

/** One `__manifest` row; `values` maps partition field_id to its value (see [[ArrowValues]]). */
case class ManifestRow(
    objectId: String,
    objectType: String,
    location: Option[String],
    readVersion: Option[Long],
    values: Map[String, Any]) {
  def specVersion: Option[Int] = Naming.specVersion(objectId)

  /** The strong-mode record of this leaf at `version` (spec: `table_version` rows). */
  def versionRecord(version: Long): ManifestRow =
    ManifestRow(Naming.versionObjectId(objectId, version), Naming.TableVersionType, location, Some(version), values)
}
