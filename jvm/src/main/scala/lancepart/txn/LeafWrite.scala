// What one task wrote into one partition table, and the namespaces a new partition needs.
package lancepart.txn

import lancepart.manifest.ManifestRow
import org.lance.FragmentMetadata

/**
 * Fragments written for the partition table `objectId` at `location` (relative to the table
 * root). `isNew` leaves do not exist yet; an existing one was written against `baseVersion`
 * (its read_version when the write started); `namespaces` are the manifest rows of the
 * partition namespaces above a new leaf that the manifest does not have yet. A leaf that
 * `replaces` its partition is new and takes the place of the partition's leaf, if any.
 */
case class LeafWrite(
    objectId: String,
    location: String,
    isNew: Boolean,
    baseVersion: Option[Long],
    values: Map[String, Any],
    namespaces: Seq[ManifestRow],
    fragments: Seq[FragmentMetadata],
    replaces: Boolean)
