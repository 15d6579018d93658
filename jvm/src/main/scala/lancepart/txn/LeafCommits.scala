// Lance commits on one partition table: create it, delete rows (by predicate or row address) and
// append fragments in one commit, commit a compaction or indexes. A plain table's DELETE and
// merge-on-read commands commit on its dataset the same way (on the main branch).
// Strong mode commits detached on top of the manifest's read_version (spec: Multi-Partition
// Transaction (Strong)); weak mode commits on the main branch (Lance rebases concurrent appends).
// A streaming write's commits carry its micro-batch in their transaction properties.
package lancepart.txn

import lancepart.lance.{Lance, LanceAccess, LeafField, LeafSchema, LeafStats}
import lancepart.manifest.{StreamEpoch, StreamMarks}
import lancepart.prune.RowPredicate
import org.apache.arrow.vector.UInt8Vector
import org.apache.arrow.vector.types.pojo.Schema
import org.lance.{CommitBuilder, Dataset, Fragment, FragmentMetadata, Transaction}
import org.lance.compaction.RewriteResult
import org.lance.index.Index
import org.lance.ipc.ScanOptions
import org.lance.operation.{Append, CreateIndex, Delete, Operation, Overwrite, Rewrite, RewriteGroup, Update}

import scala.collection.compat._
import scala.collection.mutable
import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

/** `stream`: the micro-batch of a streaming query these commits belong to; `branch`: the branch
 * [[update]] commits to (None: main; a plain table's branch). */
