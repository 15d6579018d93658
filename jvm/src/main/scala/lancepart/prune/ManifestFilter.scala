// Partition pruning (spec: Partition Pruning, Appendix D): Spark filters -> one __manifest filter.
package lancepart.prune

import lancepart.manifest.{ManifestStore, Naming}
import lancepart.spec.{BoundSpec, TableMetadata}
import org.apache.spark.sql.sources.{And, Filter, Not, Or}
import org.apache.spark.sql.types.DataType

/**
 * Each spec version is pruned with its own fields: a filter on a source column becomes a
 * predicate on the partition columns that version derives from it, and versions are OR-ed:
 * {{{ object_type = 'table' AND ((object_id LIKE 'v1$%' AND <v1 predicate>) OR ...) }}}
 * A predicate may select more partitions than hold matches, never fewer: a part that cannot be
 * projected exactly is dropped from an AND, and makes an OR or NOT unprojectable.
 */
object ManifestFilter {
  def tables(meta: TableMetadata, filters: Seq[Filter]): String = {
    val perVersion = meta.specs.map { spec =>
      val scope = s"${ManifestStore.ObjectId} LIKE 'v${spec.id}${Naming.Delimiter}%'"
      project(filters.reduceOption(And), spec, meta).fold(scope)(p => s"($scope AND $p)")
    }
    s"${ManifestStore.ObjectType} = '${Naming.TableType}' AND (${perVersion.mkString(" OR ")})"
  }

  private def project(filter: Option[Filter], spec: BoundSpec, meta: TableMetadata): Option[String] = {
    val target: String => Option[(String, DataType)] = attr =>
      meta.schema.byName(attr).flatMap { source =>
        spec.fields.find(f => f.isIdentityOf(source.id))
          .flatMap(f => LanceSql.column(f.column).map(_ -> f.valueType))
      }
    def go(f: Filter): Option[String] = f match {
      case And(l, r) => (go(l), go(r)) match {
        case (Some(a), Some(b)) => Some(s"($a) AND ($b)")
        case (a, b) => a.orElse(b)
      }
      case Or(l, r) => for (a <- go(l); b <- go(r)) yield s"($a) OR ($b)"
      case n: Not => LanceSql.render(n, target)
      case leaf => LanceSql.render(leaf, target)
    }
    filter.flatMap(go)
  }
}
