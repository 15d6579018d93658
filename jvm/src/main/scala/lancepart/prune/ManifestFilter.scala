// Partition pruning (spec: Partition Pruning, Appendix D): Spark filters -> one __manifest filter.
package lancepart.prune

import lancepart.lance.PartitionValues
import lancepart.manifest.ManifestQuery
import lancepart.spec.{BoundField, BoundSpec, CalendarRun, SchemaField, TableMetadata}
import lancepart.transform.{BucketHash, Transform}
import org.apache.spark.sql.sources._
import org.apache.spark.sql.types.{DataType, DateType, StringType}

import scala.util.control.NonFatal

/**
 * Each spec version is pruned with its own fields: a filter on a source column becomes a
 * predicate on the partition columns that version derives from it, and versions are OR-ed:
 * {{{ object_type = 'table' AND ((object_id LIKE 'v1$%' AND <v1 predicate>) OR ...) }}}
 * A predicate may select more partitions than hold matches, never fewer. Identity projections
 * are exact; projections through other transforms select a superset, so they are dropped under
 * NOT, while an OR needs both sides projected.
 */
object ManifestFilter {
  def tables(meta: TableMetadata, filters: Seq[Filter]): String = {
    val conjuncts = filters.flatMap(flatten)
    val predicates =
      meta.specs.map(spec => spec.id -> new SpecProjector(spec, meta).conjunction(conjuncts).map(_.sql)).toMap
    ManifestQuery.tables(meta, predicates)
  }

  /**
   * True when every spec version projects `filter` exactly: the manifest query then selects
   * exactly the partitions whose rows all satisfy it, and Spark need not evaluate it again.
   * Never while the table has partition tables without partition values (their rows are
   * selected whatever the filter).
   */
  def isExact(meta: TableMetadata, filter: Filter): Boolean =
    meta.unpartitioned.isEmpty && meta.specs.forall(spec =>
      new SpecProjector(spec, meta).conjunction(flatten(filter)).exists(_.exact))

  private def flatten(f: Filter): Seq[Filter] = f match {
    case And(l, r) => flatten(l) ++ flatten(r)
    case other => Seq(other)
  }

  /** A predicate on partition columns; `exact` when it holds exactly for the partitions whose
   * rows satisfy the filter (not only for a superset of them). */
  private case class Proj(sql: String, exact: Boolean)

  private def all(parts: Seq[Proj], exact: Boolean): Option[Proj] =
    if (parts.isEmpty) None
    else if (parts.size == 1) Some(parts.head.copy(exact = exact))
    else Some(Proj(parts.map(p => s"(${p.sql})").mkString(" AND "), exact))

  private class SpecProjector(spec: BoundSpec, meta: TableMetadata) {

    /** At most this many value combinations are evaluated for a multi-source field. */
    private val MaxCombinations = 1024

    private val calendarRuns = CalendarRun.group(spec.fields).filter(CalendarRun.isRun)

    def project(f: Filter): Option[Proj] = f match {
      case _: And => conjunction(flatten(f))
      case Or(l, r) =>
        for (a <- project(l); b <- project(r)) yield Proj(s"(${a.sql}) OR (${b.sql})", a.exact && b.exact)
      case Not(c) => project(c).filter(_.exact).map(p => Proj(s"NOT (${p.sql})", exact = true))
      case leaf => conjunction(Seq(leaf))
    }

    def conjunction(conjuncts: Seq[Filter]): Option[Proj] = {
      val singles = conjuncts.map {
        case c @ (_: Or | _: Not) => project(c)
        case leaf => all(spec.fields.flatMap(onField(_, leaf)), spec.fields.exists(onField(_, leaf).exists(_.exact)))
      }
      val extra = spec.fields.flatMap(f => calendarRange(f, conjuncts) ++ boundValues(f, conjuncts)) ++
        calendarRuns.flatMap(runRange(_, conjuncts))
      all(singles.flatten ++ extra, exact = singles.forall(_.exists(_.exact)))
    }

    private def sourceOf(attr: String): Option[Int] = meta.schema.byName(attr).map(_.id)

    private def columnOf(f: BoundField): Option[String] =
      LanceSql.column(f.column).flatMap(LanceSql.asRead(_, f.storedType))

