// Calendar runs: year, month, day, hour fields over one column, in that order from year, next to
// one another in a spec. years/months/days/hours(col) of the DDL are stored as runs, and a run's
// values order its partitions in time, as (year, month, ...) tuples.
package lancepart.spec

import lancepart.transform.Transform

object CalendarRun {

  /** `fields` in order, grouped: each calendar run is one group, every other field is alone. */
  def group(fields: Seq[BoundField]): Seq[Seq[BoundField]] =
    fields.foldLeft(Seq.empty[Seq[BoundField]]) { (groups, f) =>
      groups.lastOption match {
        case Some(run)
            if isRun(run) && run.head.source == f.source &&
              f.field.transform == Transform.Calendar.lift(run.size) => groups.init :+ (run :+ f)
        case _ => groups :+ Seq(f)
      }
    }

  /** True when `group` (from [[group]]) is a calendar run, not another field. */
  def isRun(group: Seq[BoundField]): Boolean =
    group.head.source.isDefined && group.head.field.transform.contains(Transform.Year)
}
