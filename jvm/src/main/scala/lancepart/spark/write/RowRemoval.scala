// What removing the rows that match Spark filters means for a table (DELETE, static INSERT
// OVERWRITE): whole partitions when every filter is decided by partition values alone (a
// metadata operation), otherwise row deletions in the partition tables that may match.
package lancepart.spark.write

import lancepart.manifest.ManifestRow
import lancepart.prune.{ManifestFilter, RowPredicate}
import lancepart.spark.PartitionedTable
import lancepart.spark.read.PartitionedScan
import org.apache.spark.sql.sources.{AlwaysFalse, AlwaysTrue, Filter}

/** `removed`: partitions removed whole; `deletes`: leaves and the predicate of their rows to delete. */
case class RowRemoval(removed: Map[String, ManifestRow], deletes: Map[String, (ManifestRow, RowPredicate)])

object RowRemoval {

  /** True when the rows matching `filters` can be removed: exact on partition fields, or
   * expressible as a Lance filter on the partition tables' columns. */
  def supports(table: PartitionedTable, filters: Seq[Filter]): Boolean = {
    val conditions = significant(filters)
    conditions.forall(ManifestFilter.isExact(table.manifest.meta, _)) || leafPredicate(table, conditions).isExpressible
  }

  /** `filters` is a conjunction: no filter (or only TRUE, as TRUNCATE and a plain static
   * INSERT OVERWRITE give) removes every partition. */
  def plan(table: PartitionedTable, all: Seq[Filter]): RowRemoval = {
    val meta = table.manifest.meta
    val filters = significant(all)
    if (filters.contains(AlwaysFalse)) return RowRemoval(Map.empty, Map.empty)
    val candidates = table.store.rows(table.manifest, ManifestFilter.tables(meta, filters))
    if (filters.forall(ManifestFilter.isExact(meta, _)))
      RowRemoval(candidates.map(r => r.objectId -> r).toMap, Map.empty)
    else {
      val predicate = leafPredicate(table, filters)
      if (!predicate.isExpressible) throw new UnsupportedOperationException(
        s"table ${table.name()}: cannot remove rows where ${filters.mkString(" AND ")}: the condition is neither on " +
          "identity partition columns only nor expressible as a Lance filter")
      RowRemoval(Map.empty, candidates.map(r => r.objectId -> (r, predicate)).toMap)
    }
  }

  private def significant(filters: Seq[Filter]): Seq[Filter] = filters.filterNot(_.isInstanceOf[AlwaysTrue])

  private def leafPredicate(table: PartitionedTable, filters: Seq[Filter]): RowPredicate =
    RowPredicate(filters, PartitionedScan.leafColumn(table.manifest.meta.schema), table.manifest.meta.schema.fields)
}
