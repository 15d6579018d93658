// Commit protocol (spec: Multi-Partition Transaction, Conflict Resolution): a transaction planned
// against manifest version S0 reads the latest version S1, checks what changed since S0, rebases
// what does not conflict, commits its leaves and then one conditional __manifest merge_insert;
// when another writer committed first it retries with backoff, a bounded number of times.
package lancepart.txn

import java.util.concurrent.ThreadLocalRandom

import lancepart.lance.{Lance, LeafField, LeafStats}
import lancepart.manifest.{
  Committed,
  LeafCopyOf,
  Manifest,
  ManifestConflict,
  ManifestQuery,
  ManifestRow,
  ManifestStore,
  Naming,
  PendingEpoch,
  StreamMarks,
  StreamRecords,
  TableFiles
}
import lancepart.spec.{TableMetadata, TransactionMode}
import org.apache.arrow.vector.types.pojo.Schema

import scala.annotation.tailrec
import scala.collection.concurrent.TrieMap
import scala.collection.mutable
import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

/**
 * `leafSchema` is the schema of new leaves; `files` moves fragments that a rebase sends to
 * another leaf; `attempts` bounds the commit attempts.
 */
class Committer(
    store: ManifestStore,
    files: TableFiles,
    leafSchema: Schema,
    attempts: Int = Committer.DefaultAttempts) {

  /** Commits `tx`; returns the new manifest version (for a streaming micro-batch that
   * `__manifest` records as committed: the latest, unchanged). */
  def commit(tx: TableWrite): Long = {
    val strong = tx.base.meta.mode == TransactionMode.Strong
    val state = new Attempts(tx, new LeafCommits(store.lance, detached = strong, tx.stream))
    val committed = retrying(state.commitOn)
    align(tx, state.createdLocations, committed)
    committed.version
  }

  /** `body` on the latest manifest, again after a pause while it loses to a concurrent commit
   * (a [[ManifestConflict]]), at most `attempts` times. */
  private def retrying(body: Manifest => Committed): Committed = {
    @tailrec def attempt(n: Int): Committed = {
      val latest = store.load()
      val outcome =
        try Right(body(latest))
        catch {
          case e: ManifestConflict => Left(e)
          case e: TransactionConflict =>
            Committer.log.warn(
              s"commit attempt $n of $attempts on top of manifest version ${latest.version}: ${e.getMessage}")
            throw e
        }
      outcome match {
        case Right(version) => version
        case Left(_: Begun) if n < attempts => attempt(n + 1)
        case Left(_) if n < attempts =>
          val backoff = math.min(Committer.MaxBackoffMs, Committer.BaseBackoffMs << math.min(n, 10))
          val pause = ThreadLocalRandom.current().nextLong(backoff / 2, backoff + 1)
          Committer.log.info(
            s"table ${store.table}: commit attempt $n of $attempts lost to a concurrent commit on top " +
              s"of manifest version ${latest.version}; retrying in $pause ms")
          Thread.sleep(pause)
          attempt(n + 1)
        case Left(lost) =>
          val gaveUp = new TransactionConflict(
            s"table ${store.table}: gave up after $attempts commit " +
              s"attempts; other writers kept committing to __manifest (last seen version ${latest.version}); " +
              "this write did not change it",
            lost
          )
          Committer.log.warn(gaveUp.getMessage)
          throw gaveUp
      }
    }
    attempt(1)
  }

  /**
   * A write's new partition tables name their columns as the schema it planned with. Lance lands
   * a `__manifest` commit on top of a table-metadata commit made since the version it read (and
   * in weak mode a retry finishes a write whose partition-table changes readers already see), so
   * the schema may have changed by the version this write committed: a RENAME COLUMN that listed
   * the partition tables before this write's were in `__manifest` did not rename them. They are
   * renamed here as that rename renames its own ([[LeafRenames]]); when that fails (another
   * schema change began meanwhile), reads still find their columns by field id, and the next
   * RENAME or ADD COLUMN renames them.
   */
  private def align(tx: TableWrite, created: Set[String], committed: Committed): Unit = {
    val schema = TableMetadata.SchemaKey
    if (created.nonEmpty && committed.properties.get(schema) != tx.base.meta.properties.get(schema)) {
      try new LeafRenames(store, files, attempts).align(store.load().meta, created)
      catch {
        case NonFatal(e) => Committer.log.warn(
            s"table ${store.table}: the schema changed while a write committed, and its new partition tables " +
              s"were not renamed to match it (${e.getMessage}); reads find their columns by field id")
      }
    }
  }

  /** One transaction's attempts: leaf commits already made are kept for the next attempt. */
  private class Attempts(tx: TableWrite, leaves: LeafCommits) {
    private val strong = tx.base.meta.mode == TransactionMode.Strong
    private val spec = tx.base.meta.currentSpec

    /** Leaf locations this transaction created (their directories are its own). Leaves commit
     * in parallel ([[Lance.parallel]]), so this and the next map are concurrent. */
    private val created = TrieMap.empty[String, LeafStats]

    /** Leaf updates made: (location, base version in strong mode) to what the resulting version holds. */
    private val updated = TrieMap.empty[(String, Option[Long]), LeafStats]

    /** Where the fragments first written at a location are now (rebases move them). */
    private val current = mutable.Map.empty[String, String]

    /** Leaf directories this transaction made, which it may remove. */
    private val own = mutable.Set.empty[String] ++ tx.writes.map(_.target).filter(_.isNew).map(_.location)

    /** Locations of the leaves this transaction created. */
    def createdLocations: Set[String] = created.keySet.toSet

    /** The commit on top of `latest`; for a streaming micro-batch that `__manifest` records as
     * committed (see [[StreamMarks]]), none. */
    def commitOn(latest: Manifest): Committed = {
      val records = tx.stream.map(StreamRecords(_, store.rows(latest, ManifestQuery.specNamespaces)))
      records.filter(_.committed).fold(publish(latest, records)) { r =>
        Committer.log.info(s"table ${store.table}: micro-batch ${r.epoch.epoch} of streaming query " +
          s"${r.epoch.queryId} was committed before; not committed again")
        Committed(latest.version, latest.meta.properties)
      }
    }

    private def publish(latest: Manifest, records: Option[StreamRecords]): Committed = {
      // In weak mode a leaf change an earlier attempt made is already visible on the leaf's main
      // branch: the write is then finished, not refused (its rows do not depend on the schema or
      // specs, and refusing would report as not done a change readers already see).
      if (latest.meta.properties != tx.base.meta.properties && (strong || updated.isEmpty))
        throw new TransactionConflict(s"table ${store.table}: its schema, partition specs or transaction mode " +
          "changed while this write ran; nothing was committed")
      val appendedTo = tx.writes.map(_.target).filterNot(_.isNew).map(_.objectId)
      // leaves a write copied (at a version) into the new leaves that replace them
      val copied = tx.writes.flatMap(w => w.copy.map(w.target.objectId -> _)).toMap
      val touched = appendedTo ++ copied.keys ++ tx.removed.keys ++ tx.deletes.keys ++ tx.rewrites.keys ++
        tx.addressDeletes.keys ++ tx.indexes.keys
      // The rows this write changes as they are at S1, and the `v<N>` row every commit rewrites
      // (as it is: other writers' metadata stays).
      val read =
        store.rows(latest, ManifestQuery.byId(touched.distinct :+ spec.namespace)).map(r => r.objectId -> r).toMap
      val now = read.filter(_._2.objectType == Naming.TableType)
      val specRow = Committer.specRow(spec.namespace, read.get(spec.namespace))
      // A micro-batch is recorded as committed, and its begun records go (one under an older spec too).
      val guard = tx.stream.fold(specRow)(StreamMarks.withCommitted(specRow, _))
      val begunElsewhere = for (r <- records.toSeq; (row, _) <- r.begunRows if row.objectId != spec.namespace)
        yield StreamMarks.withCommitted(Committer.specRow(row.objectId, Some(row)), r.epoch)
      // New partitions are resolved against S1; a write without any needs no scan for it.
      lazy val directory = PartitionDirectory.load(store, latest, spec, tx.directory.seed)
      val plans = mutable.LinkedHashMap.empty[String, LeafPlan]
      def existing(row: ManifestRow): LeafPlan = plans.getOrElseUpdate(row.objectId, LeafPlan(row, isNew = false))
      def newLeaf(t: LeafTarget): LeafPlan = LeafPlan(
        ManifestRow(t.objectId, Naming.TableType, Some(t.location), None, t.key.byFieldId),
        isNew = true,
        directory.newNamespaces(t.key))

      // Appends rebase onto the leaf's current version; a removed leaf is a conflict, a replaced
      // one (a new leaf at a new location) takes the fragments into its directory.
      for ((location, group) <- tx.writes.filterNot(_.target.isNew).groupBy(_.target.location)) {
        val w = group.head.target
        now.get(w.objectId) match {
          case Some(row) =>
            rehome(location, group, row)
            existing(row).fragments ++= group.flatMap(_.fragments)
          case None => conflict(s"partition ${describe(w.objectId, w.key.byFieldId)} was removed by a concurrent write")
        }
      }
      // Deletes run on the leaf's current version; nothing to do when it is gone.
      for ((id, (_, predicate)) <- tx.deletes; row <- now.get(id))
        existing(row).deletion = Some(RowDeletion.Matching(predicate))
      // Row addresses hold at the leaf version the command read: in strong mode the manifest must
      // still read it; in weak mode Lance rebases the leaf's Delete (or Update) over appends and
      // refuses it over commits that changed the same fragments (see [[commitLeaf]]).
      for ((id, d) <- tx.addressDeletes) now.get(id) match {
        case Some(row) if (if (strong) sameLeaf(d.before, row) else row.location == d.before.location) =>
          existing(row).deletion = Some(RowDeletion.At(d.version, d.addresses))
        case _ => conflict(s"partition ${describe(id, d.before.values)} was written by a concurrent write after this " +
            s"${d.command} read the rows it deletes")
      }
      // A compaction rewrote fragments of the leaf version it planned at: in strong mode that must
      // still be the version the manifest reads; in weak mode Lance rebases it on the main branch.
      for ((id, rewrite) <- tx.rewrites) now.get(id) match {
        case Some(row) if (if (strong) sameLeaf(rewrite.before, row) else row.location == rewrite.before.location) =>
          existing(row).rewrites = rewrite.results
        case _ => conflict(
            s"partition ${describe(id, rewrite.before.values)} was replaced or written by a concurrent write while " +
              "it was compacted")
      }
      // An index covers the fragments of the leaf version it was built at (a drop: the version it
      // looked at): in strong mode that must still be the version the manifest reads; in weak mode
      // Lance rebases the change on the main branch.
      for ((id, index) <- tx.indexes) now.get(id) match {
        case Some(row) if (if (strong) sameLeaf(index.before, row) else row.location == index.before.location) =>
          existing(row).index = Some(index)
        case _ => conflict(
            s"partition ${describe(id, index.before.values)} was replaced or written by a concurrent write while " +
              "its indexes were built or dropped")
      }
      // A serializable row-level command saw every leaf its condition selects as it was at S0.
      if (latest.version != tx.base.version) {
        for (read <- tx.reads; row <- files.withData(store.rows(latest, read.filter))
          if !read.tables.get(row.objectId).exists(sameLeaf(_, row)))
          conflict(s"partition ${describe(row.objectId, row.values)} was written by a concurrent write after this " +
            s"${read.command} read the table; at serializable isolation (table property ${read.isolationProperty}) " +
            "that conflicts when the partition is one the command's condition selects by partition values (every " +
            "partition, when it selects none)")
      }
      // Removals and replacements need the partition unchanged since S0.
      val replacedIds = mutable.Set.empty[String]
      for ((id, before) <- tx.removed; row <- now.get(id)) {
        if (!sameLeaf(before, row))
          conflict(s"partition ${describe(id, before.values)} was written by a concurrent transaction")
        replacedIds += id
      }
      // A weak-mode command, or a write that rewrites a leaf, copied these leaves' rows at a version;
      // a commit to one since would be lost (and a copied leaf another write replaced is gone).
      for ((id, c) <- copied; row <- now.get(id) if !row.location.contains(c.location))
        conflict(s"partition ${describe(id, row.values)} was written by a concurrent transaction")
      val moved = Lance.parallel((tx.versionsRead ++ copied.map { case (id, c) => id -> c.version }).toSeq.flatMap {
        case (id, read) => now.get(id).map((_, read))
      }) {
        case (row, read) => (row, read, store.leafVersion(row))
      }
      for ((row, read, current) <- moved if current != read)
        conflict(
          s"partition ${describe(row.objectId, row.values)} was written by a concurrent write after this write " +
            s"read its partition table (at version $read; now $current)")
      for ((location, group) <- tx.writes.filter(_.target.isNew).groupBy(_.target.location)) {
        val w = group.head.target
        val before = tx.directory.leaves.get(w.key)
        val target = directory.resolve(w.key)
        val after = directory.leaves.get(w.key)
        val plan = if (w.replaces) {
          (before, after) match {
            case (Some(b), Some(a)) if sameLeaf(b, a) =>
              // A rewrite (a leaf replaced with its rows and new ones) has copied the rows a delete would remove.
              if (tx.deletes.contains(a.objectId) || tx.addressDeletes.contains(a.objectId)) {
                val instead = if (tx.addressDeletes.contains(a.objectId))
                  "run the command copy-on-write (table property write.<command>.mode), which rewrites the partition"
                else "DELETE the rows first, then write the new ones"
                throw new UnsupportedOperationException(s"table ${store.table}: partition " +
                  s"${describe(a.objectId, a.values)} must be rewritten (a column widened or, in strong mode, added " +
                  s"since it was written), which this write cannot combine with deleting rows from it; $instead; " +
                  "this write did not change __manifest")
              }
              replacedIds += a.objectId
              val leafCopy = group.flatMap(_.copy) match {
                case Seq() => None
                case Seq(one) => Some(one)
                case more => throw new IllegalStateException(s"table ${store.table}: partition " +
                    s"${describe(a.objectId, a.values)} was rewritten by ${more.size} tasks, each with its rows: the " +
                    "write's rows of one partition must come from one task (the distribution the write asks Spark " +
                    "for); this write did not change __manifest")
              }
              val plan = LeafPlan(
                a.copy(
                  location = Some(w.location),
                  readVersion = None,
                  writtenVersion = None,
                  stats = None,
                  copyOf = leafCopy.map(c => LeafCopyOf(c.location, c.version))),
                isNew = true
              )
              plan.leafCopy = leafCopy
              plan
            case (None, None) =>
              relocate(location, group, target)
              newLeaf(target)
            case _ =>
              conflict(s"partition ${describe(w.objectId, w.key.byFieldId)} was written by a concurrent transaction")
          }
        } else {
          relocate(location, group, target)
          after.fold(newLeaf(target))(existing)
        }
        plans(plan.leaf.objectId) = plan
        plan.fragments ++= group.flatMap(_.fragments)
      }

      records.foreach(streamed(latest, _, plans.values.toList))
      // No partition table changes before __manifest is known to take the rows the commit adds, and
      // while another writer's rows read partition tables at a tag or branch (recorded since planning).
      latest.requireOwnLayout(store.table, "write")
      store.requireAddable(
        latest,
        guard.objectId +: plans.values.toList.filter(_.isNew).flatMap(p =>
          p.namespaces.map(_.objectId) :+ p.leaf.objectId),
        records = strong && plans.nonEmpty
      )
      // Leaves under one new namespace each carry its row: keep one.
      val seen = mutable.Set.empty[String]
      val rows =
        Lance.parallel(plans.values.toList)(commitLeaf(_, latest.version + 1)).flatten.filter(r => seen.add(r.objectId))
      val removed = replacedIds.toSeq.filterNot(plans.contains)
      store.commit(latest.version, guard +: (begunElsewhere ++ rows), removed)
    }

    /**
     * A streaming micro-batch's appends to existing partition tables (`plans` as resolved against
     * `latest`: a rebase may send a new partition's rows to the table another writer created for
     * it). On a replay of a micro-batch `records` show as begun, a table whose versions since its
     * recorded base hold one of its commits takes nothing more. In weak mode readers see a table's
     * commits before `__manifest` names them, so every table the micro-batch appends to must be
     * recorded first: when some is not, the record is committed with its current version and the
     * attempt runs again on top of it ([[Begun]]).
     */
    private def streamed(latest: Manifest, records: StreamRecords, plans: Seq[LeafPlan]): Unit = {
      val targets = plans.filter(p => !p.isNew && p.fragments.nonEmpty)
      val bases = records.begun.fold(Map.empty[String, Long])(_.bases)
      for (p <- targets; location <- p.leaf.location; base <- bases.get(location)
        if leaves.holds(store.leafUri(location), base, records.epoch))
        p.fragments.clear()
      val missing = targets.flatMap(_.leaf.location).filterNot(bases.contains)
      if (!strong && missing.nonEmpty) {
        val row = Committer.specRow(spec.namespace, records.specRows.find(_.objectId == spec.namespace))
        val begun = PendingEpoch(records.epoch.epoch, bases ++ versions(missing))
        store.commit(latest.version, Seq(StreamMarks.withPending(row, records.epoch.queryId, begun)), Nil)
        throw new Begun(store.table, latest.version)
      }
    }

    /** The current main-branch versions of the partition tables at `locations` (a listing each). */
    private def versions(locations: Seq[String]): Map[String, Long] =
      Lance.parallel(locations)(l =>
        l -> files.latestVersion(l).getOrElse(throw new IllegalStateException(
          s"table ${store.table}: partition table $l has no version"))).toMap

    private def sameLeaf(a: ManifestRow, b: ManifestRow): Boolean =
      a.objectId == b.objectId && a.location == b.location && a.readVersion == b.readVersion &&
        a.writtenVersion == b.writtenVersion

    /**
     * Moves the fragments of the new partition first written at `location` to where `target`
     * says it lives now: an existing leaf another writer created meanwhile, or a new leaf under
     * namespaces another writer created. The directory they leave is this write's own and goes.
     */
    private def relocate(location: String, group: Seq[LeafWrite], target: LeafTarget): Unit = {
      val from = current.getOrElse(location, location)
      if (from != target.location) {
        if (!target.isNew) {
          val theirs = LeafField.idsByPath(
            leaves.fields(store.leafUri(target.location), if (strong) target.baseVersion else None))
          if (LeafField.idsWritten(leafSchema.getFields.asScala.toSeq).exists { case (p, id) =>
              !theirs.get(p).contains(id)
            })
            conflict(
              s"partition ${describe(target.objectId, target.key.byFieldId)} was created by a concurrent write " +
                "whose partition table has other columns or field ids than the one this write wrote for it")
        }
        for (w <- group; f <- w.fragments; file <- f.getFiles.asScala)
          files.move(from, target.location, s"data/${file.getPath}")
        if (own(from)) {
          created.remove(from)
          files.deleteLeafDirectory(from)
        }
        current(location) = target.location
        if (target.isNew) own += target.location
      }
    }

    /**
     * Moves the fragments appended to the existing leaf first at `location` into the directory of
     * `row`'s leaf when an overwrite committed since S0 replaced it, so the append lands after
     * the overwrite. Refused when an earlier attempt already committed them to a leaf (that leaf
     * version must keep its files) or when the two leaves differ in columns or field ids (the
     * fragments' files would not mean the same in the new leaf).
     */
    private def rehome(location: String, group: Seq[LeafWrite], row: ManifestRow): Unit = {
      val from = current.getOrElse(location, location)
      val to = row.location.get
      if (from != to) {
        val w = group.head.target
        val what = s"partition ${describe(w.objectId, w.key.byFieldId)} was replaced by a concurrent overwrite, " +
          "DELETE, UPDATE or MERGE INTO"
        if (updated.keys.exists(_._1 == from))
          conflict(s"$what after this write committed its rows to the partition table it replaced")
        val written = leaves.fields(store.leafUri(location), if (strong) w.baseVersion else None)
        if (leaves.fields(store.leafUri(to), row.readVersion) != written) {
          conflict(s"$what whose partition table has other columns than the one this write wrote into")
        }
        for (w <- group; f <- w.fragments; file <- f.getFiles.asScala) files.move(from, to, s"data/${file.getPath}")
        current(location) = to
      }
    }

    /** Commits one leaf's change; returns its manifest rows: the namespaces a new leaf needs,
     * the leaf, and in strong mode the record of its new version, numbered `record` (the
     * `__manifest` version this commit makes). */
    private def commitLeaf(p: LeafPlan, record: Long): Seq[ManifestRow] = {
      val location = p.leaf.location.get
      val base = p.leaf.readVersion
      val uri = store.leafUri(location)
      val stats =
        if (p.isNew) created.getOrElseUpdate(location, create(p, uri))
        else updated.getOrElseUpdate(
          (location, if (strong) base else None),
          if (p.rewrites.nonEmpty) rewrite(p, uri)
          else p.index.fold(update(p, uri, if (strong) base else None))(index(p, uri, _))
        )
      val version = stats.version
      val leaf = if (strong) p.leaf.copy(readVersion = Some(version), stats = Some(stats))
      else p.leaf.copy(readVersion = None, writtenVersion = Some(version), stats = Some(stats))
      val changed = p.isNew || !base.contains(version)
      p.namespaces ++ Seq(leaf) ++ (if (strong && changed) Seq(leaf.versionRecord(version, record)) else Seq.empty)
    }

    /** Creates `p`'s new leaf at `uri`. Its directory is this write's own (see [[Naming.location]]);
     * a dataset already there (a crashed attempt's, a hash collision) is refused, not overwritten. */
    private def create(p: LeafPlan, uri: String): LeafStats = {
      if (files.hasDataset(p.leaf.location.get))
        throw new IllegalStateException(
          s"table ${store.table}: partition ${describe(p.leaf.objectId, p.leaf.values)}: " +
            s"the directory of its new partition table, $uri, already holds a Lance dataset, which this write would " +
            "replace; __manifest was not changed; run the write again (it picks another directory)")
      p.leafCopy.fold(leaves.create(uri, leafSchema, p.fragments.toSeq)) { c =>
        // the copied rows first, the write's own as an append, so that a streaming read takes them as one
        val copied = leaves.create(uri, leafSchema, c.fragments)
        leaves.update(uri, if (strong) Some(copied.version) else None, None, p.fragments.toSeq)
      }
    }

    /** Applies `p`'s deletion and appends to the leaf at `uri` on top of `base`; Lance refusing
     * a merge-on-read deletion (another commit changed its fragments since the command read them)
     * is a conflict. */
    private def update(p: LeafPlan, uri: String, base: Option[Long]): LeafStats =
      try leaves.update(uri, base, p.deletion, p.fragments.toSeq)
      catch {
        case e: Exception
            if p.deletion.exists(_.isInstanceOf[RowDeletion.At]) &&
              (e.isInstanceOf[TransactionConflict] || Lance.isConflict(e)) =>
          conflict(s"partition ${describe(p.leaf.objectId, p.leaf.values)}: a concurrent write changed the " +
            s"fragments holding rows this write deletes (${e.getMessage})")
      }

    /** Commits a compaction of `p`'s leaf at `uri`; Lance refusing it (a concurrent DELETE or
     * compaction changed the fragments it rewrote) is a conflict. */
    private def rewrite(p: LeafPlan, uri: String): LeafStats =
      try leaves.rewrite(uri, p.rewrites)
      catch {
        case e: Exception if Lance.isConflict(e) =>
          throw new TransactionConflict(
            s"table ${store.table}: partition ${describe(p.leaf.objectId, p.leaf.values)}: a concurrent DELETE or " +
              "compaction changed fragments this compaction rewrote; this partition table was not compacted " +
              "(others may have been) and __manifest was not changed; run it again",
            e
          )
      }

    /** Commits the change `index` of the indexes of `p`'s leaf at `uri`; Lance refusing it (a
     * concurrent compaction or DELETE changed the fragments they cover) is a conflict. */
    private def index(p: LeafPlan, uri: String, index: LeafIndex): LeafStats =
      try leaves.index(uri, index.version, index.added, index.removed)
      catch {
        case e: Exception if Lance.isConflict(e) =>
          throw new TransactionConflict(
            s"table ${store.table}: partition ${describe(p.leaf.objectId, p.leaf.values)}: a concurrent write " +
              "changed fragments its indexes cover; its indexes were not changed (others' may have been) and " +
              "__manifest was not changed; run it again",
            e
          )
      }

    private def describe(objectId: String, values: Map[String, Any]): String =
      s"(${ManifestRow.shownValues(values)}) [$objectId]"

    private def conflict(what: String): Nothing =
      throw new TransactionConflict(s"table ${store.table}: $what; this write did not change __manifest")
  }
}

