// The error of a write that could not commit because of another writer.
package lancepart.txn

/** A write that conflicts with one committed since it started, or that kept losing the race to
 * commit; `__manifest` does not show it. */
class TransactionConflict(message: String, cause: Throwable = null) extends RuntimeException(message, cause)
