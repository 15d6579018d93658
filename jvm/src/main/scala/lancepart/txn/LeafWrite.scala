// What one task wrote into one partition table.
package lancepart.txn

import org.lance.FragmentMetadata

/** Fragments written into the leaf of `target` (see [[LeafTarget]]). */
case class LeafWrite(target: LeafTarget, fragments: Seq[FragmentMetadata])
