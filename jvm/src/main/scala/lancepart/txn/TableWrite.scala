// What one write, overwrite, DELETE, compaction or index build does to a table, as the Committer takes it.
package lancepart.txn

import lancepart.manifest.{Manifest, ManifestRow, StreamEpoch}
import lancepart.prune.RowPredicate
import org.lance.compaction.RewriteResult
import org.lance.index.Index

/**
 * What one operation does to a table, planned against manifest `base` (S0) with `directory` (the
 * current spec's partitions at S0 and the naming seed the tasks used):
 *  - `writes`: fragments written per leaf; a leaf that `replaces` its partition is a new one;
 *  - `removed`: existing leaves (object id to their S0 row) an overwrite or DELETE removes,
 *    unless a write replaces them;
 *  - `deletes`: existing leaves (object id to their S0 row) and the predicate of the rows to
 *    delete from them;
 *  - `reads`: what a serializable row-level command read (see [[CommandRead]]);
 *  - `versionsRead`: the main-branch version a weak-mode row-level command read of each leaf it
 *    replaces (object id to version); the command conflicts when one moved since;
 *  - `rewrites`: existing leaves (object id to [[LeafRewrite]]) a compaction rewrote;
 *  - `addressDeletes`: existing leaves (object id to [[RowAddresses]]) and the rows a
 *    merge-on-read command deletes from them;
 *  - `indexes`: existing leaves (object id to [[LeafIndex]]) whose indexes an index build or drop
 *    changes;
 *  - `stream`: the micro-batch of a streaming query this write is, committed at most once.
 */
case class TableWrite(
    base: Manifest,
    directory: PartitionDirectory,
    writes: Seq[LeafWrite],
    removed: Map[String, ManifestRow] = Map.empty,
    deletes: Map[String, (ManifestRow, RowPredicate)] = Map.empty,
    reads: Option[CommandRead] = None,
    versionsRead: Map[String, Long] = Map.empty,
    rewrites: Map[String, LeafRewrite] = Map.empty,
    addressDeletes: Map[String, RowAddresses] = Map.empty,
    indexes: Map[String, LeafIndex] = Map.empty,
    stream: Option[StreamEpoch] = None) {
  def isEmpty: Boolean =
    writes.isEmpty && removed.isEmpty && deletes.isEmpty && rewrites.isEmpty && addressDeletes.isEmpty &&
      indexes.isEmpty
}

/** Rows of the leaf whose S0 row is `before`, at Lance row `addresses` of leaf version `version`
 * (the one the command read), that a merge-on-read `command` deletes. */
case class RowAddresses(before: ManifestRow, version: Long, addresses: Seq[Long], command: String)

/** A compaction of the leaf whose S0 row is `before`: Lance's rewrites of its fragments, all
 * planned at one leaf version (each result's read version). */
case class LeafRewrite(before: ManifestRow, results: Seq[RewriteResult])

/** A change of the indexes of version `version` of the leaf whose S0 row is `before`: `added`, built
 * over every fragment of that version and not committed yet, and the names of the leaf's indexes
 * they replace or a drop removes (`removed`). */
case class LeafIndex(before: ManifestRow, version: Long, added: Seq[Index], removed: Set[String])

/** The leaves (object id to their S0 row) that the `__manifest` filter `filter` of a row-level
 * `command` (DELETE, UPDATE, MERGE INTO) selected; a leaf the filter selects at commit that is new
 * or changed since may hold rows the command did not see, and the command conflicts with it
 * (`isolationProperty` names the table property that relaxes this). */
case class CommandRead(command: String, isolationProperty: String, filter: String, tables: Map[String, ManifestRow])
