// The files of a partition table that given versions of it use (relative to its directory): data
// files, deletion files and, for a detached version, its version manifest. Vacuum and
// expire_snapshots remove only files no kept version uses.
package lancepart.lance

import org.lance.fragment.DeletionFileType

import scala.jdk.CollectionConverters._

object LeafFiles {

  /** The data and deletion files versions `versions` of the leaf at `uri` use, and the version
   * manifests of those of them not on its main branch `main`. */
  def used(lance: LanceAccess, uri: String, versions: Set[Long], main: Set[Long]): Set[String] =
    versions.toSeq.flatMap { v =>
      lance.withDataset(uri, Some(v)) { ds =>
        ds.getFragments.asScala.toSeq.flatMap { f =>
          val meta = f.metadata()
          meta.getFiles.asScala.map(d => s"data/${d.getPath}") ++ Option(meta.getDeletionFile).map { d =>
            val suffix = if (d.getFileType == DeletionFileType.BITMAP) "bin" else "arrow"
            s"_deletions/${meta.getId}-${java.lang.Long.toUnsignedString(d.getReadVersion)}-" +
              s"${java.lang.Long.toUnsignedString(d.getId)}.$suffix"
          }
        }
      }
    }.toSet ++ (versions -- main).map(detachedManifest)

  /** The manifest of detached version `version`. */
  def detachedManifest(version: Long): String = s"_versions/d${java.lang.Long.toUnsignedString(version)}.manifest"

  /**
   * The newest main-branch version among the file names in a dataset's `_versions` directory, as
   * Lance finds its latest version: `<v>.manifest` (Lance's V1 naming) or `<2^64 - 1 - v>.manifest`
   * in 20 digits (V2 naming, lance-core's default); detached manifests (`d<v>.manifest`), the
   * latest-version hint and unfinished temporary files are not versions. None without a manifest.
   */
  def latestMainVersion(names: Seq[String]): Option[Long] = names.collect { case MainManifest(digits) =>
    val n = java.lang.Long.parseUnsignedLong(digits)
    if (digits.length == V2NameDigits) -1L - n else n
  }.reduceOption(_ max _)

  private val MainManifest = """(\d+)\.manifest""".r
  private val V2NameDigits = 20

  /** The versions on the main branch of the leaf at `uri`. */
  def mainVersions(lance: LanceAccess, uri: String): Set[Long] =
    lance.withDataset(uri)(_.listVersions().asScala.map(_.getId).toSet)
}
