// The commit protocol against real Lance datasets: transactions planned on the same manifest
// version and committed one after the other, as concurrent writers do.
package lancepart.txn

import java.nio.file.{Files, Path}

import lancepart.lance.{Lance, LanceAccess, LeafSchema}
import lancepart.manifest.{
  Committed, LeafCopyOf, Manifest, ManifestConflict, ManifestRow, ManifestStore, Naming, TableFiles
}
import lancepart.prune.RowPredicate
import lancepart.spec._
import lancepart.storage.HadoopDirectories
import lancepart.transform.Transform
import org.apache.arrow.vector.{BigIntVector, VarCharVector, VectorSchemaRoot}
import org.apache.arrow.vector.types.pojo.{ArrowType, Field}
import org.apache.hadoop.conf.Configuration
import org.apache.logging.log4j.{Level, LogManager}
import org.apache.logging.log4j.core.LogEvent
import org.apache.logging.log4j.core.appender.AbstractAppender
import org.apache.logging.log4j.core.config.Property
import org.apache.spark.sql.sources.EqualTo
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.lance.{Fragment, FragmentMetadata}
import org.lance.compaction.{Compaction, CompactionOptions}
import org.scalatest.funsuite.AnyFunSuite

import scala.collection.mutable
import scala.jdk.CollectionConverters._

class CommitterSuite extends AnyFunSuite {
  private val schema =
    NamespaceSchema.fromSpark(StructType(Seq(StructField("id", LongType), StructField("c", StringType))), "t")
  private val spec = PartitionSpec(
    1,
    Seq(
      PartitionField("c", Seq(1), Some(Transform.Identity), None, PartitionSpec.resultTypeJson(StringType))))
  private val leafSchema = LeafSchema.arrow(schema)

  private class Table(mode: TransactionMode) {
    val dir: Path = Files.createTempDirectory("committer")
    val store = new ManifestStore(dir.toString, "t", LanceAccess(Map.empty))
    store.create(TableMetadata.create("t", schema, spec, mode))
    val files = new TableFiles(dir.toString, new HadoopDirectories(new Configuration()))
    def committer = new Committer(store, files, leafSchema)
    def latest: Manifest = store.load()
    def directory(base: Manifest, replaceAll: Boolean = false): PartitionDirectory =
      PartitionDirectory.load(store, base, base.meta.currentSpec, Naming.randomName()).replacingFor(
        replaceAll,
        Set.empty)

    /** What a task writes: fragments of rows `ids` into partition `c`'s leaf as `directory` resolves it. */
    def write(directory: PartitionDirectory, c: String, ids: Seq[Long]): LeafWrite = {
      val target = directory.resolve(key(directory, c))
      LeafWrite(target, fragments(target.location, c, ids))
    }

    def key(directory: PartitionDirectory, c: String): PartitionKey =
      PartitionKey(directory.fieldIds, Seq(UTF8String.fromString(c)))

    /** Fragments of rows `ids` of partition `c`, written into the leaf directory `location`. */
    def fragments(location: String, c: String, ids: Seq[Long]): Seq[FragmentMetadata] =
      Lance.using(VectorSchemaRoot.create(leafSchema, Lance.allocator)) { root =>
        root.allocateNew()
        val id = root.getVector("id").asInstanceOf[BigIntVector]
        val cs = root.getVector("c").asInstanceOf[VarCharVector]
        ids.zipWithIndex.foreach { case (v, i) => id.setSafe(i, v); cs.setSafe(i, c.getBytes("UTF-8")) }
        root.setRowCount(ids.size)
        Fragment.write().datasetUri(
          store.leafUri(location)).allocator(Lance.allocator).data(root).execute().asScala.toSeq
      }

    def commit(base: Manifest, directory: PartitionDirectory, writes: LeafWrite*): Long =
      committer.commit(TableWrite(base, directory, writes))

    def leaves(): Seq[ManifestRow] = store.rows(latest, s"object_type = '${Naming.TableType}'")

