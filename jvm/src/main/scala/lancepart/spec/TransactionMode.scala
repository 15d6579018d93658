// The table property `transaction.mode` (spec: Transaction): weak (default) or strong.
package lancepart.spec

sealed abstract class TransactionMode(val name: String)

object TransactionMode {

  /** Leaf writes commit on each leaf's main branch; readers read each leaf's latest version. */
  case object Weak extends TransactionMode("weak")

  /** Leaf writes are detached commits published by one __manifest commit; readers read each
   * leaf at the manifest's `read_version`. */
  case object Strong extends TransactionMode("strong")

  val Key = "transaction.mode"

  def parse(value: String, table: String): TransactionMode = value.trim.toLowerCase match {
    case Weak.name => Weak
    case Strong.name => Strong
    case _ => throw new FormatException(s"table $table: $Key is '$value'; expected 'weak' or 'strong'")
  }

  def of(props: Map[String, String], table: String): TransactionMode =
    props.get(Key).fold[TransactionMode](Weak)(parse(_, table))
}
