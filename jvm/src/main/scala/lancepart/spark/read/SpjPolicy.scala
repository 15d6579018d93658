// When a scan reports its partitioning for storage-partitioned joins (catalog options spj.*).
// Spark then runs one task per partition key, which pays off only for a bounded number of keys
// that each hold enough data; otherwise the scan packs partition tables into tasks by size.
package lancepart.spark.read

/**
 * `maxKeys`: the most distinct partition keys a scan reports (0: it never reports);
 * `minKeyBytes`: the data bytes its keys must hold on average, by the sizes lancepart's commits
 * recorded (a scan of tables without recorded sizes is not held to it).
 */
case class SpjPolicy(maxKeys: Int, minKeyBytes: Long) {
  def enabled: Boolean = maxKeys > 0
}

object SpjPolicy {
  val Off: SpjPolicy = SpjPolicy(0, 0L)
}