    def ids(row: ManifestRow): Seq[Long] = store.lance.withDataset(store.leafUri(row), row.readVersion) { ds =>
      Lance.using(ds.newScan()) { scanner =>
        Lance.using(scanner.scanBatches()) { reader =>
          Iterator.continually(reader.loadNextBatch()).takeWhile(identity).flatMap { _ =>
            val v = reader.getVectorSchemaRoot.getVector("id").asInstanceOf[BigIntVector]
            (0 until v.getValueCount).map(v.get)
          }.toList
        }
      }
    }
  }

  for (mode <- Seq(TransactionMode.Weak, TransactionMode.Strong)) {
    test(s"$mode: two writers creating one partition end with one namespace and one leaf holding both") {
      val t = new Table(mode)
      val s0 = t.latest
      val (da, db) = (t.directory(s0), t.directory(s0))
      val a = t.write(da, "US", Seq(1, 2))
      val b = t.write(db, "US", Seq(3))
      assert(a.target.location != b.target.location)
      t.commit(s0, da, a)
      t.commit(s0, db, b)
      val rows = t.store.rows(t.latest, "true")
      assert(rows.count(r => r.objectType == Naming.NamespaceType && r.objectId != "v1") == 1)
      val leaves = t.leaves()
      assert(leaves.map(_.objectId) == Seq(a.target.objectId))
      assert(t.ids(leaves.head).sorted == Seq(1L, 2L, 3L))
      assert(t.files.leafDirectories() == Seq(a.target.location), "the second writer's directory is gone")
    }

    test(s"$mode: two writers re-creating a partition a metadata-only DELETE removed both land, the old leaf kept") {
      val t = new Table(mode)
      val d0 = t.directory(t.latest)
      t.commit(t.latest, d0, t.write(d0, "US", Seq(1)))
      val s1 = t.latest
      val old = t.leaves().head
      // DELETE WHERE c = 'US': the leaf's row goes, the namespace row above it stays
      t.committer.commit(TableWrite(
        s1,
        PartitionDirectory.empty(s1.meta.currentSpec),
        Seq.empty,
        removed = Map(old.objectId -> old)))
      val s2 = t.latest
      assert(t.leaves().isEmpty)
      val (da, db) = (t.directory(s2), t.directory(s2))
      val a = t.write(da, "US", Seq(2, 3))
      val b = t.write(db, "US", Seq(4))
      t.commit(s2, da, a)
      t.commit(s2, db, b)
      val leaves = t.leaves()
      assert(leaves.size == 1 && t.ids(leaves.head).sorted == Seq(2L, 3L, 4L))
      assert(t.ids(t.store.rows(s1, s"object_type = '${Naming.TableType}'").head) == Seq(1L), "version s1 still reads")
      assert(
        Set(a.target.location, b.target.location, old.location.get).size == 3,
        "each new leaf has its own directory")
    }

    test(s"$mode: a new partition table is never committed over a dataset already in its directory") {
      val t = new Table(mode)
      val s0 = t.latest
      val d = t.directory(s0)
      val a = t.write(d, "US", Seq(1))
      val there = t.store.leafUri(a.target.location)
      t.store.lance.create(there, leafSchema, None)
      val e = intercept[IllegalStateException](t.commit(s0, d, a))
      assert(e.getMessage.contains(s"the directory of its new partition table, $there, already holds a Lance dataset"))
      assert(t.latest.version == s0.version)
      assert(
        t.store.lance.withDataset(there)(ds => (ds.version(), ds.countRows())) == (1L, 0L),
        "the dataset is untouched")
    }

    test(s"$mode: appends to one partition planned on the same version both land") {
      val t = new Table(mode)
      val d0 = t.directory(t.latest)
      t.commit(t.latest, d0, t.write(d0, "US", Seq(1)))
      val s1 = t.latest
      val (da, db) = (t.directory(s1), t.directory(s1))
      val a = t.write(da, "US", Seq(2))
      val b = t.write(db, "US", Seq(3))
      assert(!a.target.isNew && !b.target.isNew)
      t.commit(s1, da, a)
      t.commit(s1, db, b)
      val leaf = t.leaves().head
      assert(t.ids(leaf).sorted == Seq(1L, 2L, 3L))
      val main = t.store.lance.withDataset(t.store.leafUri(leaf))(_.version())
      if (mode == TransactionMode.Strong) {
        assert(main == 1L, "strong-mode appends are detached: the main branch stays at the created version")
        assert(leaf.readVersion.exists(_ < 0), "a detached version has the top bit set")
        val records = t.store.rows(t.latest, s"object_type = '${Naming.TableVersionType}'")
        // one record per published version: created (1), then each writer's detached append
        assert(records.size == 3 && records.forall(_.objectId.startsWith(leaf.objectId + "$")))
        assert(Set(1L, leaf.readVersion.get).subsetOf(records.flatMap(_.readVersion).toSet))
      } else {
        assert(
          main == 3L && leaf.readVersion.isEmpty,
          "weak-mode rows leave read_version NULL: readers read the latest")
        assert(leaf.writtenVersion.contains(3L), "the version the last write left, for detecting concurrent overwrites")
      }
    }

    test(s"$mode: a compaction planned before an append commits beside it in weak mode, conflicts in strong") {
      val t = new Table(mode)
      for (n <- 1 to 3) { val d = t.directory(t.latest); t.commit(t.latest, d, t.write(d, "US", Seq(n.toLong))) }
      val s1 = t.latest
      val leaf = t.leaves().head
      val results = t.store.lance.withDataset(t.store.leafUri(leaf), Some(t.store.leafVersion(leaf))) { ds =>
        val plan = Compaction.planCompaction(ds, CompactionOptions.builder().build())
        plan.getCompactionTasks.asScala.toSeq.map(_.execute(ds))
      }
      val d = t.directory(s1)
      t.commit(s1, d, t.write(d, "US", Seq(4L)))
      val compaction = TableWrite(
        s1,
        PartitionDirectory.empty(s1.meta.currentSpec),
        Seq.empty,
        rewrites = Map(leaf.objectId -> LeafRewrite(leaf, results)))
      if (mode == TransactionMode.Strong) {
        val before = t.latest.version
        val e = intercept[TransactionConflict](t.committer.commit(compaction))
        assert(
          e.getMessage.contains("partition (c=US)") && e.getMessage.contains("while it was compacted"),
          e.getMessage)
        assert(t.latest.version == before)
      } else t.committer.commit(compaction)
      val now = t.leaves().head
      assert(t.ids(now).sorted == Seq(1L, 2L, 3L, 4L))
      val fragments = t.store.lance.withDataset(t.store.leafUri(now), now.readVersion)(_.getFragments.size)
      assert(fragments == (if (mode == TransactionMode.Strong) 4 else 2), "three compacted into one, then the append")
    }

    test(s"$mode: a compaction whose fragments a concurrent delete changed fails naming the partition") {
      val t = new Table(mode)
      for (n <- 1 to 3) { val d = t.directory(t.latest); t.commit(t.latest, d, t.write(d, "US", Seq(n.toLong))) }
      val s1 = t.latest
      val leaf = t.leaves().head
      val uri = t.store.leafUri(leaf)
      val results = t.store.lance.withDataset(uri, Some(t.store.leafVersion(leaf))) { ds =>
        Compaction.planCompaction(ds, CompactionOptions.builder().build()).getCompactionTasks.asScala.toSeq
          .map(_.execute(ds))
      }
      // another client deletes a row on the leaf's main branch (weak mode) or the table deletes it (strong)
      if (mode == TransactionMode.Weak) t.store.lance.withDataset(uri)(_.delete("id = 2"))
      else t.committer.commit(TableWrite(
        s1,
        PartitionDirectory.empty(s1.meta.currentSpec),
        Seq.empty,
        deletes = Map(leaf.objectId -> (
          leaf,
          RowPredicate(Seq(EqualTo("id", 2L)), c => Some(s"`$c`" -> LongType), schema.fields)))
      ))
      val before = t.latest.version
      val e = intercept[TransactionConflict](t.committer.commit(TableWrite(
        s1,
        PartitionDirectory.empty(s1.meta.currentSpec),
        Seq.empty,
        rewrites = Map(leaf.objectId -> LeafRewrite(leaf, results)))))
      assert(e.getMessage.contains("table t: partition (c=US)"), e.getMessage)
      assert(t.latest.version == before)
      assert(t.ids(t.leaves().head).sorted == Seq(1L, 3L), "the deleted row stays deleted")
    }

    // Regression (weak): a DELETE's Lance commit lost to a commit Lance cannot rebase it over (here
    // another writer adding a column to the partition table, a Merge) and the DELETE failed with
    // Lance's "Retryable commit conflict", after deleting from its other partition tables.
    test(s"$mode: a DELETE planned before a concurrent column add on its partition table deletes its rows") {
      val t = new Table(mode)
      val d0 = t.directory(t.latest)
      t.commit(t.latest, d0, t.write(d0, "US", Seq(1, 2)))
      val s1 = t.latest
      val leaf = t.leaves().head
      val uri = t.store.leafUri(leaf)
      var added = false
      // the predicate is rendered with the partition table open: another writer adds a column then
      val columns = (c: String) => {
        if (!added) {
          added = true
          t.store.lance.withDataset(uri)(_.addColumns(Seq(Field.nullable("other", ArrowType.Utf8.INSTANCE)).asJava))
        }
        Some(s"`$c`" -> LongType)
      }
      t.committer.commit(TableWrite(
        s1,
        PartitionDirectory.empty(s1.meta.currentSpec),
        Seq.empty,
        deletes = Map(leaf.objectId -> (leaf, RowPredicate(Seq(EqualTo("id", 1L)), columns, schema.fields)))
      ))
      assert(added)
      val now = t.leaves().head
      assert(t.ids(now) == Seq(2L))
      // strong mode deleted on top of the version the manifest pinned, beside the column add
      val columnsRead = t.store.lance.withDataset(uri, now.readVersion)(ds => LeafSchema.columns(ds).map(_.name))
      assert(columnsRead.contains("other") == (mode == TransactionMode.Weak), columnsRead)
    }

    test(s"$mode: replacing a partition another writer appended to fails naming it, and changes nothing") {
      val t = new Table(mode)
      val d0 = t.directory(t.latest)
      t.commit(t.latest, d0, t.write(d0, "US", Seq(1)))
      val s1 = t.latest
      val overwrite = t.directory(s1, replaceAll = true)
      val append = t.directory(s1)
      val replacing = t.write(overwrite, "US", Seq(10))
      assert(replacing.target.replaces && replacing.target.isNew)
      t.commit(s1, append, t.write(append, "US", Seq(2)))
      val before = t.latest.version
      val e = intercept[TransactionConflict](t.commit(s1, overwrite, replacing))
      assert(e.getMessage.contains("table t: partition (c=US)") && e.getMessage.contains("concurrent"), e.getMessage)
      assert(t.latest.version == before)
      assert(t.ids(t.leaves().head).sorted == Seq(1L, 2L))
    }

    test(
      s"$mode: a rewrite of a partition table is its copy then an append, and conflicts with a commit to the old one") {
      // what a write that cannot append to a partition table as it is (a widened column) commits
      def rewrite(t: Table, base: Manifest, ids: Seq[Long]): (PartitionDirectory, LeafWrite) = {
        val d = t.directory(base)
        val old = d.leaves(t.key(d, "US"))
        val target = d.replacement(t.key(d, "US"))
        val version = t.store.leafVersion(old)
        val copied = t.ids(old)
        val copy = LeafCopy(old.location.get, version, t.fragments(target.location, "US", copied))
        (d, LeafWrite(target, t.fragments(target.location, "US", ids), Some(copy)))
      }
      val t = new Table(mode)
      val d0 = t.directory(t.latest)
      t.commit(t.latest, d0, t.write(d0, "US", Seq(1, 2)))
      val old = t.leaves().head
      val (d1, w1) = rewrite(t, t.latest, Seq(3))
      t.commit(t.latest, d1, w1)
      val copy = t.leaves().head
      assert(copy.objectId == old.objectId && copy.location.contains(w1.target.location))
      assert(copy.copyOf.contains(LeafCopyOf(old.location.get, t.store.leafVersion(old))))
      assert(t.ids(copy).sorted == Seq(1L, 2L, 3L))
      assert(t.ids(copy.copy(readVersion = Some(1L))).sorted == Seq(1L, 2L), "version 1 holds the copy alone")
      // a weak-mode commit to the old table after the copy (another client's append) would be lost: a conflict
      if (mode == TransactionMode.Weak) {
        val s2 = t.latest
        val (d2, w2) = rewrite(t, s2, Seq(4))
        new LeafCommits(t.store.lance, detached = false)
          .update(t.store.leafUri(copy), None, None, t.fragments(copy.location.get, "US", Seq(5)))
        val e = intercept[TransactionConflict](t.commit(s2, d2, w2))
        assert(
          e.getMessage.contains("partition (c=US)") &&
            e.getMessage.contains("was written by a concurrent write after this write read its partition table"),
          e.getMessage
        )
        assert(t.latest.version == s2.version)
        assert(t.ids(t.leaves().head).sorted == Seq(1L, 2L, 3L, 5L))
      }
    }

    test(s"$mode: a serializable row-level command fails when a partition its filter selects changed or appeared") {
      for ((concurrent, conflicting) <- Seq("FR" -> "(c=FR)", "JP" -> "(c=JP)")) {
        val t = new Table(mode)
        val d0 = t.directory(t.latest)
        t.commit(t.latest, d0, t.write(d0, "US", Seq(1)), t.write(d0, "FR", Seq(2)))
        val s1 = t.latest
        val us = t.leaves().find(t.ids(_) == Seq(1L)).get
        // the command read US only (the runtime filter dropped FR) and rewrites it
        val command = t.directory(s1).replacingFor(replaceAll = false, Set(us.objectId))
        val rewrite = TableWrite(
          s1,
          command,
          Seq(t.write(command, "US", Seq(10))),
          removed = Map(us.objectId -> us),
          reads = Some(CommandRead(
            "UPDATE",
            "write.update.isolation-level",
            s"object_type = '${Naming.TableType}'",
            t.leaves().map(r => r.objectId -> r).toMap))
        )
        val other = t.directory(s1)
        t.commit(s1, other, t.write(other, concurrent, Seq(3)))
        val before = t.latest.version
        val e = intercept[TransactionConflict](t.committer.commit(rewrite))
        assert(
          e.getMessage.contains(s"partition $conflicting") && e.getMessage.contains(
            "after this UPDATE read the table") &&
            e.getMessage.contains("(table property write.update.isolation-level)"),
          e.getMessage
        )
        assert(t.latest.version == before)
        // at snapshot isolation only the partitions rewritten must be unchanged
        t.committer.commit(rewrite.copy(reads = None))
        val expected = if (concurrent == "FR") Seq(Seq(2L, 3L), Seq(10L)) else Seq(Seq(2L), Seq(3L), Seq(10L))
        assert(t.leaves().map(t.ids(_).sorted).sortBy(_.head) == expected)
      }
    }

    test(s"$mode: a dynamic overwrite replaces the partition with a new leaf, the old one kept for older versions") {
      val t = new Table(mode)
      val d0 = t.directory(t.latest)
      t.commit(t.latest, d0, t.write(d0, "US", Seq(1)))
      val s1 = t.latest
      val old = t.leaves().head
      val overwrite = t.directory(s1, replaceAll = true)
      t.commit(s1, overwrite, t.write(overwrite, "US", Seq(7, 8)))
      val now = t.leaves().head
      assert(now.objectId == old.objectId && now.location != old.location)
      assert(t.ids(now).sorted == Seq(7L, 8L))
      assert(
        t.store.rows(s1, s"object_type = '${Naming.TableType}'") == Seq(old),
        "version s1 still names the old leaf")
    }
  }

