// The history of a table's __manifest, one entry per manifest version Lance still holds: when it was
// committed, what it changed (partition tables added, removed or rewritten; rows added and removed,
// from the row counts commits record in __manifest) and, for a rollback, the version it restored.
// `<table>.snapshots` and `<table>.history` show it.
package lancepart.manifest

import lancepart.lance.{Lance, LeafHistory, VersionChange}
import lancepart.spec.FormatException
import org.apache.spark.sql.catalyst.util.DateTimeUtils
import org.lance.operation.Restore

import scala.jdk.CollectionConverters._
import scala.util.Try

/**
 * Manifest `version`, committed at `committedAtMicros`, on top of `parent` (None for the table's
 * first version; for the oldest one an expiry kept, the expired one before it). `operation` is
 * `create` (the versions that make the table, up to its first rows in `__manifest`), `unknown`
 * (the oldest version an expiry kept: nothing to compare it with), `append`, `delete`,
 * `overwrite`, `replace` (rows rewritten, none added or removed, as by compaction, or nothing
 * visible changed), `alter` (table metadata or partition specs only: a spec evolution's commits
 * add `__manifest` columns and a `v<N>` row) or `rollback` (restoring `restored`).
 * `summary` counts, as Iceberg's snapshot summaries do, what changed (counts of zero left out)
 * and the totals after it.
 */
case class ManifestCommit(
    version: Long,
    committedAtMicros: Long,
    parent: Option[Long],
    operation: String,
    summary: Map[String, String],
    restored: Option[Long])

object ManifestHistory {

  /** The table at one manifest version: its table metadata, partition tables by object id, and
   * `__manifest`'s row and column counts (no rows: a table being created; a spec evolution adds
   * columns and a `v<N>` row). */
  private case class State(
      properties: Map[String, String],
      tables: Map[String, ManifestRow],
      manifestRows: Long,
      manifestColumns: Int) {
    def empty: Boolean = manifestRows == 0
  }

  /** Every manifest version `store` holds from the table's partition spec on, oldest first. */
  def read(store: ManifestStore): Seq[ManifestCommit] = {
    val versions = store.committed()
    val rowCounts = scala.collection.mutable.Map.empty[(String, Option[String], Long), Long]
    // lancepart's stats are of main-branch versions; a row another writer made read a branch counts there
    def rows(row: ManifestRow): Option[Long] = row.stats.filter(s =>
      row.readBranch.isEmpty && row.readVersion.forall(_ == s.version)).map(_.rows).orElse(row.readVersion.map(v =>
      rowCounts.getOrElseUpdate(
        (row.location.get, row.readBranch, v),
        store.lance.withDataset(store.leafUri(row), Some(v), row.readBranch)(_.countRows()))))
    val states = versions.map { v =>
      val (restored, manifestRows, manifestColumns, properties) =
        store.lance.withDataset(store.uri, Some(v.version)) { ds =>
          // A version without a transaction file (or of an operation lance-core cannot describe) restored nothing.
          val restore = Lance.operation(ds).collect { case r: Restore => r.version() }
          (restore, ds.countRows(), ds.getSchema.getFields.size, ds.getTableMetadata.asScala.toMap)
        }
      val state = partitioned(store, v.version).map { manifest =>
        State(
          properties,
          store.rows(manifest, ManifestQuery.tables(manifest.meta)).map(r => r.objectId -> r).toMap,
          manifestRows,
          manifestColumns)
      }
      (v, restored, state)
    }
    // Versions before the table's partition spec was published are no table yet: they are left out.
    states.indices.filter(i => states(i)._3.isDefined).map { i =>
      val (v, restored, state) = states(i)
      val id = v.version
      val before = if (i > 0) Some(states(i - 1)._3) else None
      val (operation, summary) = (restored, before) match {
        case (Some(r), _) => ("rollback", Map("restored-version" -> r.toString))
        case (None, Some(b)) => change(store, b, state.get, rows)
        // the first version Lance keeps, its predecessor expired: nothing to compare with
        case (None, None) => (if (id == 1) "create" else "unknown", Map.empty[String, String])
      }
      ManifestCommit(
        id,
        DateTimeUtils.instantToMicros(v.at),
        if (i > 0) states(i - 1)._3.map(_ => states(i - 1)._1.version) else if (id > 1) Some(id - 1) else None,
        operation,
        summary ++ totals(state.get, rows),
        restored
      )
    }
  }

