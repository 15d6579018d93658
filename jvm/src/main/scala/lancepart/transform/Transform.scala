// The spec's well-known transform kinds and their parameters (spec: Transform Schema).
package lancepart.transform

/** A well-known transform. `numBuckets` is set for bucket kinds, `width` for truncate. */
case class Transform(kind: String, numBuckets: Option[Int] = None, width: Option[Int] = None) {
  def isIdentity: Boolean = kind == Transform.Identity
}

object Transform {
  val Identity = "identity"
  val Calendar: Seq[String] = Seq("year", "month", "day", "hour")
  val Kinds: Set[String] = Set(Identity, "bucket", "multi_bucket", "truncate") ++ Calendar
}