  /** A store where another writer commits just before each of this one's first `races` commits. */
  private class RacedStore(dir: Path, var races: Int) extends ManifestStore(dir.toString, "t", LanceAccess(Map.empty)) {
    override def commit(expected: Long, rows: Seq[ManifestRow], removed: Seq[String]): Committed = {
      if (races > 0) {
        races -= 1
        upsert(Seq(ManifestRow("v1", Naming.NamespaceType, None, None, Map.empty)))
      }
      super.commit(expected, rows, removed)
    }
  }

  /** A store whose next `__manifest` commit lets a RENAME COLUMN id TO key run to its end first,
   * as a concurrent ALTER TABLE does between a write's last look at the manifest and its commit. */
  private class RenamedFirst(dir: Path, files: TableFiles)
      extends ManifestStore(dir.toString, "t", LanceAccess(Map.empty)) {
    private var pending = true
    override def commit(expected: Long, rows: Seq[ManifestRow], removed: Seq[String]): Committed = {
      if (pending) {
        pending = false
        val current = load().meta
        val renamed = SchemaEvolution(current, Seq(SchemaEvolution.RenameColumn("id", "key")))
        new LeafRenames(this, files, attempts = 3)(
          current,
          TableMetadata.fromProperties(current.properties + (TableMetadata.SchemaKey -> renamed.json), "t"))
      }
      super.commit(expected, rows, removed)
    }
  }

