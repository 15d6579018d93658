// The partition a row belongs to: its values of one spec's partition fields, from the write tasks
// through PartitionDirectory to the manifest row.
package lancepart.txn

/**
 * `values` are one per field of `fieldIds`, in spec order, in Spark's internal forms (see
 * [[lancepart.arrow.ArrowValues]]; null for NULL); a namespace's key holds the first fields only.
 * Keys are equal when their sequences are: value by value with Scala's `==` (UTF8String and
 * Decimal by value, boxed numbers by number, NULL equal to NULL, a float NaN equal to itself and
 * -0.0 apart from 0.0, as `java.lang.Float.equals` has them), binary values by their bytes;
 * equal keys hash alike.
 */
case class PartitionKey(fieldIds: Seq[String], values: Seq[Any]) {
  require(fieldIds.size == values.size, s"partition key of fields ${fieldIds.mkString(", ")} has ${values.size} values")

  /** The key of the namespace at depth `k`: the first `k` fields. */
  def prefix(k: Int): PartitionKey = PartitionKey(fieldIds.take(k), values.take(k))

  /** Field id to value, as a manifest row holds them. */
  def byFieldId: Map[String, Any] = fieldIds.zip(values).toMap

  /** `values` with byte arrays (equal only by reference) as sequences of their bytes and floats
   * as their bits (Scala's `==` holds NaN unequal to itself). */
  private def comparable: Seq[Any] = values.map {
    case b: Array[Byte] => b.toSeq
    case f: Float => (classOf[Float], java.lang.Float.floatToIntBits(f))
    case d: Double => (classOf[Double], java.lang.Double.doubleToLongBits(d))
    case v => v
  }

  override def equals(other: Any): Boolean = other match {
    case k: PartitionKey => fieldIds == k.fieldIds && comparable == k.comparable
    case _ => false
  }

  override def hashCode: Int = (fieldIds, comparable).hashCode
}

object PartitionKey {

  /** The key of `fieldIds` in `values` (field id to value, as a manifest row holds them): NULL
   * for a field without a value. */
  def of(fieldIds: Seq[String], values: Map[String, Any]): PartitionKey =
    PartitionKey(fieldIds, fieldIds.map(values.getOrElse(_, null)))
}
