// A check rule: ALTER TABLE ... ADD / DROP / REPLACE PARTITION FIELD or CREATE / REPLACE / DROP
// TAG | BRANCH that Iceberg's parser took instead of lancepart's fails on a lancepart table with a
// message naming the extension order, instead of Spark's internal error ("No plan for AddPartitionField").
package lancepart.spark.extensions

import lancepart.spark.{LancepartSparkSessionExtensions, PartitionedCatalog}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.lancepart.CatalogLookup

/**
 * Iceberg's parser turns these statements into its own commands (case classes named as in
 * [[ForeignAlterTable.Clauses]], whose first field is the table's multipart name), which only
 * Iceberg's planner runs. That happens when Iceberg's extension comes after lancepart's: named so
 * in spark.sql.extensions, or named alone where a JVM builds the session and applies lancepart's
 * class-path copy first.
 */
class ForeignAlterTable(session: SparkSession) extends (LogicalPlan => Unit) {

  override def apply(plan: LogicalPlan): Unit = plan.foreach {
    case command: Product if ForeignAlterTable.clause(command).isDefined =>
      command.productElement(0) match {
        case parts: Seq[_] =>
          val name = parts.map(_.toString)
          val clause = ForeignAlterTable.clause(command).get
          CatalogLookup(session, name)._1 match {
            case _: PartitionedCatalog => throw new IllegalArgumentException(
                s"table ${name.mkString(".")}: ALTER TABLE ... $clause was parsed by Iceberg's SQL extension, which " +
                  "cannot run it on a lancepart table: name lancepart's extension after Iceberg's, " +
                  "spark.sql.extensions=org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions," +
                  classOf[LancepartSparkSessionExtensions].getName +
                  (if (clause.contains("PARTITION")) ", or use CALL <catalog>.system.evolve_partition_spec" else ""))
            case _ =>
          }
        case _ =>
      }
    case _ =>
  }
}

object ForeignAlterTable {
  private val Package = "org.apache.spark.sql.catalyst.plans.logical."

  /** Iceberg's commands by class name, with the clause of the statement each runs. */
  private val Clauses = Map(
    "AddPartitionField" -> "ADD PARTITION FIELD",
    "DropPartitionField" -> "DROP PARTITION FIELD",
    "ReplacePartitionField" -> "REPLACE PARTITION FIELD",
    "CreateOrReplaceTag" -> "CREATE TAG",
    "DropTag" -> "DROP TAG",
    "CreateOrReplaceBranch" -> "CREATE BRANCH",
    "DropBranch" -> "DROP BRANCH"
  )

  /** The clause of Iceberg command `node`; None for any other plan. */
  private def clause(node: Product): Option[String] = {
    val name = node.getClass.getName
    if (name.startsWith(Package) && node.productArity > 0) Clauses.get(name.stripPrefix(Package)) else None
  }
}
