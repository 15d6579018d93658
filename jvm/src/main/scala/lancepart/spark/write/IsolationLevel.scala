// How a copy-on-write DELETE, UPDATE or MERGE INTO treats writes that commit while it runs, set per
// command under Iceberg's table property names (write.<command>.isolation-level).
package lancepart.spark.write

import org.apache.spark.sql.connector.write.RowLevelOperation.Command

/**
 * `Serializable` (the default, as in Iceberg): the command fails when any partition table its
 * condition selects was created or written since it read the table, since those rows might have
 * matched it. `Snapshot`: it fails only when a partition table it rewrites was written meanwhile.
 */
sealed trait IsolationLevel

object IsolationLevel {
  case object Serializable extends IsolationLevel
  case object Snapshot extends IsolationLevel

  def property(command: Command): String = s"write.${command.name().toLowerCase}.isolation-level"

  /** The table properties read here; their values are checked when they are set. */
  val Properties: Set[String] = Command.values().map(property).toSet

  /** The level of `command` on `table`, from its `properties`. */
  def of(table: String, command: Command, properties: Map[String, String]): IsolationLevel =
    properties.get(property(command)).fold[IsolationLevel](Serializable)(parse(table, property(command), _))

  def parse(table: String, key: String, value: String): IsolationLevel = value.trim.toLowerCase match {
    case "serializable" => Serializable
    case "snapshot" => Snapshot
    case _ => throw new IllegalArgumentException(
        s"table $table: $key '$value' is not an isolation level; expected serializable or snapshot")
  }
}
