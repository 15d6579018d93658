// The partition a row belongs to: its values of one spec's partition fields, from the write tasks
// through PartitionDirectory to the manifest row.
package lancepart.txn

/**
 * `values` are one per field of `fieldIds`, in spec order, in Spark's internal forms (see
 * [[lancepart.manifest.ArrowValues]]; null for NULL); a namespace's key holds the first fields only.
 * Keys are equal when their sequences are: value by value with Scala's `==` (UTF8String and
 * Decimal by value, boxed integers by number, NULL equal to NULL), hashing alike. Partition values
 * are never floating point or binary (`TableMetadata.isSupportedPartitionType`), so NaN, -0.0 and
 * byte arrays (equal only by reference) do not occur.
 */
case class PartitionKey(fieldIds: Seq[String], values: Seq[Any]) {
  require(fieldIds.size == values.size, s"partition key of fields ${fieldIds.mkString(", ")} has ${values.size} values")

  /** The key of the namespace at depth `k`: the first `k` fields. */
  def prefix(k: Int): PartitionKey = PartitionKey(fieldIds.take(k), values.take(k))

  /** Field id to value, as a manifest row holds them. */
  def byFieldId: Map[String, Any] = fieldIds.zip(values).toMap
}

object PartitionKey {

  /** The key of `fieldIds` in `values` (field id to value, as a manifest row holds them): NULL
   * for a field without a value. */
  def of(fieldIds: Seq[String], values: Map[String, Any]): PartitionKey =
    PartitionKey(fieldIds, fieldIds.map(values.getOrElse(_, null)))
}
