// How a DELETE, UPDATE or MERGE INTO that Spark rewrites changes rows, set per command under
// Iceberg's table property names (write.<command>.mode).
package lancepart.spark.write

import org.apache.spark.sql.connector.write.RowLevelOperation.Command

/**
 * `CopyOnWrite` (the default, as in Iceberg): the partition tables holding changed rows are
 * rewritten whole. `MergeOnRead`: the changed rows are deleted where they are (Lance deletion
 * files, by row address) and their new versions appended, so a command that changes a few rows
 * of large partition tables writes only those rows.
 */
sealed trait RowLevelMode

object RowLevelMode {
  case object CopyOnWrite extends RowLevelMode
  case object MergeOnRead extends RowLevelMode

  def property(command: Command): String = s"write.${command.name().toLowerCase}.mode"

  /** The table properties read here; their values are checked when they are set. */
  val Properties: Set[String] = Command.values().map(property).toSet

  /** The mode of `command` on `table`, from its `properties`. */
  def of(table: String, command: Command, properties: Map[String, String]): RowLevelMode =
    properties.get(property(command)).fold[RowLevelMode](CopyOnWrite)(parse(table, property(command), _))

  def parse(table: String, key: String, value: String): RowLevelMode = value.trim.toLowerCase match {
    case "copy-on-write" => CopyOnWrite
    case "merge-on-read" => MergeOnRead
    case _ => throw new IllegalArgumentException(
        s"table $table: property $key must be copy-on-write or merge-on-read, not '$value'")
  }
}
