// A __manifest at one version: the table metadata a reader of that version sees.
package lancepart.manifest

import lancepart.spec.TableMetadata

/** What a reader needs: metadata at one manifest version. Each leaf is read at its row's
 * `read_version`, or at its latest version where that is NULL (see [[ManifestRow]]).
 * `fileVersion` is the Lance file format of `__manifest`, which new partition tables take.
 * `foreignNotNull` names another writer's NOT NULL `__manifest` columns, which lancepart does not
 * write: a commit cannot add rows while there is one (see [[ManifestStore.requireAddable]]).
 * `committedAt` is when the version was committed. `readRefs` names the columns in which
 * another writer's rows read partition tables at a tag or branch (`read_tag`, `read_branch`: the
 * spec's earlier edition), which lancepart reads but does not write. */
case class Manifest(
    meta: TableMetadata,
    version: Long,
    fileVersion: String,
    foreignNotNull: Seq[String],
    committedAt: java.time.Instant,
    readRefs: Seq[String] = Seq.empty)