  for (mode <- Seq(TransactionMode.Weak, TransactionMode.Strong)) {
    test(s"$mode: a write committed right after a RENAME COLUMN names the columns of its new leaves as the schema") {
      val t = new Table(mode)
      val d0 = t.directory(t.latest)
      t.commit(t.latest, d0, t.write(d0, "US", Seq(1)))
      val base = t.latest
      val d1 = t.directory(base)
      // Lance lands the write's __manifest commit on top of the rename's schema commit
      new Committer(new RenamedFirst(t.dir, t.files), t.files, leafSchema)
        .commit(TableWrite(base, d1, Seq(t.write(d1, "FR", Seq(2)))))
      assert(t.latest.meta.schema.fields.map(_.name) == Seq("key", "c"))
      for (leaf <- t.leaves()) {
        val names = t.store.lance.withDataset(t.store.leafUri(leaf), leaf.readVersion)(
          _.getSchema.getFields.asScala.map(_.getName).toSeq)
        assert(names == Seq("key", "c"), s"partition table of ${leaf.values}")
      }
      assert(t.leaves().size == 2)
    }
  }

  /** The messages Committer logs at INFO and above while `body` runs. */
  private def committerLog(body: => Unit): Seq[(Level, String)] = {
    val logger = LogManager.getLogger(classOf[Committer]).asInstanceOf[org.apache.logging.log4j.core.Logger]
    val events = mutable.ArrayBuffer.empty[(Level, String)]
    val appender = new AbstractAppender("committer-test", null, null, true, Property.EMPTY_ARRAY) {
      override def append(event: LogEvent): Unit =
        events.synchronized(events += event.getLevel -> event.getMessage.getFormattedMessage)
    }
    appender.start()
    val level = logger.getLevel
    logger.addAppender(appender)
    logger.setLevel(Level.INFO)
    try body
    finally { logger.removeAppender(appender); logger.setLevel(level); appender.stop() }
    events.toSeq
  }

