// Commit protocol, weak mode (spec: Multi-Partition Transaction (Weak)): commit each leaf on its
// main branch, then one __manifest merge_insert that adds new rows and sets every read_version.
package lancepart.txn

import lancepart.manifest.{Lance, ManifestRow, ManifestStore, Naming}
import org.apache.arrow.vector.types.pojo.Schema
import org.lance.{CommitBuilder, Transaction}
import org.lance.operation.{Append, Overwrite}

import scala.jdk.CollectionConverters._

object WeakCommit {
  /** Commits `writes` (any number per leaf, from any tasks); returns the new manifest version. */
  def commit(
      store: ManifestStore,
      leafSchema: Schema,
      storage: Map[String, String],
      writes: Seq[LeafWrite]): Long = {
    val byLeaf = writes.groupBy(_.objectId).values.toSeq
    val leafRows = byLeaf.map { group =>
      val w = group.head
      val fragments = group.flatMap(_.fragments).asJava
      val uri = store.leafUri(w.location)
      val version =
        if (w.isNew) {
          val op = Overwrite.builder().fragments(fragments).schema(leafSchema).build()
          Lance.using(new Transaction.Builder().readVersion(0).operation(op).build()) { txn =>
            Lance.using(new CommitBuilder(uri, Lance.allocator).writeParams(storage.asJava).execute(txn))(_.version())
          }
        } else {
          Lance.using(Lance.open(uri, storage)) { ds =>
            val op = Append.builder().fragments(fragments).build()
            Lance.using(ds.newTransactionBuilder().operation(op).build())(t => Lance.using(t.commit())(_.version()))
          }
        }
      ManifestRow(w.objectId, Naming.TableType, Some(w.location), Some(version), w.values)
    }
    val namespaceRows = writes.flatMap(_.namespaces).groupBy(_.objectId).values.map(_.head).toSeq
    store.upsert(namespaceRows ++ leafRows)
  }

}
