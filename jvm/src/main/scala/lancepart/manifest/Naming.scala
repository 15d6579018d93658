// Object ids and leaf directories (spec: Physical Layout and Naming; directory-namespace V2 layout).
package lancepart.manifest

import java.nio.charset.StandardCharsets
import java.security.{MessageDigest, SecureRandom}

object Naming {
  val Delimiter = "$"
  val LeafName = "dataset"
  val NamespaceType = "namespace"
  val TableType = "table"

  /** A published version of a partition table (strong mode): object id `<table id>$<version>`. */
  val TableVersionType = "table_version"
  private val random = new SecureRandom()

  /** A fresh 16-character base36 namespace name (~83 bits). */
  def randomName(): String = {
    val bytes = new Array[Byte](16)
    random.nextBytes(bytes)
    base36(bytes)
  }

  /**
   * A namespace name derived from a writer's random `seed` and the partition values it stands
   * for: as unpredictable as [[randomName]] across writers, and the same in every task of one
   * write, so tasks that meet the same new partition agree on its leaf without talking.
   */
  def derivedName(seed: String, values: Seq[String]): String =
    base36(sha256((seed +: values).mkString("\u0000")))

  def objectId(parts: Seq[String]): String = parts.mkString(Delimiter)

  /** `<table id>$<record>`: a `table_version` row's id. */
  def versionObjectId(tableId: String, record: Long): String = objectId(Seq(tableId, record.toString))

  /**
   * The directory, relative to the table root, of a leaf the write with random `seed` creates for
   * partition `objectId` (a new partition, or a new leaf replacing one): `<8 hex>_<object_id>`,
   * the hex from the seed and the object id. Every task of the write computes the same directory,
   * and no other write's: an object id alone can name a leaf again (a partition a DELETE removed
   * keeps its namespace), while the directory of its earlier leaf stays for older manifest versions.
   */
  def location(objectId: String, seed: String): String = {
    val hex = sha256(Seq(seed, objectId).mkString("\u0000")).take(4).map(b => f"${b & 0xff}%02x").mkString
    s"${hex}_$objectId"
  }

  /** The spec version of an object id `v<N>$...`, if it has that form. */
  def specVersion(objectId: String): Option[Int] = {
    val head = objectId.takeWhile(_ != '$')
    if (head.length > 1 && head.head == 'v' && head.tail.forall(_.isDigit)) Some(head.tail.toInt) else None
  }

  private def sha256(s: String): Array[Byte] =
    MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8))

  private def base36(bytes: Array[Byte]): String = {
    val n = new java.math.BigInteger(1, bytes)
    val s = n.toString(36)
    (if (s.length < 16) "0" * (16 - s.length) + s else s).takeRight(16)
  }
}