    /** The projection of one single-column filter onto field `f`. */
    private def onField(f: BoundField, leaf: Filter): Option[Proj] = {
      val attr = leaf.references.toSeq match { case Seq(a) => a; case _ => return None }
      val source = f.source.filter(s => sourceOf(attr).contains(s.id))
      (f.field.transform, source, columnOf(f)) match {
        case (Some(Transform.Identity), Some(_), Some(col)) =>
          LanceSql.render(leaf, a => if (sourceOf(a) == source.map(_.id)) Some(col -> f.valueType) else None)
            .map(Proj(_, exact = true))
        case (Some(t), Some(s), Some(col)) => transformed(f, t, s.dataType, col, leaf)
        case _ => None
      }
    }

    /** The internal values of type `dt` that Spark's `=` matches for `vs`: 0.0 and -0.0 both
     * (they hash apart); None when one has no exact internal form or is NaN (any payload bits). */
    private def equalValues(vs: Seq[Any], dt: DataType): Option[Seq[Any]] = {
      val converted = vs.map(LanceSql.internal(_, dt).flatMap(BucketHash.equalValues))
      if (converted.exists(_.isEmpty)) None else Some(converted.flatten.flatten)
    }

    /** Projects through `t`: its values of `=` and IN values, ranges when it preserves order,
     * string prefixes when it keeps them. */
    private def transformed(
        f: BoundField,
        t: Transform,
        sourceType: DataType,
        col: String,
        leaf: Filter): Option[Proj] = {
      def apply(v: Any): Any = f.transformValue(IndexedSeq(v))
      def values(vs: Seq[Any]): Option[Seq[Any]] = equalValues(vs, sourceType).map(_.map(apply))
      def cmp(v: Any, op: String): Option[Proj] =
        for (iv <- LanceSql.internal(v, sourceType) if iv != null; lit <- LanceSql.literal(apply(iv), f.valueType))
          yield Proj(s"$col $op $lit", exact = false)
      val monotonic = t.preservesOrder
      leaf match {
        case EqualTo(_, v) =>
          values(Seq(v)).filterNot(_.contains(null)).flatMap(LanceSql.in(col, _, f.valueType)).map(Proj(
            _,
            exact = false))
        case EqualNullSafe(_, v) if v != null => onField(f, EqualTo(leaf.references.head, v))
        case EqualNullSafe(_, null) | IsNull(_) => Some(Proj(s"$col IS NULL", exact = true))
        case IsNotNull(_) => Some(Proj(s"$col IS NOT NULL", exact = true))
        case In(_, vs) =>
          values(vs.toSeq.filter(_ != null)).flatMap(LanceSql.in(col, _, f.valueType)).map(Proj(_, exact = vs.isEmpty))
        case GreaterThan(_, v) if monotonic => cmp(v, ">=")
        case GreaterThanOrEqual(_, v) if monotonic => cmp(v, ">=")
        case LessThan(_, v) if monotonic => cmp(v, "<=")
        case LessThanOrEqual(_, v) if monotonic => cmp(v, "<=")
        case StringStartsWith(_, prefix) if t.stringPrefix.isDefined && sourceType == StringType =>
          val w = t.stringPrefix.get
          if (prefix.codePointCount(0, prefix.length) >= w) cmp(prefix, "=")
          else LanceSql.string(prefix).map(p => Proj(s"starts_with($col, $p)", exact = false))
        case _ => None
      }
    }

    /** month, day and hour fields outside a calendar run are not monotonic: a range with both
     * bounds becomes the set of field values it covers, when that set is not every value. */
    private def calendarRange(f: BoundField, conjuncts: Seq[Filter]): Option[Proj] = {
      val calendarField = f.field.transform.collect { case c: Transform.CalendarField if !c.preservesOrder => c }
        .filterNot(_ => calendarRuns.exists(_.contains(f)))
      for {
        k <- calendarField
        s <- f.source
        col <- columnOf(f)
        lo <- lowerBound(s, conjuncts)
        hi <- upperBound(s, conjuncts)
        covered <- CalendarRanges.covered(k, lo, hi, s.dataType)
        sql <- LanceSql.in(col, covered.toSeq.sorted, f.valueType)
      } yield Proj(sql, exact = false)
    }