  test("a lost commit race is logged with table, attempt and the manifest version seen; giving up is a warning") {
    val t = new Table(TransactionMode.Weak)
    val d0 = t.directory(t.latest)
    val seen = t.latest.version
    val retried = committerLog(new Committer(new RacedStore(t.dir, races = 1), t.files, leafSchema, attempts = 2)
      .commit(TableWrite(t.latest, d0, Seq(t.write(d0, "US", Seq(1))))))
    assert(retried.map(_._1) == Seq(Level.INFO), retried)
    assert(
      retried.head._2.startsWith(
        s"table t: commit attempt 1 of 2 lost to a concurrent commit on top of manifest version $seen; retrying in "),
      retried)
    assert(t.ids(t.leaves().head) == Seq(1L))

    val u = new Table(TransactionMode.Weak)
    val d1 = u.directory(u.latest)
    val gaveUp = committerLog(intercept[TransactionConflict](
      new Committer(new RacedStore(u.dir, races = 1), u.files, leafSchema, attempts = 1)
        .commit(TableWrite(u.latest, d1, Seq(u.write(d1, "US", Seq(1)))))))
    assert(
      gaveUp.map(_._1) == Seq(Level.WARN) && gaveUp.head._2.startsWith("table t: gave up after 1 commit attempts"),
      gaveUp)
  }

