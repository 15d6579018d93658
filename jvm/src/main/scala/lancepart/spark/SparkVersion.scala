// The Spark line the plugin is built for: a session of another Spark fails when the catalog loads,
// saying so, instead of later on a missing class or method.
package lancepart.spark

object SparkVersion {

  /** The Spark minor line the plugin is compiled against (pom.xml `spark.version`, Scala 2.13). */
  val Supported = "4.1"

  /** Fails unless `running` (a Spark version string) is of the [[Supported]] line. */
  def require(running: String, catalog: String): Unit =
    if (running != Supported && !running.startsWith(s"$Supported.")) {
      throw new UnsupportedOperationException(
        s"catalog $catalog: lancepart is built for Spark $Supported.x (Scala 2.13), but this session runs Spark " +
          s"$running; run it on Spark $Supported.x")
    }
}
