// The Spark line the plugin is built for: a session of another Spark fails when the catalog loads,
// saying so, instead of later on a missing class or method.
package lancepart.spark

import java.util.Properties

object SparkVersion {

  private val built: Properties = {
    val resource = "/lancepart/build.properties"
    val stream = Option(getClass.getResourceAsStream(resource)).getOrElse(throw new IllegalStateException(
      s"the lancepart jar has no $resource: build it with Maven from a line's module (jvm/spark-<line>_<scala>)"))
    val properties = new Properties()
    try properties.load(stream)
    finally stream.close()
    if (properties.getProperty("spark.version", "").startsWith("$"))
      throw new IllegalStateException(s"the lancepart jar's $resource was not filled in by Maven: $properties")
    properties
  }

  /** The Spark minor line the plugin is compiled against, such as "4.1" (its module's pom.xml). */
  val Supported: String = built.getProperty("spark.version").split('.').take(2).mkString(".")

  /** The Scala binary version the plugin is compiled with, such as "2.13". */
  val Scala: String = built.getProperty("scala.binary.version")

  /** Fails unless `running` (a Spark version string) is of the [[Supported]] line. */
  def require(running: String, catalog: String): Unit =
    if (running != Supported && !running.startsWith(s"$Supported.")) {
      throw new UnsupportedOperationException(
        s"catalog $catalog: lancepart is built for Spark $Supported.x (Scala $Scala), but this session runs Spark " +
          s"$running; run it on Spark $Supported.x")
    }
}
