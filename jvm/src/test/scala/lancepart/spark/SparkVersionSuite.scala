// The catalog refuses a Spark other than the one it is built for, naming both.
package lancepart.spark

import org.scalatest.funsuite.AnyFunSuite

class SparkVersionSuite extends AnyFunSuite {
  // the line of the Spark the suite runs on, the one the module compiles against
  private val line = org.apache.spark.SPARK_VERSION.split('.').take(2).mkString(".")

  test("the jar names the Spark line and Scala version it is compiled against") {
    assert(SparkVersion.Supported == line)
    assert(SparkVersion.Scala == scala.util.Properties.versionNumberString.split('.').take(2).mkString("."))
  }

  test("releases of that line are accepted; other lines fail naming the catalog and both versions") {
    Seq(line, s"$line.0", s"$line.3", s"$line.4-SNAPSHOT").foreach(SparkVersion.require(_, "lance"))
    val Array(major, minor) = line.split('.').map(_.toInt)
    for (other <- Seq(s"$major.${minor + 1}.0", s"${line}1.0", s"${major - 1}.5.3", s"${major + 1}.$minor.0")) {
      val e = intercept[UnsupportedOperationException](SparkVersion.require(other, "lance"))
      assert(
        e.getMessage == s"catalog lance: lancepart is built for Spark $line.x (Scala ${SparkVersion.Scala}), but this " +
          s"session runs Spark $other; run it on Spark $line.x",
        e.getMessage
      )
    }
  }
}
