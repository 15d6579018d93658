// Every Lance SQL filter over __manifest rows, named by what it selects.
package lancepart.manifest

import lancepart.spec.TableMetadata

object ManifestQuery {
  import ManifestStore.{Location, ObjectId, ObjectType}
  import SqlLiteral.quote

  /** Every partition table of the spec versions `meta` declares. */
  def tables(meta: TableMetadata): String = tables(meta, _ => None)

  /**
   * The partition tables of the spec versions `meta` declares, each version's narrowed by
   * `predicate(specId)` when it gives one, and the tables without partition values, which no
   * predicate can rule out:
   * {{{ object_type = 'table' AND ((object_id LIKE 'v1$%' AND (<v1 predicate>)) OR ... OR object_id IN (...)) }}}
   */
  def tables(meta: TableMetadata, predicate: Int => Option[String]): String = {
    val perVersion = meta.specs.map { spec =>
      val scope = specRows(spec.id)
      predicate(spec.id).fold(scope)(p => s"($scope AND ($p))")
    }
    val unpartitioned =
      if (meta.unpartitioned.nonEmpty)
        Some(s"$ObjectId IN (${meta.unpartitioned.toSeq.sorted.map(quote).mkString(", ")})")
      else None
    s"$ObjectType = '${Naming.TableType}' AND (${(perVersion ++ unpartitioned).mkString(" OR ")})"
  }

  /** The rows below spec version `version`'s `v<N>` row: its partition namespaces, tables and
   * table versions (not the `v<N>` row itself). */
  def specRows(version: Int): String = s"$ObjectId LIKE 'v$version${Naming.Delimiter}%'"

  /** Every row of spec versions `versions` (not empty): their `v<N>` rows and the rows below them. */
  def specVersionRows(versions: Seq[Int]): String =
    versions.map(v => s"$ObjectId = 'v$v' OR ${specRows(v)}").mkString(" OR ")

  /** The namespace row with object id `objectId`. */
  def namespaceRow(objectId: String): String =
    s"$ObjectId = ${quote(objectId)} AND $ObjectType = '${Naming.NamespaceType}'"

  /** The `v<N>` namespace rows (one per spec version, declared or not). */
  val specNamespaces: String = s"$ObjectType = '${Naming.NamespaceType}' AND $ObjectId NOT LIKE '%${Naming.Delimiter}%'"

  /** The `table` rows of every spec version, declared or not. */
  val allTables: String = s"$ObjectType = '${Naming.TableType}'"

  /** The partition tables whose rows have a value in `column`. */
  def tablesWith(column: String): String = s"$allTables AND $column IS NOT NULL"

  /** The partition tables whose rows pin the version readers read (strong mode). */
  val pinnedTables: String = tablesWith(ManifestStore.ReadVersion)

  /** Rows that lead readers to a partition table's files: `table` rows with a location. (The
   * `table_version` records of a partition's versions only repeat what some manifest version's
   * `table` row pinned; a version no kept manifest version pins is gone, whatever records say.) */
  val leafReferences: String = tablesWith(Location)

  /** The strong-mode records of partition table versions (`table_version` rows). */
  val versionRecords: String = s"$ObjectType = '${Naming.TableVersionType}'"

  /** The namespace and `table` rows (every row but the `table_version` records). */
  val entries: String = s"$ObjectType <> '${Naming.TableVersionType}'"

  /** The rows with object ids `ids` (not empty), of any type. */
  def byId(ids: Seq[String]): String = s"$ObjectId IN (${ids.map(quote).mkString(", ")})"

  /** Every row. */
  val all = "true"
}
