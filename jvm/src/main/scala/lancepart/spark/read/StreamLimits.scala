// How much a micro-batch of a streaming read takes (Spark's admission control): the read options
// streaming-max-rows-per-micro-batch and streaming-max-partition-tables-per-micro-batch as Spark's
// ReadLimit, and the oldest commits not read yet that fit them.
package lancepart.spark.read

import java.time.Instant

import org.apache.spark.sql.connector.read.streaming.{CompositeReadLimit, ReadLimit, ReadMaxFiles, ReadMaxRows}

import scala.annotation.tailrec
import scala.util.Try

/** A commit a streaming read has not read: version `version` of partition table `location`,
 * committed at `at`, adding `rows` rows (0 for a commit that added none). */
case class PendingCommit(location: String, version: Long, at: Instant, rows: Long)

/** The most a micro-batch reads: `rows` rows and `tables` partition tables. */
case class StreamLimits(rows: Long, tables: Int) {
  def unlimited: Boolean = rows == Long.MaxValue && tables == Int.MaxValue

  /**
   * The version of each partition table (by location) that reading `pending` (each partition
   * table's commits, oldest first) reaches when it takes the oldest commits of all while they fit:
   * at least one, so that a commit larger than the limits is read too. A commit takes the
   * partition table's rows it added, all or none.
   */
  def admit(pending: Seq[Seq[PendingCommit]]): Map[String, Long] = {
    // writers' clocks differ: a commit counts as no older than the one before it on its partition table
    val ordered = pending.flatMap { commits =>
      commits.zip(commits.map(_.at).scanLeft(Instant.MIN)((a, b) => if (b.isAfter(a)) b else a).tail)
    }.sortBy { case (c, at) => (at, c.location) }.map(_._1).toList
    @tailrec def take(rest: List[PendingCommit], taken: Long, reached: Map[String, Long]): Map[String, Long] =
      rest match {
        case c :: more
            if reached.isEmpty || (taken + c.rows <= rows && (reached.contains(c.location) || reached.size < tables)) =>
          take(more, taken + c.rows, reached.updated(c.location, c.version))
        case _ => reached
      }
    take(ordered, 0, Map.empty)
  }

  /** As Spark's ReadLimit: partition tables as its file count. */
  def readLimit: ReadLimit =
    (
      Option(rows).filter(_ != Long.MaxValue).map(ReadLimit.maxRows),
      Option(tables).filter(_ != Int.MaxValue).map(
        ReadLimit.maxFiles)) match {
      case (Some(r), Some(t)) => ReadLimit.compositeLimit(Array(r, t))
      case (r, t) => r.orElse(t).getOrElse(ReadLimit.allAvailable())
    }
}

object StreamLimits {
  val MaxRows = "streaming-max-rows-per-micro-batch"
  val MaxTables = "streaming-max-partition-tables-per-micro-batch"
  val Unlimited: StreamLimits = StreamLimits(Long.MaxValue, Int.MaxValue)

  /** Iceberg's limit of data files, which lancepart has none of. */
  val MaxFiles = "streaming-max-files-per-micro-batch"

  /** The limits of read options `option` (a name's value, or null) of table `table`. */
  def fromOptions(table: String, option: String => String): StreamLimits = {
    if (option(MaxFiles) != null) throw new IllegalArgumentException(
      s"table $table: read option $MaxFiles (Iceberg's) is not one lancepart has; limit a micro-batch's rows with " +
        s"$MaxRows or its partition tables with $MaxTables")
    def positive(name: String): Option[Long] = Option(option(name)).map { v =>
      Try(v.trim.toLong).toOption.filter(_ > 0).getOrElse(throw new IllegalArgumentException(
        s"table $table: read option $name must be a positive whole number, not '$v'"))
    }
    StreamLimits(
      positive(MaxRows).getOrElse(Long.MaxValue),
      positive(MaxTables).map(n => math.min(n, Int.MaxValue.toLong).toInt).getOrElse(Int.MaxValue))
  }

  /** The limits Spark passes: its ReadLimit (the options' one, or none with Trigger.Once). */
  def of(limit: ReadLimit): StreamLimits = limit match {
    case r: ReadMaxRows => Unlimited.copy(rows = r.maxRows)
    case f: ReadMaxFiles => Unlimited.copy(tables = f.maxFiles)
    case c: CompositeReadLimit =>
      c.getReadLimits.map(of).foldLeft(Unlimited)((a, b) => StreamLimits(a.rows min b.rows, a.tables min b.tables))
    case _ => Unlimited
  }
}
