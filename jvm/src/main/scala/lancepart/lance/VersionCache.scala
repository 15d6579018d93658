// What versions of Lance datasets hold, kept per JVM for the next read of the same version (a
// version never changes): a least-recently-used map bounded by the weight of what it keeps.
package lancepart.lance

/** Values of at most `capacity` in weight together (`weigh` of each key and value, at least 1),
 * the least recently asked dropped first; a value heavier than `capacity` is not kept. */
final class VersionCache[K, V](capacity: Long, weigh: (K, V) => Long) {
  private val entries = new java.util.LinkedHashMap[K, (V, Long)](64, 0.75f, true)
  private var weight = 0L

  def get(key: K): Option[V] = synchronized(Option(entries.get(key)).map(_._1))

  def put(key: K, value: V): Unit = synchronized {
    val w = weigh(key, value).max(1)
    if (w <= capacity) {
      Option(entries.put(key, value -> w)).foreach(old => weight -= old._2)
      weight += w
      val oldest = entries.values().iterator()
      while (weight > capacity) {
        weight -= oldest.next()._2
        oldest.remove()
      }
    }
  }

  /** The weight kept. */
  def kept: Long = synchronized(weight)
}
