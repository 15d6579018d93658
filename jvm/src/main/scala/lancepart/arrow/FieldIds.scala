// Lance field ids on Arrow fields: the `lance:field_id` metadata that lance-core takes as a field's
// id when it writes fragments or commits a schema (and does not keep as field metadata).
package lancepart.arrow

import org.apache.arrow.vector.types.pojo.{Field, FieldType}

import scala.jdk.CollectionConverters._

object FieldIds {
  val Key = "lance:field_id"

  /** `f`'s metadata, empty when it has none. */
  def metadata(f: Field): Map[String, String] = Option(f.getMetadata).fold(Map.empty[String, String])(_.asScala.toMap)

  /** `f` named `name` with `metadata` instead of its own, and `children`. */
  def rebuilt(f: Field, name: String, metadata: Map[String, String], children: Seq[Field]): Field =
    new Field(name, new FieldType(f.isNullable, f.getType, f.getDictionary, metadata.asJava), children.asJava)

  /** `f` with Lance field id `id`, and `children`. */
  def withId(f: Field, id: Int, children: Seq[Field]): Field =
    rebuilt(f, f.getName, metadata(f) + (Key -> id.toString), children)

  /** The id `f` carries. */
  def idOf(f: Field): Option[Int] = metadata(f).get(Key).map(_.toInt)

  /** The ids `f` carries, nested fields included. */
  def of(f: Field): Seq[Int] = idOf(f).toSeq ++ f.getChildren.asScala.flatMap(of)

  /** `f` with every field in it, nested ones included, numbered from `next` in pre-order. */
  def renumbered(f: Field, next: () => Int): Field = {
    val id = next()
    withId(f, id, f.getChildren.asScala.toSeq.map(renumbered(_, next)))
  }
}
