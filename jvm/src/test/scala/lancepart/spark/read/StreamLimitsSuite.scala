// Read limits of streaming reads: the options, Spark's ReadLimit, and which commits a micro-batch takes.
package lancepart.spark.read

import java.time.Instant

import org.apache.spark.sql.connector.read.streaming.ReadLimit
import org.scalatest.funsuite.AnyFunSuite

class StreamLimitsSuite extends AnyFunSuite {
  private def commit(location: String, version: Long, second: Long, rows: Long) =
    PendingCommit(location, version, Instant.ofEpochSecond(second), rows)

  test("the oldest commits that fit, at least one, and a partition table's commits in version order") {
    val a = Seq(commit("a", 1, 10, 2), commit("a", 2, 5, 2)) // a's second commit stamped earlier: a clock behind
    val b = Seq(commit("b", 7, 8, 1), commit("b", 8, 20, 5))
    assert(StreamLimits(3, Int.MaxValue).admit(Seq(a, b)) == Map("b" -> 7, "a" -> 1))
    assert(StreamLimits(1, Int.MaxValue).admit(Seq(a, b)) == Map("b" -> 7))
    assert(StreamLimits(5, Int.MaxValue).admit(Seq(a, b)) == Map("b" -> 7, "a" -> 2))
    assert(StreamLimits(Long.MaxValue, 1).admit(Seq(a, b)) == Map("b" -> 7))
    assert(StreamLimits(2, 1).admit(Seq(Seq(commit("a", 1, 1, 9)))) == Map("a" -> 1)) // larger than the limit
  }

  test("options become Spark's ReadLimit and back; bad values are refused naming the option") {
    val options = Map(StreamLimits.MaxRows -> "100", StreamLimits.MaxTables -> " 3 ")
    val limits = StreamLimits.fromOptions("lance.ns.t", options.getOrElse(_, null))
    assert(limits == StreamLimits(100, 3))
    assert(StreamLimits.of(limits.readLimit) == limits)
    assert(StreamLimits.of(StreamLimits(100, Int.MaxValue).readLimit) == StreamLimits(100, Int.MaxValue))
    assert(StreamLimits.fromOptions("lance.ns.t", _ => null).readLimit == ReadLimit.allAvailable())
    assert(StreamLimits.of(ReadLimit.allAvailable()).unlimited)
    for (bad <- Seq("0", "-1", "1.5", "many")) {
      val e = intercept[IllegalArgumentException](StreamLimits.fromOptions(
        "lance.ns.t",
        Map(StreamLimits.MaxTables -> bad).getOrElse(_, null)))
      assert(
        e.getMessage == s"table lance.ns.t: read option ${StreamLimits.MaxTables} must be a positive whole number, not '$bad'")
    }
    // Iceberg's file limit: refused rather than ignored (a new user's trial found it ignored)
    val files = intercept[IllegalArgumentException](
      StreamLimits.fromOptions("lance.ns.t", Map(StreamLimits.MaxFiles -> "10").getOrElse(_, null)))
    assert(files.getMessage.contains("streaming-max-files-per-micro-batch (Iceberg's) is not one lancepart has"))
  }
}
