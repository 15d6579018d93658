// A check rule: ALTER TABLE ... ADD / DROP / REPLACE PARTITION FIELD that Iceberg's parser took
// instead of lancepart's fails on a lancepart table with a message naming the extension order,
// instead of Spark's internal error ("No plan for AddPartitionField").
package lancepart.spark.extensions

import lancepart.spark.{LancepartSparkSessionExtensions, PartitionedCatalog}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.lancepart.CatalogLookup

/**
 * Iceberg's parser turns these statements into its own commands (case classes named
 * AddPartitionField, DropPartitionField and ReplacePartitionField, whose first field is the table's
 * multipart name), which only Iceberg's planner runs. That happens when Iceberg's extension comes
 * after lancepart's: named so in spark.sql.extensions, or named alone where a JVM builds the session
 * and applies lancepart's class-path copy first.
 */
class ForeignPartitionField(session: SparkSession) extends (LogicalPlan => Unit) {

  override def apply(plan: LogicalPlan): Unit = plan.foreach {
    case command: Product if ForeignPartitionField.isIcebergCommand(command) =>
      command.productElement(0) match {
        case parts: Seq[_] =>
          val name = parts.map(_.toString)
          CatalogLookup(session, name)._1 match {
            case _: PartitionedCatalog => throw new IllegalArgumentException(
                s"table ${name.mkString(".")}: ALTER TABLE ... PARTITION FIELD was parsed by Iceberg's SQL extension, " +
                  "which cannot run it on a lancepart table: name lancepart's extension after Iceberg's, " +
                  "spark.sql.extensions=org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions," +
                  s"${classOf[LancepartSparkSessionExtensions].getName}, or use CALL <catalog>.system.evolve_partition_spec")
            case _ =>
          }
        case _ =>
      }
    case _ =>
  }
}

object ForeignPartitionField {
  private val Package = "org.apache.spark.sql.catalyst.plans.logical."
  private val Commands = Set("AddPartitionField", "DropPartitionField", "ReplacePartitionField")

  private def isIcebergCommand(node: Product): Boolean = {
    val name = node.getClass.getName
    name.startsWith(Package) && Commands(name.stripPrefix(Package)) && node.productArity > 0
  }
}
