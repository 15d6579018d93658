// How partition tables are packed into input partitions: the bytes one takes and what opening a
// partition table weighs, set per read or per table under Iceberg's names.
package lancepart.spark.read

import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import scala.util.Try

/** An input partition takes partition tables up to `targetBytes`, each weighing its data bytes
 * plus `openCostBytes`. */
case class SplitSizing(targetBytes: Long, openCostBytes: Long)

object SplitSizing {
  val SplitSizeOption = "split-size"
  val TargetSizeProperty = "read.split.target-size"
  val OpenCostOption = "file-open-cost"
  val OpenCostProperty = "read.split.open-file-cost"

  /** The table properties read here; their values are checked when they are set. */
  val Properties: Set[String] = Set(TargetSizeProperty, OpenCostProperty)

  /** What opening a partition table weighs: 256 KB, the fastest of 4 MB (Spark's and Iceberg's
   * file open cost), 1 MB, 256 KB and 64 KB in `bench/split_sizes.py` (docs/benchmarks.md, "Input
   * partitions"). */
  val DefaultOpenCostBytes: Long = 256L << 10

  /** The read option, else the table property, else the default: the target defaults to
   * `spark.sql.files.maxPartitionBytes`, the open cost to [[DefaultOpenCostBytes]]. */
  def of(table: String, options: CaseInsensitiveStringMap, properties: Map[String, String], conf: SQLConf)
      : SplitSizing = {
    def setting(option: String, property: String): Option[Long] =
      Option(options.get(option)).map(option -> _).orElse(properties.get(property).map(property -> _)).map {
        case (key, value) => bytes(table, key, value)
      }
    SplitSizing(
      setting(SplitSizeOption, TargetSizeProperty).getOrElse(conf.filesMaxPartitionBytes),
      setting(OpenCostOption, OpenCostProperty).getOrElse(DefaultOpenCostBytes)
    )
  }

  /** `value` of read option or table property `key` as a number of bytes, refused unless positive. */
  def bytes(table: String, key: String, value: String): Long =
    Try(value.trim.toLong).filter(_ > 0).getOrElse(throw new IllegalArgumentException(
      s"table $table: $key '$value' is not a positive number of bytes"))
}