  for (mode <- Seq(TransactionMode.Weak, TransactionMode.Strong)) {
    test(s"$mode: a DELETE whose manifest commit races an ALTER TABLE is reported as what readers see") {
      val t = new Table(mode)
      val d0 = t.directory(t.latest)
      t.commit(t.latest, d0, t.write(d0, "US", Seq(1, 2)))
      val base = t.latest
      val leaf = t.leaves().head
      // the first manifest commit of the DELETE loses to another writer's commit, and an ADD COLUMN
      // commits before its second attempt
      val store = new ManifestStore(t.dir.toString, "t", LanceAccess(Map.empty)) {
        private var raced = false
        override def commit(expected: Long, rows: Seq[ManifestRow], removed: Seq[String]): Committed = {
          if (!raced) {
            raced = true
            val current = load().meta
            val added = SchemaEvolution(current, Seq(SchemaEvolution.AddColumn("extra", StringType, None)))
            updateSchema(
              current,
              TableMetadata.fromProperties(current.properties + (TableMetadata.SchemaKey -> added.json), "t"))
            upsert(Seq(ManifestRow("v1", Naming.NamespaceType, None, None, Map.empty)))
          }
          super.commit(expected, rows, removed)
        }
      }
      val delete = TableWrite(
        base,
        t.directory(base),
        Seq.empty,
        deletes =
          Map(leaf.objectId -> (
            leaf,
            RowPredicate(Seq(EqualTo("id", 1L)), c => Some(s"`$c`" -> LongType), schema.fields))))
      val committer = new Committer(store, t.files, leafSchema)
      if (mode == TransactionMode.Weak) {
        // the leaf's main branch lost row 1 in the first attempt: the DELETE is done
        committer.commit(delete)
        assert(t.ids(t.leaves().head) == Seq(2L))
      } else {
        // strong: the leaf change was detached and the manifest still pins the old version
        val e = intercept[TransactionConflict](committer.commit(delete))
        assert(e.getMessage.contains("nothing was committed"), e.getMessage)
        assert(t.ids(t.leaves().head) == Seq(1L, 2L))
      }
    }
  }

  test("a commit from an older manifest version loses to the commit made since") {
    val t = new Table(TransactionMode.Weak)
    val s0 = t.latest.version
    val guard = ManifestRow("v1", Naming.NamespaceType, None, None, Map.empty)
    t.store.commit(s0, Seq(guard), Seq.empty)
    intercept[ManifestConflict](t.store.commit(s0, Seq(guard), Seq.empty))
  }
}
