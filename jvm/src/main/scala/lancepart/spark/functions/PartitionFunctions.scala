// The spec's transforms as Spark V2 functions, so Spark can cluster writes by partition and, later,
// resolve reported partitioning. Canonical names are `lancepart.*`: a Lance bucket is never taken
// for Spark's or Iceberg's bucket, whose hashes differ.
package lancepart.spark.functions

import lancepart.transform.Transform
import org.apache.spark.sql.connector.catalog.functions.UnboundFunction

object PartitionFunctions {

  /** Every kind but identity (Spark's own) under its function name; the single-column bucket
   * also under Spark's name `bucket`, which Spark looks up for a reported `bucket(N, col)`
   * transform (its canonical name stays `lancepart.bucket`, so it never matches another engine's
   * bucket). */
  val all: Map[String, UnboundFunction] = {
    val kinds = Transform.Kinds.filter(_ != Transform.Identity)
    val reportedBucket = Transform.Bucket(1)
    kinds.map(k => k.functionName -> new TransformFunction(k)).toMap ++
      reportedBucket.sparkName.map(_ -> new TransformFunction(reportedBucket)) ++
      CalendarKey.Levels.map(n => CalendarKey.name(n) -> new CalendarKeyFunction(n)).toMap
  }
}