/** One leaf's change in an attempt: its manifest row as planned (`readVersion`: the version an
 * existing leaf's change applies to; None for a new leaf), the namespace rows a new leaf needs,
 * and what to apply. */
private case class LeafPlan(leaf: ManifestRow, isNew: Boolean, namespaces: Seq[ManifestRow] = Seq.empty) {
  val fragments: mutable.ArrayBuffer[org.lance.FragmentMetadata] = mutable.ArrayBuffer.empty
  var deletion: Option[RowDeletion] = None
  var rewrites: Seq[org.lance.compaction.RewriteResult] = Seq.empty
  var index: Option[LeafIndex] = None
  var leafCopy: Option[LeafCopy] = None
}

/** An attempt that recorded its micro-batch as begun (see [[Committer]]): the next runs at once. */
private class Begun(table: String, version: Long) extends ManifestConflict(table, version, null)

object Committer {
  val DefaultAttempts = 30

  /** The `v<N>` row `objectId` to write back as `read` has it (its metadata: other writers' keys
   * stay), or a new one: a namespace row, without partition values. */
  private def specRow(objectId: String, read: Option[ManifestRow]): ManifestRow =
    read.fold(ManifestRow(objectId, Naming.NamespaceType, None, None, Map.empty))(_.copy(values = Map.empty))
  private val BaseBackoffMs = 20L
  private val MaxBackoffMs = 2000L
  private val log = org.slf4j.LoggerFactory.getLogger(classOf[Committer])
}
