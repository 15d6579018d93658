// Named versions of one Lance dataset: Lance's own tags (`_refs/tags/<name>.json`, read by pylance's
// `dataset.tags` and `lance.dataset(uri, version="<name>")`), with the retention Iceberg's tags
// carry (RETAIN n DAYS) kept in the tag's metadata. A partitioned table's tags are tags of its
// `__manifest`, a plain table's of its dataset (docs/format.md "Tags").
package lancepart.lance

import scala.jdk.CollectionConverters._

/** A tag: `version` of the dataset's main branch, or of branch `branch` (another client's tag:
 * lancepart tags main versions); `maxAgeMillis`: how long after that version was committed
 * expire_snapshots keeps the tag (None: for as long as it exists). */
final case class DatasetTag(name: String, version: Long, maxAgeMillis: Option[Long], branch: Option[String] = None)

object DatasetTags {

  /** The tag metadata key of a tag's retention, in milliseconds. */
  val MaxAgeKey = "lancepart.max_ref_age_ms"

  /** The longest tag name taken: its file `<name>.json` must fit a file name (255 bytes). */
  private val MaxNameLength = 200

  /** Refuses a name of a `kind` (tag, branch) Lance 7.0.0 stores but cannot list back (so that no
   * tag of the dataset reads any more): characters outside ASCII, which it percent-encodes twice;
   * and names too long for a file name. `table` names the table. */
  private[lance] def requireStorableName(table: String, kind: String, name: String): Unit = {
    val outside = name.filter(_.toInt > 127)
    if (outside.nonEmpty) throw new IllegalArgumentException(s"table $table: cannot create $kind '$name': Lance " +
      s"stores $kind names of ASCII characters only (not '${outside.distinct}')")
    if (name.length > MaxNameLength) throw new IllegalArgumentException(
      s"table $table: cannot create $kind '${name.take(20)}...': a $kind name has at most $MaxNameLength characters")
  }

  /** How CREATE ... TAG treats a tag of the same name. */
  sealed trait Existing
  case object Fail extends Existing
  case object Keep extends Existing // CREATE TAG IF NOT EXISTS
  case object Replace extends Existing // CREATE OR REPLACE TAG
  case object MustExist extends Existing // REPLACE TAG

  /** The dataset's tags, by name. */
  def list(lance: LanceAccess, uri: String): Seq[DatasetTag] =
    lance.withDataset(uri)(_.tags().list().asScala.toSeq.map { t =>
      DatasetTag(
        t.getName,
        t.getVersion,
        Option(t.getMetadata.get(MaxAgeKey)).map(_.toLong),
        Option(t.getBranch.orElse(null)))
    }.sortBy(_.name))

  /** The tags of main-branch versions. */
  def onMain(lance: LanceAccess, uri: String): Seq[DatasetTag] = list(lance, uri).filter(_.branch.isEmpty)

  /** The main-branch version tag `name` names; `table` names the table in the error when there is no
   * such tag, or when it names a version of another branch, which lancepart does not read. */
  def version(lance: LanceAccess, uri: String, table: String, name: String): Long =
    list(lance, uri).find(_.name == name) match {
      case Some(DatasetTag(_, version, _, None)) => version
      case Some(DatasetTag(_, version, _, Some(branch))) => throw new UnsupportedOperationException(
          s"table $table: tag '$name' names version $version of branch '$branch' (another client's), and this " +
            "catalog reads main-branch versions of a table only")
      case None => throw new IllegalArgumentException(s"table $table has no tag '$name'${known(lance, uri)}")
    }

  /** Tags `version` as `name`, with `maxAgeMillis` as its retention, as `existing` says for a tag of
   * that name; `table` names the table in errors. */
  def create(
      lance: LanceAccess,
      uri: String,
      table: String,
      name: String,
      version: Long,
      maxAgeMillis: Option[Long],
      existing: Existing): Unit = lance.withDataset(uri) { ds =>
    val tags = ds.tags()
    val current = tags.list().asScala.find(_.getName == name)
    def refused(why: String) = new IllegalArgumentException(s"table $table: cannot create tag '$name': $why")
    (current, existing) match {
      case (Some(_), Keep) =>
      case (Some(t), Fail) => throw refused(s"it exists (version ${t.getVersion}); use CREATE OR REPLACE TAG to " +
          "move it, or DROP TAG first")
      case (None, MustExist) => throw new IllegalArgumentException(
          s"table $table: cannot replace tag '$name': there is no such tag${known(lance, uri)}")
      case (Some(_), _) => // a replaced tag keeps its retention unless the statement gives one, as Iceberg's
        tags.update(name, version)
        if (maxAgeMillis.isDefined) tags.replaceMetadata(name, metadata(maxAgeMillis).asJava)
      case (None, _) =>
        requireStorableName(table, "tag", name)
        try tags.create(name, version)
        catch { case e: Exception => throw refused(BatchSql.message(e)).initCause(e) }
        if (maxAgeMillis.isDefined) tags.replaceMetadata(name, metadata(maxAgeMillis).asJava)
    }
  }

  /** Removes tag `name`; a missing one fails unless `ifExists`. */
  def drop(lance: LanceAccess, uri: String, table: String, name: String, ifExists: Boolean): Unit =
    lance.withDataset(uri) { ds =>
      if (ds.tags().list().asScala.exists(_.getName == name)) ds.tags().delete(name)
      else if (!ifExists)
        throw new IllegalArgumentException(s"table $table: cannot drop tag '$name': there is no such tag" +
          known(lance, uri))
    }

  /** The tags whose retention has passed at `nowMillis`, given when each version was committed. */
  def aged(tags: Seq[DatasetTag], committedMillis: Long => Option[Long], nowMillis: Long): Seq[DatasetTag] =
    tags.filter(t => t.maxAgeMillis.exists(age => committedMillis(t.version).exists(nowMillis - _ > age)))

  private def metadata(maxAgeMillis: Option[Long]): Map[String, String] =
    maxAgeMillis.map(ms => MaxAgeKey -> ms.toString).toMap

  private def known(lance: LanceAccess, uri: String): String = list(lance, uri).map(_.name) match {
    case Nil => " (it has none)"
    case names => s" (its tags: ${names.mkString(", ")})"
  }
}
