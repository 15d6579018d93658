// The error of a __manifest commit that lost the race to another commit.
package lancepart.manifest

/** A `__manifest` commit lost to a concurrent one; the caller re-reads and retries. */
class ManifestConflict(table: String, version: Long, cause: Throwable)
    extends RuntimeException(s"table $table: __manifest changed after version $version", cause)
