// Progress of a long admin operation over many partition tables (repair, vacuum), counted while
// it runs so that a caller on another thread can show it: the Python Admin polls it over py4j
// and draws a progress bar.
package lancepart.maintenance

import java.util.concurrent.atomic.AtomicLong

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
}
