// A partition table's columns as Lance stores them, with the field ids its data files refer to.
package lancepart.lance

import org.apache.arrow.vector.types.pojo.ArrowType
import org.lance.schema.LanceField

import scala.jdk.CollectionConverters._

/** A leaf column as fragments' data files see it: its field id, name, type and nested fields. */
case class LeafField(id: Int, name: String, arrowType: ArrowType, nullable: Boolean, children: Seq[LeafField])

object LeafField {
  def all(fields: java.util.List[LanceField]): Seq[LeafField] =
    fields.asScala.toSeq.map(f => LeafField(f.getId, f.getName, f.getType, f.isNullable, all(f.getChildren)))
}
