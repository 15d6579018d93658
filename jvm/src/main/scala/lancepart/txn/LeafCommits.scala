// Lance commits on one partition table: create it, append fragments, delete rows, commit a compaction.
// Strong mode commits detached on top of the manifest's read_version (spec: Multi-Partition
// Transaction (Strong)); weak mode commits on the main branch (Lance rebases concurrent appends).
package lancepart.txn

import lancepart.lance.{Lance, LanceAccess, LeafField, LeafSchema, LeafStats}
import lancepart.prune.RowPredicate
import org.apache.arrow.vector.UInt8Vector
import org.apache.arrow.vector.types.pojo.Schema
import org.lance.{CommitBuilder, Dataset, Fragment, FragmentMetadata, Transaction}
import org.lance.compaction.RewriteResult
import org.lance.ipc.ScanOptions
import org.lance.operation.{Append, Delete, Operation, Overwrite, Rewrite, RewriteGroup}

import scala.collection.mutable
import scala.jdk.CollectionConverters._

class LeafCommits(lance: LanceAccess, detached: Boolean) {
  private val MainRetries = 20

  /** Creates the leaf at `uri` as version 1 on its main branch; returns what it holds. */
  def create(uri: String, schema: Schema, fragments: Seq[FragmentMetadata]): LeafStats = {
    val op = Overwrite.builder().fragments(fragments.asJava).schema(schema).build()
    Lance.using(new Transaction.Builder().readVersion(0).operation(op).build())(lance.commit(uri, _))
  }

  /**
   * Applies to the leaf at `uri`, on top of `base` (None: the latest main version), first the
   * deletion of rows matching `deletePredicate`, then `fragments` as an append. Returns what the
   * resulting version holds (`base`'s when nothing changed).
   */
  def update(
      uri: String,
      base: Option[Long],
      deletePredicate: Option[RowPredicate],
      fragments: Seq[FragmentMetadata]): LeafStats = {
    val append = Option.when(fragments.nonEmpty)(Append.builder().fragments(fragments.asJava).build())
    lance.withDataset(uri, base) { ds =>
      deletePredicate.flatMap(p => deleteOperation(ds, p.sql(LeafSchema.columns(ds)))) match {
        case Some(delete) if append.isDefined =>
          val deleted = commit(ds, delete)(_.version())
          lance.withDataset(uri, Some(deleted))(commit(_, append.get)(LeafStats.of))
        case Some(delete) => commit(ds, delete)(LeafStats.of)
        case None => append.fold(LeafStats.of(ds))(commit(ds, _)(LeafStats.of))
      }
    }
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

  /** Commits `op` on top of `ds`; returns `f` of the committed version. */
  private def commit[A](ds: Dataset, op: Operation)(f: Dataset => A): A =
    Lance.using(new Transaction.Builder().readVersion(ds.version()).operation(op).build()) { txn =>
      val builder = new CommitBuilder(ds).detached(detached).skipAutoCleanup(true)
      Lance.using((if (detached) builder else builder.maxRetries(MainRetries)).execute(txn))(f)
    }

  /** The leaf's fields at `version` (None: the latest main version) with their Lance field ids,
   * which a fragment's data files refer to. */
  def fields(uri: String, version: Option[Long]): Seq[LeafField] =
    lance.withDataset(uri, version)(ds => LeafField.all(ds.getLanceSchema.fields()))

  /** A Delete of the rows matching `predicate` (deletion files per fragment, whole fragments
   * dropped), or None when no row matches. */
  private def deleteOperation(ds: Dataset, predicate: String): Option[Operation] = {
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
    Option.when(offsets.nonEmpty) {
      val results = offsets.toSeq.map { case (id, rows) => id -> Option(new Fragment(ds, id).deleteRows(rows.asJava)) }
      Delete.builder()
        .updatedFragments(results.flatMap(_._2).asJava)
        .deletedFragmentIds(results.collect { case (id, None) => java.lang.Long.valueOf(id.toLong) }.asJava)
        .predicate(predicate).build()
    }
  }
}
