// What a table read at an older version (VERSION AS OF, TIMESTAMP AS OF, `<table>.tag_<tag>`,
// `<table>.snapshot_id_<n>`) refuses, as Iceberg does: writes, which go to the latest version.
package lancepart.spark

object TimeTravel {

  /** Refuses `what` (`write`, `stream from`, ...) on table `table` when time travel chose its version (`pinned`). */
  def requireLatest(table: String, pinned: Boolean, what: String): Unit = if (pinned)
    throw new UnsupportedOperationException(
      s"table $table: cannot $what a version of the table read by time travel (VERSION AS OF, TIMESTAMP AS OF, " +
        s"<table>.tag_<tag>, <table>.snapshot_id_<version>); $what the table itself")
}
