// An ALTER TABLE statement lancepart's parser reads by hand for tables of its catalogs (partition
// fields, tags), with what AlterTableParser needs to run it or to say why it did not.
package lancepart.spark.extensions

import lancepart.spark.PartitionedCatalog
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.connector.catalog.Identifier

private[extensions] trait AlterStatement {

  /** The table's name as written, for Spark's identifier parser. */
  def table: String

  /** The statement's clause as messages name it: `ADD PARTITION FIELD`, `CREATE TAG`. */
  def clause: String

  /** The command that runs the statement on table `ident` of `catalog`. */
  def command(catalog: PartitionedCatalog, ident: Identifier): LogicalPlan
}
