// How a streaming read takes __manifest commits: appends, deletes and overwrites as Iceberg's
// snapshot operations, from the partition tables they removed, replaced or created and the Lance
// commits they made; a commit a weak-mode read saw in part before __manifest named it.
package lancepart.spark.read

import java.time.Instant

import lancepart.lance.VersionChange
import lancepart.manifest.{ManifestRow, Naming}
import org.scalatest.funsuite.AnyFunSuite

class StreamCommitsSuite extends AnyFunSuite {
  private def row(c: String): ManifestRow =
    ManifestRow(s"v1$$$c$$dataset", Naming.TableType, Some(s"leaf-$c"), None, Map("c" -> c))
  private val (a, b, n) = (row("a"), row("b"), row("n"))
  private val at = Instant.EPOCH
  private def appended(v: Long) = VersionChange.Appended(v, at, Seq(v.toInt), 1)
  private def commit(version: Long, reached: Map[String, Long], created: Set[String] = Set.empty) =
    FollowedCommit(version, Seq.empty, Seq.empty, created, reached)

  test("an append is no changing commit; a deletion with an append in one commit is an overwrite") {
    val append = commit(4, reached = Map("leaf-a" -> 7L, "leaf-n" -> 1L), created = Set("leaf-n"))
    assert(StreamCommits.changing(Seq(append), Seq(TableChanges(a, Seq(appended(7)))), Seq.empty).isEmpty)
    val moved = commit(5, reached = Map("leaf-a" -> 8L, "leaf-b" -> 3L))
    val changes = Seq(
      TableChanges(a, Seq(VersionChange.Deleted(8, at, "Delete"))),
      TableChanges(b, Seq(appended(3))))
    val Seq(overwrite) = StreamCommits.changing(Seq(moved), changes, Seq.empty)
    assert(!overwrite.deletes && overwrite.versions == Set("leaf-a" -> 8L, "leaf-b" -> 3L))
    assert(
      overwrite.what == "partition (c=a) had rows deleted (Lance Delete), and rows were added at manifest version 5")
    val Seq(delete) = StreamCommits.changing(Seq(moved), changes.take(1), Seq.empty)
    assert(delete.deletes)
  }

  test("a commit whose changes a weak-mode read passed before is told by them; one made of them alone is left out") {
    // Regression (a new user's trial): a MERGE whose Update a micro-batch had passed (before
    // __manifest named it) looked like an append, and the partition it created was read.
    val merge = commit(6, created = Set("leaf-n"), reached = Map("leaf-a" -> 9L, "leaf-b" -> 4L, "leaf-n" -> 1L))
    val passed = Seq(
      TableChanges(a, Seq(VersionChange.Rewrote(9, at, "Update"))),
      TableChanges(b, Seq(VersionChange.Appended(4, at, Seq.empty, 0))))
    val Seq(skipped) = StreamCommits.changing(Seq(merge), Seq(TableChanges(n, Seq.empty)), passed)
    assert(!skipped.deletes && skipped.created == Map("leaf-n" -> 1L))
    assert(skipped.what.contains("partition (c=a) had rows changed (Lance Update) at manifest version 6"))
    val update = commit(7, reached = Map("leaf-a" -> 10L))
    val before = Seq(TableChanges(a, Seq(VersionChange.Rewrote(10, at, "Update"))))
    assert(StreamCommits.changing(Seq(update), Seq.empty, before).isEmpty)
  }

  test("a version that deletes rows and that no commit names is a commit of its own") {
    val Seq(own) =
      StreamCommits.changing(Seq.empty, Seq(TableChanges(a, Seq(VersionChange.Deleted(11, at, "Delete")))), Seq.empty)
    assert(own.deletes && own.versions == Set("leaf-a" -> 11L) && own.what.contains("no __manifest version names"))
  }
}
