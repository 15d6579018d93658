// The history of a plain Lance table for `<table>.snapshots` and `<table>.history`: one entry per
// Lance version the dataset keeps, its operation named from the version's Lance transaction.
package lancepart.spark.plain

import lancepart.lance.{Lance, LanceAccess}
import lancepart.manifest.ManifestCommit
import org.apache.spark.sql.catalyst.util.DateTimeUtils
import org.lance.operation._

import scala.jdk.CollectionConverters._

object PlainHistory {

  /** The Lance transaction property that marks the commit of CREATE TABLE's properties. */
  val OperationKey = "lancepart.operation"
  val Create = "create"

  /**
   * Every version of the dataset at `uri`, oldest first. The operation follows the version's
   * Lance transaction: `create` (version 1, and the version of CREATE TABLE's properties, whose
   * transaction properties say so: [[OperationKey]]), `unknown` (the oldest version an expiry kept, or
   * one without a transaction file), `append`, `delete`, `overwrite` (an
   * Overwrite, or an Update: UPDATE and MERGE INTO rewrite fragments), `replace` (a compaction),
   * `rollback` (a Restore), `alter` (schema or config only). The
   * summary has the totals after it, and rows added (append) or deleted (delete).
   */
  def read(lance: LanceAccess, uri: String): Seq[ManifestCommit] = {
    val versions = lance.withDataset(uri)(_.listVersions().asScala.toSeq)
    versions.zip(None +: versions.map(Some(_))).map { case (v, before) =>
      // the oldest version an expiry kept: the one before it is gone, nothing to compare with
      val oldestKept = before.isEmpty && v.getId != 1
      val transaction = lance.withDataset(uri, Some(v.getId))(Lance.transaction)
      val operation = transaction.map(_.operation())
      val rows = v.getManifestSummary.getTotalRows
      val change = before.fold(0L)(b => rows - b.getManifestSummary.getTotalRows)
      val atCreate =
        transaction.flatMap(t => Option(t.transactionProperties().orElse(null))).exists(_.get(OperationKey) == Create)
      val name = operation.filterNot(_ => oldestKept).fold("unknown") {
        case _ if v.getId == 1 || atCreate => Create
        case _: Append => "append"
        case _: Delete => "delete"
        case _: Overwrite | _: Update => "overwrite"
        case _: Rewrite => "replace"
        case _: Restore => "rollback"
        case _: Project | _: UpdateConfig | _: Merge => "alter"
        case _ => "unknown"
      }
      val counts = (name, operation) match {
        case ("append", _) => Map("added-records" -> change)
        case ("delete", _) => Map("deleted-records" -> -change)
        // an UPDATE or MERGE: the rows of its new fragments are added, and as many as it changed deleted
        case ("overwrite", Some(u: Update)) =>
          val added = u.newFragments().asScala.map(_.getPhysicalRows).sum
          Map("added-records" -> added, "deleted-records" -> (added - change))
        case _ => Map.empty[String, Long]
      }
      ManifestCommit(
        v.getId,
        DateTimeUtils.instantToMicros(v.getDataTime.toInstant),
        before.map(_.getId).orElse(if (oldestKept) Some(v.getId - 1) else None),
        name,
        (counts.filter(_._2 != 0) ++ Map(
          "total-records" -> rows,
          "total-data-files" -> v.getManifestSummary.getTotalDataFiles)).map { case (k, n) => k -> n.toString },
        operation.collect { case r: Restore => r.version() }
      )
    }
  }
}
