// How a copy-on-write DELETE, UPDATE or MERGE INTO treats writes that commit while it runs, set per
// command under Iceberg's table property names (write.<command>.isolation-level).
package lancepart.spark.write

/**
 * `Serializable` (the default, as in Iceberg): the command fails when any partition table its
 * condition selects was created or written since it read the table, since those rows might have
 * matched it. `Snapshot`: it fails only when a partition table it rewrites was written meanwhile.
 */
sealed trait IsolationLevel

object IsolationLevel
    extends CommandProperty[IsolationLevel]("isolation-level", "an isolation level") {
  case object Serializable extends IsolationLevel
  case object Snapshot extends IsolationLevel
  override protected def values: Seq[(String, IsolationLevel)] =
    Seq("serializable" -> Serializable, "snapshot" -> Snapshot)
  override protected def default: IsolationLevel = Serializable
}
