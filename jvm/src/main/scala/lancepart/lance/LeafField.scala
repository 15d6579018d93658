// A partition table's columns as Lance stores them, with the field ids its data files refer to.
package lancepart.lance

import lancepart.arrow.FieldIds
import org.apache.arrow.vector.types.pojo.{ArrowType, Field}
import org.lance.Dataset
import org.lance.schema.LanceField

import scala.jdk.CollectionConverters._

/** A leaf column as fragments' data files see it: its field id, name, type and nested fields. */
case class LeafField(id: Int, name: String, arrowType: ArrowType, nullable: Boolean, children: Seq[LeafField])

object LeafField {
  def all(fields: java.util.List[LanceField]): Seq[LeafField] =
    fields.asScala.toSeq.map(f => LeafField(f.getId, f.getName, f.getType, f.isNullable, all(f.getChildren)))

  /** Every field id `ds` uses: in its schema, nested fields included, or in a data file (a dropped
   * column's). */
  def idsInUse(ds: Dataset): Set[Int] = {
    def ids(f: LanceField): Seq[Int] = f.getId +: f.getChildren.asScala.toSeq.flatMap(ids)
    ds.getLanceSchema.fields().asScala.flatMap(ids).toSet ++
      ds.getFragments.asScala.flatMap(_.metadata().getFiles.asScala.flatMap(_.getFields.toSeq))
  }

  /** The field id of every field of `fields` (nested ones included) by its dotted path. */
  def idsByPath(fields: Seq[LeafField], prefix: String = ""): Map[String, Int] =
    fields.flatMap(f => idsByPath(f.children, s"$prefix${f.name}.") + (prefix + f.name -> f.id)).toMap

  /** What `idsByPath` gives for a dataset written with Arrow `fields` carrying Lance field ids
   * ([[FieldIds]]): a fixed-size list's element is no field of its own in Lance. */
  def idsWritten(fields: Seq[Field], prefix: String = ""): Map[String, Int] = fields.flatMap { f =>
    val nested = if (f.getType.isInstanceOf[ArrowType.FixedSizeList]) Map.empty[String, Int]
    else idsWritten(f.getChildren.asScala.toSeq, s"$prefix${f.getName}.")
    nested ++ FieldIds.idOf(f).map(prefix + f.getName -> _)
  }.toMap
}
