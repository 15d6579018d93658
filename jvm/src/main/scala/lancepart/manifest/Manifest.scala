// A __manifest at one version: the table metadata a reader of that version sees.
package lancepart.manifest

import lancepart.spec.TableMetadata

/** What a reader needs: metadata at one manifest version. Each leaf is read at its row's
 * `read_version`, or at its latest version where that is NULL (see [[ManifestRow]]).
 * `fileVersion` is the Lance file format of `__manifest`, which new partition tables take.
 * `foreignNotNull` names another writer's NOT NULL `__manifest` columns, which lancepart does not
 * write: a commit cannot add rows while there is one (see [[ManifestStore.requireAddable]]).
 * `committedAt` is when the version was committed. `readRefs` names the columns in which
 * another writer's rows read partition tables at a tag or branch (`read_tag`, `read_branch`: the
 * spec's earlier edition), which lancepart reads but does not write. */
case class Manifest(
    meta: TableMetadata,
    version: Long,
    fileVersion: String,
    foreignNotNull: Seq[String],
    committedAt: java.time.Instant,
    readRefs: Seq[String] = Seq.empty) {

  /** Refuses `what` (a write, a stream, a maintenance operation) on table `table` when rows read
   * partition tables at a tag or branch: lancepart commits to a partition table's main branch (or
   * on top of its `read_version`), which those rows would not read, and would leave their tag or
   * branch in place. */
  def requireOwnLayout(table: String, what: String): Unit = if (readRefs.nonEmpty) {
    val refs = readRefs.map(_.stripPrefix("read_"))
    throw new UnsupportedOperationException(
      s"table $table: __manifest rows read partition tables at a ${refs.mkString(" or ")} (column " +
        s"${readRefs.mkString(", ")}), another writer's layout (the spec's earlier edition) that this catalog reads " +
        s"but cannot $what: its commits go to the partition tables' main branches, which those rows do not read")
  }
}
