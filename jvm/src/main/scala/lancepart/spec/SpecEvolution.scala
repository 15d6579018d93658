// Partition evolution (spec: Partition Evolution, Field ID Reuse): the next spec version from
// requested fields, reusing the field_id of an identical definition and never reusing an id for
// a different one.
package lancepart.spec

object SpecEvolution {

  /** A requested field; `explicitId` when the user chose its field_id (else it was derived). */
  case class Requested(field: PartitionField, explicitId: Boolean)

  def next(meta: TableMetadata, requested: Seq[Requested]): PartitionSpec = {
    val existing = meta.specs.sortBy(_.id).flatMap(s => s.fields.map(f => (s.spec.key, f.field)))
    val taken = scala.collection.mutable.Set(existing.map(_._2.fieldId): _*)
    val fields = requested.map { case Requested(r, explicit) =>
      existing.find { case (_, e) => e.definition == r.definition } match {
        case Some((_, e)) =>
          if (explicit && e.fieldId != r.fieldId) {
            throw new IllegalArgumentException(s"table ${meta.table}: field '${r.fieldId}' has the definition of " +
              s"existing field '${e.fieldId}', whose id must be reused (spec: Field ID Reuse)")
          }
          r.copy(fieldId = e.fieldId)
        case None =>
          existing.find(_._2.fieldId == r.fieldId) match {
            case Some((key, e)) if explicit =>
              throw new IllegalArgumentException(s"table ${meta.table}: field_id '${r.fieldId}' already names " +
                s"${e.describe} in $key; a field_id is never reused for a different definition")
            case _ =>
              val id = (Iterator.single(r.fieldId) ++ Iterator.from(2).map(n => s"${r.fieldId}_$n")).find(!taken(_)).get
              taken += id
              r.copy(fieldId = id)
          }
      }
    }
    PartitionSpec(meta.specs.map(_.id).max + 1, fields)
  }
}