class LeafCommits(
    lance: LanceAccess,
    detached: Boolean,
    stream: Option[StreamEpoch] = None,
    branch: Option[String] = None) {
  private val MainRetries = 20

  private def transaction(readVersion: Long, op: Operation): Transaction = {
    val builder = new Transaction.Builder().readVersion(readVersion).operation(op)
    stream.fold(builder)(s => builder.transactionProperties(s.transactionProperties.asJava)).build()
  }

  /** Creates the leaf at `uri` as version 1 on its main branch; returns what it holds. */
  def create(uri: String, schema: Schema, fragments: Seq[FragmentMetadata]): LeafStats =
    Lance.using(transaction(0, Overwrite.builder().fragments(fragments.asJava).schema(schema).build()))(
      lance.commit(uri, _))

  /** Whether a commit of micro-batch `epoch` is among the versions of the leaf at `uri` after
   * `after`; refused, naming the leaf, when some of those versions were removed (a cleanup),
   * since it cannot be told then. (Each version is opened: lance-core 7.0.0's `DatasetDelta`
   * lists no transactions, its native method being missing.) */
  def holds(uri: String, after: Long, epoch: StreamEpoch): Boolean = {
    val latest = lance.withDataset(uri)(_.version())
    (after + 1 to latest).exists { version =>
      val properties =
        try lance.withDataset(uri, Some(version))(_.readTransaction().map[java.util.Map[String, String]] { t =>
            try t.transactionProperties().orElse(java.util.Collections.emptyMap())
            finally t.close()
          })
        catch {
          case NonFatal(e) => throw new IllegalStateException(
              s"partition table $uri: cannot tell whether micro-batch ${epoch.epoch} of streaming query " +
                s"${epoch.queryId} was committed to it: version $version, after $after, cannot be read (removed by a " +
                s"cleanup?): ${e.getMessage}",
              e
            )
        }
      properties.map[Boolean](StreamMarks.isOf(_, epoch)).orElse(false)
    }
  }

  /**
   * Applies to the leaf at `uri`, on top of `base` (None: the latest main version), `deletion` of
   * rows and `fragments` as an append, in one Lance commit: a `Delete`, an `Append`, or both as
   * an `Update`, so that no reader of the main branch (weak mode) sees the deleted rows gone
   * without the rows that replace them. On the main branch a change that deletes is planned again
   * while Lance refuses it for a commit it cannot rebase over. Returns what the resulting
   * version holds (`base`'s when nothing changed).
   */
  def update(uri: String, base: Option[Long], deletion: Option[RowDeletion], fragments: Seq[FragmentMetadata])
      : LeafStats = {
    def change(): LeafStats = lance.withDataset(uri, base, branch) { ds =>
      val removal = deletion.flatMap(removalOf(uri, ds, _))
      val appended = fragments.asJava
      val op: Option[Operation] = removal match {
        case None => if (fragments.nonEmpty) Some(Append.builder().fragments(appended).build()) else None
        case Some(r) if fragments.isEmpty =>
          Some(Delete.builder().updatedFragments(r.updated.asJava).deletedFragmentIds(r.removed.asJava)
            .predicate(r.predicate).build())
        case Some(r) =>
          Some(Update.builder().updatedFragments(r.updated.asJava).removedFragmentIds(r.removed.asJava)
            .newFragments(appended).build())
      }
      op.fold(LeafStats.of(ds))(commit(ds, _)(LeafStats.of))
    }
    if (detached || deletion.isEmpty) change() else Lance.replanned(change())
  }

  /** The rows of `ds` (the leaf at `uri`) that `deletion` removes, or None when there are none. */
  private def removalOf(uri: String, ds: Dataset, deletion: RowDeletion): Option[Removal] = deletion match {
    case RowDeletion.Matching(predicate) =>
      val sql = predicate.sql(LeafSchema.columns(ds))
      Removal.of(ds, scanOffsets(ds, sql), sql)
    case RowDeletion.At(version, addresses) =>
      val offsets = addresses.groupMap(a => (a >>> 32).toInt)(a => Integer.valueOf((a & 0xffffffffL).toInt))
      // detached: `ds` is `version`, the read_version the Committer found the manifest still reading
      if (!detached) requireSameRows(uri, version, ds, offsets.keySet)
      Removal.of(ds, offsets, s"_rowaddr IN (${addresses.mkString(", ")})")
  }

  /**
   * Commits the compaction `results` (planned at one version of the leaf at `uri`) on top of that
   * version; on the main branch Lance rebases it over later commits that did not touch the
   * rewritten fragments. Returns what the resulting version holds.
   */
  def rewrite(uri: String, results: Seq[RewriteResult]): LeafStats = {
    val groups = results.map(r =>
      RewriteGroup.builder().oldFragments(r.getOriginalFragments).newFragments(r.getNewFragments).build())
    lance.withDataset(uri, Some(results.head.getReadVersion))(
      commit(_, Rewrite.builder().groups(groups.asJava).build())(LeafStats.of))
  }

  /** Commits `added` indexes, built over the fragments of version `version` of the leaf at `uri`,
   * and the removal of its indexes named `removed`, on top of that version; on the main branch
   * Lance rebases the change over later commits that did not change those fragments. Returns what
   * the resulting version holds. */
  def index(uri: String, version: Long, added: Seq[Index], removed: Set[String]): LeafStats =
    lance.withDataset(uri, Some(version)) { ds =>
      val dropped = ds.getIndexes.asScala.filter(i => removed(i.name())).toSeq
      commit(ds, CreateIndex.builder().withNewIndices(added.asJava).withRemovedIndices(dropped.asJava).build())(
        LeafStats.of)
    }

  /** Commits `op` on top of `ds`; returns `f` of the committed version. */
  private def commit[A](ds: Dataset, op: Operation)(f: Dataset => A): A =
    Lance.using(transaction(ds.version(), op)) { txn =>
      val builder = new CommitBuilder(ds).detached(detached).skipAutoCleanup(true)
      Lance.using((if (detached) builder else builder.maxRetries(MainRetries)).execute(txn))(f)
    }

  /** The leaf's fields at `version` (None: the latest main version) with their Lance field ids,
   * which a fragment's data files refer to. */
  def fields(uri: String, version: Option[Long]): Seq[LeafField] =
    lance.withDataset(uri, version)(ds => LeafField.all(ds.getLanceSchema.fields()))

  /**
   * Row addresses read at `version` still name the same rows in `latest` when each fragment they
   * are in is there with the same rows and deletions: a commit that only added columns (a write
   * aligning the leaf) or fragments keeps them; a compaction, an update or a delete of those
   * fragments does not, and the deletion is refused.
   */
  private def requireSameRows(uri: String, version: Long, latest: Dataset, fragments: Set[Int]): Unit = {
    def state(ds: Dataset) = ds.getFragments.asScala.collect {
      case f if fragments(f.getId) => f.getId -> (f.metadata().getPhysicalRows, f.metadata().getDeletionFile)
    }.toMap
    if (latest.version() != version && lance.withDataset(uri, Some(version), branch)(state) != state(latest)) {
      throw new TransactionConflict(s"Lance dataset $uri: fragments ${fragments.toSeq.sorted.mkString(", ")} " +
        s"were compacted, updated or had rows deleted after version $version, at which the rows to delete were read")
    }
  }

  /** The row offsets, by fragment id, of the rows of `ds` matching `predicate`. */
  private def scanOffsets(ds: Dataset, predicate: String): Map[Int, Seq[Integer]] = {
    val offsets = mutable.LinkedHashMap.empty[Int, mutable.ArrayBuffer[Integer]]
    val options =
      new ScanOptions.Builder().columns(Seq.empty[String].asJava).filter(predicate).withRowAddress(true).build()
    Lance.using(ds.newScan(options)) { scanner =>
      Lance.using(scanner.scanBatches()) { reader =>
        while (reader.loadNextBatch()) {
          val addresses = reader.getVectorSchemaRoot.getVector("_rowaddr").asInstanceOf[UInt8Vector]
          for (i <- 0 until addresses.getValueCount) {
            val address = addresses.get(i)
            offsets.getOrElseUpdate(
              (address >>> 32).toInt,
              mutable.ArrayBuffer.empty) += Integer.valueOf((address & 0xffffffffL).toInt)
          }
        }
      }
    }
    offsets.map { case (id, rows) => id -> rows.toSeq }.toMap
  }
}

/** Rows to delete from a leaf version: `updated` fragments with their new deletion files, the ids
 * of fragments `removed` whole, and the `predicate` that describes them (recorded in a `Delete`). */
private case class Removal(updated: Seq[FragmentMetadata], removed: Seq[java.lang.Long], predicate: String)

private object Removal {

  /** The deletion of the rows at `offsets` (by fragment id) of `ds`, or None when there are none. */
  def of(ds: Dataset, offsets: Map[Int, Seq[Integer]], predicate: String): Option[Removal] =
    if (offsets.isEmpty) None
    else {
      val results = offsets.toSeq.map { case (id, rows) => id -> Option(new Fragment(ds, id).deleteRows(rows.asJava)) }
      Some(Removal(
        results.flatMap(_._2),
        results.collect { case (id, None) => java.lang.Long.valueOf(id.toLong) },
        predicate))
    }
}

/** Rows a change deletes from one leaf: those matching a predicate (evaluated on the version the
 * change applies to), or those at row addresses read at leaf version `version` (merge-on-read). */
sealed trait RowDeletion

object RowDeletion {
  case class Matching(predicate: RowPredicate) extends RowDeletion
  case class At(version: Long, addresses: Seq[Long]) extends RowDeletion
}