    /** A calendar run orders its partitions in time as (year, month, ...) tuples: bounds on its
     * column become tuple bounds, and IN a set of tuples (`=` is exact on each field already). */
    private def runRange(run: Seq[BoundField], conjuncts: Seq[Filter]): Option[Proj] = {
      val s = run.head.source.get
      val columns = run.flatMap(columnOf)
      if (columns.size != run.size) return None
      def tuple(v: Any): Seq[Any] = run.map(_.transformValue(IndexedSeq(v)))
      def internal(v: Long): Any = if (s.dataType == DateType) v.toInt else v
      def compare(op: String, values: Seq[Any]): String = columns.zip(values).foldRight("") {
        case ((c, v), "") => s"$c $op= $v"
        case ((c, v), rest) => s"$c $op $v OR ($c = $v AND ($rest))"
      }
      val lower = lowerBound(s, conjuncts).map(v => compare(">", tuple(internal(v))))
      val upper = upperBound(s, conjuncts).map(v => compare("<", tuple(internal(v))))
      val points = conjuncts.collect {
        case In(a, vs) if sourceOf(a).contains(s.id) && vs.exists(_ != null) =>
          vs.toSeq.filter(_ != null).map(LanceSql.internal(_, s.dataType))
      }.filter(_.forall(_.isDefined)).map { vs =>
        vs.flatten.map(tuple).distinct.map(t =>
          columns.zip(t).map { case (c, v) => s"$c = $v" }.mkString("(", " AND ", ")"))
          .mkString(" OR ")
      }
      all((lower ++ upper ++ points).toSeq.map(Proj(_, exact = false)), exact = false)
    }

    /** The tightest lower bound on column `s` in `conjuncts`, as days (dates) or microseconds
     * (timestamps), inclusive: `s > v` is `s >= v + 1`. */
    private def lowerBound(s: SchemaField, conjuncts: Seq[Filter]): Option[Long] = {
      val on = (a: String) => sourceOf(a).contains(s.id)
      bound(
        conjuncts.collect {
          case GreaterThan(a, v) if on(a) => (v, 1L); case GreaterThanOrEqual(a, v) if on(a) => (v, 0L)
        },
        s.dataType,
        max = true)
    }

    /** The tightest upper bound on column `s`, inclusive: `s < v` is `s <= v - 1`. */
    private def upperBound(s: SchemaField, conjuncts: Seq[Filter]): Option[Long] = {
      val on = (a: String) => sourceOf(a).contains(s.id)
      bound(
        conjuncts.collect { case LessThan(a, v) if on(a) => (v, -1L); case LessThanOrEqual(a, v) if on(a) => (v, 0L) },
        s.dataType,
        max = false)
    }

    /** The tightest of several bounds (value, step to make it inclusive), as a Long; None when
     * one is not a date or timestamp or its step overflows. */
    private def bound(values: Seq[(Any, Long)], dt: DataType, max: Boolean): Option[Long] = {
      val longs = values.flatMap { case (v, step) =>
        LanceSql.internal(v, dt).collect { case i: Int => i.toLong; case l: Long => l }
          .flatMap(l => scala.util.Try(Math.addExact(l, step)).toOption)
      }
      if (longs.isEmpty || longs.size != values.size) None else Some(if (max) longs.max else longs.min)
    }

    /** Fields over several sources (multi_bucket) and expression fields: evaluated when every
     * source is bound by `=`, `<=>` or IN in this conjunction. */
    private def boundValues(f: BoundField, conjuncts: Seq[Filter]): Option[Proj] = {
      if (f.field.transform.exists(!_.multiSource)) return None
      val candidates = f.sources.map {
        case None => Some(Seq(null)) // a source the schema no longer has reads as NULL
        case Some(s) =>
          val on = (a: String) => sourceOf(a).contains(s.id)
          conjuncts.collectFirst {
            case EqualTo(a, v) if on(a) && v != null => Seq(v)
            case EqualNullSafe(a, v) if on(a) => Seq(v)
            case In(a, vs) if on(a) => vs.toSeq.filter(_ != null)
          }.flatMap(equalValues(_, s.dataType))
      }
      if (candidates.exists(_.isEmpty) || candidates.flatten.map(_.size.toLong).product > MaxCombinations) return None
      val combos =
        candidates.flatten.foldLeft(Seq(IndexedSeq.empty[Any]))((acc, vs) => for (a <- acc; v <- vs) yield a :+ v)
      // Combinations the field cannot evaluate (say, a division by zero) stop pruning on it.
      val results =
        try Some(PartitionValues.of(f, combos))
        catch { case NonFatal(_) => None }
      results.flatMap(rs => columnOf(f).flatMap(col => LanceSql.in(col, rs, f.valueType))).map(Proj(_, exact = false))
    }
  }
}
