// A table property set per row-level command under Iceberg's names, `write.<command>.<suffix>`.
package lancepart.spark.write

import org.apache.spark.sql.connector.write.RowLevelOperation.Command

/** The property `write.<command>.<suffix>` of each command: one of `values` (by name, any case),
 * `default` when unset; `what` names the kind of value in errors. */
abstract class CommandProperty[A](suffix: String, what: String) {
  protected def values: Seq[(String, A)]
  protected def default: A

  def property(command: Command): String = s"write.${command.name().toLowerCase}.$suffix"

  /** The table properties read here; their values are checked when they are set. */
  val Properties: Set[String] = Command.values().map(property).toSet

  /** The value for `command` on `table`, from its `properties`. */
  def of(table: String, command: Command, properties: Map[String, String]): A =
    properties.get(property(command)).fold(default)(parse(table, property(command), _))

  def parse(table: String, key: String, value: String): A =
    values.collectFirst { case (name, a) if name == value.trim.toLowerCase => a }.getOrElse(
      throw new IllegalArgumentException(
        s"table $table: $key '$value' is not $what; expected ${values.map(_._1).mkString(" or ")}"))
}
