// What one task wrote into one partition table.
package lancepart.txn

import org.lance.FragmentMetadata

/** Fragments written into the leaf of `target` (see [[LeafTarget]]); `copy`: the rows a new leaf
 * took over from the leaf it replaces, written before these. */
case class LeafWrite(target: LeafTarget, fragments: Seq[FragmentMetadata], copy: Option[LeafCopy] = None)

/** The rows of the leaf at `location` at its version `version`, rewritten as `fragments` of a new
 * leaf that replaces it (a write that cannot append to the leaf as it is: a column widened, a
 * MAP column added, or in strong mode any column added, since it was written). */
case class LeafCopy(location: String, version: Long, fragments: Seq[FragmentMetadata])
