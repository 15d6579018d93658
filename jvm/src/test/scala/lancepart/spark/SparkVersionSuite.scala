// The catalog refuses a Spark other than the one it is built for, naming both.
package lancepart.spark

import org.scalatest.funsuite.AnyFunSuite

class SparkVersionSuite extends AnyFunSuite {
  test("Spark 4.1 releases are accepted; other lines fail naming the catalog and both versions") {
    Seq("4.1", "4.1.0", "4.1.3", "4.1.4-SNAPSHOT").foreach(SparkVersion.require(_, "lance"))
    for (other <- Seq("4.0.1", "4.10.0", "3.5.3", "4.2.0")) {
      val e = intercept[UnsupportedOperationException](SparkVersion.require(other, "lance"))
      assert(
        e.getMessage == s"catalog lance: lancepart is built for Spark 4.1.x (Scala 2.13), but this session runs " +
          s"Spark $other; run it on Spark 4.1.x",
        e.getMessage
      )
    }
  }
}