  /** Manifest `version` as a partitioned table, or None before its partition spec was published. */
  private def partitioned(store: ManifestStore, version: Long): Option[Manifest] =
    try Some(store.loadAt(version))
    catch { case _: FormatException => None }

  private def totals(state: State, rows: ManifestRow => Option[Long]): Map[String, String] = {
    val counts = state.tables.values.toList.map(rows)
    Map("total-partition-tables" -> state.tables.size.toString) ++
      (if (counts.forall(_.isDefined)) Some("total-records" -> counts.flatten.sum.toString) else None)
  }

  /** Whether the partition table of `was` changed rows in place on its way to `now` (same
   * location): a commit between the versions they record (read_version, or a weak write's
   * written version) that rewrote rows, or both deleted and appended some, as a merge-on-read
   * UPDATE or MERGE does. False when the versions are not recorded or cannot be followed. */
  private def rewrites(store: ManifestStore, was: ManifestRow, now: ManifestRow): Boolean =
    was.location == now.location && ((
      was.readVersion.orElse(was.writtenVersion),
      now.readVersion.orElse(now.writtenVersion)) match {
      case (Some(from), Some(to)) if from != to =>
        Try(LeafHistory.changes(store.lance, store.leafUri(now), from, to, listAdded = false)).toOption.exists {
          commits =>
            commits.exists(_.isInstanceOf[VersionChange.Rewrote]) ||
            (commits.exists(_.isInstanceOf[VersionChange.Deleted]) && commits.exists(
              _.isInstanceOf[VersionChange.Appended]))
        }
      case _ => false
    })

  /** The operation from `before` (None: no table yet) to `a` and its summary. A partition table at a new location
   * replaced the old one: its rows count as deleted and the new ones as added. */
  private def change(
      store: ManifestStore,
      before: Option[State],
      a: State,
      rows: ManifestRow => Option[Long]): (String, Map[String, String]) = before match {
    case None => ("create", Map.empty)
    case Some(b) if b.empty => ("create", Map.empty)
    case Some(b) =>
      val added = a.tables.keySet -- b.tables.keySet
      val deleted = b.tables.keySet -- a.tables.keySet
      // a partition table's values read anew when a spec evolution adds columns: they are no change of it
      val changed = (a.tables.keySet & b.tables.keySet)
        .filter(id => a.tables(id).copy(values = Map.empty) != b.tables(id).copy(values = Map.empty)).toSeq
      val deltas: Seq[Option[(Long, Long)]] = added.toSeq.map(id => rows(a.tables(id)).map(n => (n, 0L))) ++
        deleted.toSeq.map(id => rows(b.tables(id)).map(n => (0L, n))) ++
        changed.map { id =>
          val (was, now) = (b.tables(id), a.tables(id))
          for (old <- rows(was); fresh <- rows(now)) yield {
            if (was.location != now.location) (fresh, old) else (math.max(fresh - old, 0L), math.max(old - fresh, 0L))
          }
        }
      val records =
        if (deltas.forall(_.isDefined)) Some((deltas.flatten.map(_._1).sum, deltas.flatten.map(_._2).sum)) else None
      // rows deleted and added in one partition table cancel out in its counts: its commits tell
      lazy val rewrote = changed.exists(id => rewrites(store, b.tables(id), a.tables(id)))
      val operation =
        if (added.isEmpty && deleted.isEmpty && changed.isEmpty) {
          val altered = a.properties != b.properties || a.manifestColumns != b.manifestColumns ||
            a.manifestRows != b.manifestRows
          if (altered) "alter" else "replace"
        } else records match {
          case Some((0L, 0L)) if deleted.isEmpty && added.isEmpty => if (rewrote) "overwrite" else "replace"
          case Some((_, 0L)) if deleted.isEmpty => if (rewrote) "overwrite" else "append"
          case Some((0L, _)) if added.isEmpty => "delete"
          case _ => "overwrite"
        }
      // As Iceberg's summaries: counts that are zero are left out.
      val counts = Seq(
        "added-partition-tables" -> added.size.toLong,
        "deleted-partition-tables" -> deleted.size.toLong,
        "changed-partition-tables" -> changed.size.toLong) ++
        records.toSeq.flatMap { case (p, q) => Seq("added-records" -> p, "deleted-records" -> q) }
      (operation, counts.collect { case (k, n) if n != 0 => k -> n.toString }.toMap)
  }
}
