// Progress of a long admin operation over many partition tables (repair, vacuum), counted while
// it runs so that a caller on another thread can show it: the operation's procedure registers it
// under a caller's id, the Python Admin polls it with CALL system.progress and draws a bar.
package lancepart.maintenance

import java.util.concurrent.atomic.AtomicLong

import scala.collection.concurrent.TrieMap

class Progress {
  @volatile private var expected = 0L
  private val completed = new AtomicLong()

  /** Starts counting towards `total` steps. */
  def start(total: Long): Unit = {
    completed.set(0)
    expected = total
  }

  def advance(): Unit = completed.incrementAndGet()

  def total(): Long = expected

  def done(): Long = completed.get()

  /** Whether the operation counting here ended. */
  @volatile var hasEnded: Boolean = false
}

object Progress {
  private val counters = TrieMap.empty[String, Progress]

  /** Ids of operations that ended, oldest first: their counters wait for one more read. */
  private val ended = new java.util.concurrent.ConcurrentLinkedQueue[String]

  /** How many counters of ended operations are kept when nobody reads them. */
  private val KeptEnded = 100

  /** `body` with a new counter, which [[read]] gives under `id` (when there is one) while it runs
   * and once after it ended (so that a poller sees the final count). */
  def tracked[T](id: Option[String])(body: Progress => T): T = {
    val progress = new Progress
    id.foreach { key =>
      counters.putIfAbsent(key, progress).foreach { other =>
        if (!other.hasEnded || !counters.replace(key, other, progress))
          throw new IllegalArgumentException(s"progress id '$key' is taken by an operation that runs")
      }
    }
    try body(progress)
    finally {
      progress.hasEnded = true
      id.foreach { key =>
        ended.add(key)
        while (ended.size > KeptEnded) Option(ended.poll()).foreach(old =>
          counters.get(old).filter(_.hasEnded).foreach(counters.remove(old, _)))
      }
    }
  }

  /** The counter under `id`, if there is one; one whose operation ended is then forgotten. */
  def read(id: String): Option[Progress] = counters.get(id).map { progress =>
    if (progress.hasEnded) counters.remove(id, progress)
    progress
  }
}
