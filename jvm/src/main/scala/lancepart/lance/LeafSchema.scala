// Partition-table (leaf) schemas: which leaf column holds which namespace column, and the names
// a leaf's columns take to match the namespace schema. lancepart tags every column it writes with
// its namespace field id, so a column is found before and after its rename.
package lancepart.lance

import lancepart.arrow.{ArrowTypes, FieldIds}
import lancepart.spec.{NamespaceSchema, SchemaEvolution, SchemaField}
import org.apache.arrow.vector.types.pojo.{ArrowType, Field, FieldType, Schema}
import org.lance.Dataset
import org.lance.schema.LanceField

import scala.jdk.CollectionConverters._
import scala.util.Try

/** A top-level column of a leaf: its Arrow field and the Lance field id its data files use,
 * asked of `id` only when a lookup needs it (most columns are found by tag or name). */
final class LeafColumn(val field: Field, id: () => Int) {
  lazy val lanceId: Int = id()

  def name: String = field.getName

  /** The namespace field id lancepart tagged the column with. */
  def tag: Option[Int] =
    Option(field.getMetadata).flatMap(m => Option(m.get(LeafSchema.FieldIdKey))).flatMap(s => Try(s.toInt).toOption)
}

object LeafColumn {
  def apply(field: Field, lanceId: Int): LeafColumn = new LeafColumn(field, () => lanceId)
}

object LeafSchema {
  val FieldIdKey = "lancepart:field_id"

  /** The Arrow schema of new partition tables: the readable columns ([[created]]). */
  def arrow(schema: NamespaceSchema): Schema = new Schema(schema.fields.map(created(schema, _)).asJava)

  /** Column `f` as a partition table stores it when created or when the column is added to it:
   * tagged with its id, and with the namespace's field ids for the table's Lance field ids
   * ([[NamespaceSchema.withFieldIds]]); a NOT NULL field of a nullable struct is stored nullable
   * ([[nullableInNullStructs]]). */
  def created(schema: NamespaceSchema, f: SchemaField): Field = {
    val field = schema.withFieldIds(f)
    FieldIds.rebuilt(
      field,
      field.getName,
      FieldIds.metadata(field) + (FieldIdKey -> f.id.toString),
      field.getChildren.asScala.toSeq.map(nullableInNullStructs(field, _)))
  }

  /**
   * `child` of `parent` as stored: nullable when `parent` is a nullable struct (or a field of one).
   * A NULL struct's fields hold NULL in Arrow (Spark writes them so), which Lance refuses for a
   * field marked NOT NULL; Spark keeps the namespace schema's NOT NULL for the struct's non-NULL
   * values. A list's or map's children exist only for non-NULL values, and keep their nullability
   * (a map's entries and keys must be NOT NULL).
   */
  private def nullableInNullStructs(parent: Field, child: Field): Field = {
    val nullable = child.isNullable || (parent.isNullable && parent.getType.isInstanceOf[ArrowType.Struct])
    val stored = new FieldType(nullable, child.getType, child.getDictionary, child.getMetadata)
    val children = child.getChildren.asScala.toSeq.map(nullableInNullStructs(new Field(child.getName, stored, null), _))
    new Field(child.getName, stored, children.asJava)
  }

  /** The top-level Arrow fields of `ds` as new fragments of it must be written: each field, nested
   * ones included, carrying the Lance field id `ds` gives it, so that the fragments' data files
   * name the fields `ds` has (a write otherwise numbers them 0, 1, ..., which a table with gaps in
   * its ids, from a dropped column, reads as other columns). */
  def forAppend(ds: Dataset): Seq[Field] = {
    val lanceFields = ds.getLanceSchema.fields().asScala.map(f => f.getName -> f).toMap
    ds.getSchema.getFields.asScala.toSeq.map(f => withLanceIds(f, lanceFields(f.getName)))
  }

  /** `f` with `lance`'s field id, and its children with theirs (matched by name: a fixed-size
   * list's element has none, Lance stores the list as one field). */
  private def withLanceIds(f: Field, lance: LanceField): Field =
    FieldIds.withId(
      f,
      lance.getId,
      f.getChildren.asScala.toSeq.map { c =>
        lance.getChildren.asScala.find(_.getName == c.getName).fold(c)(withLanceIds(c, _))
      })

  /** The top-level columns of `ds`, in order. Their Lance field ids are read from `ds` (its Lance
   * schema, a twentieth of a small partition table's scan: docs/benchmarks.md) the first time one
   * is asked for, so `ds` stays open while they are used. */
  def columns(ds: Dataset): Seq[LeafColumn] = {
    lazy val ids = ds.getLanceSchema.fields().asScala.map(f => f.getName -> f.getId).toMap
    ds.getSchema.getFields.asScala.toSeq.map(f => new LeafColumn(f, () => ids(f.getName)))
  }

  /**
   * The leaf column holding namespace column `f` of `namespace`: the one tagged with its id; else
   * an untagged column of the same name; else, when the leaf was written with the namespace's
   * field ids (spec: field ids are consistent across partition tables: some untagged columns are
   * named after namespace columns, and all such have their Lance field ids), the untagged column
   * with its Lance field id and a type that reads as its type: a column another writer renamed in
   * the namespace schema before this leaf. A leaf without such columns (lancepart's, whose
   * columns are tagged) gives no evidence: a column another client added to it alone has the
   * Lance field id the namespace's next ADD COLUMN takes, and is not that column.
   */
  def find(leaf: Seq[LeafColumn], f: SchemaField, namespace: Seq[SchemaField]): Option[LeafColumn] = {
    val untagged = leaf.filter(_.tag.isEmpty)
    def agree = {
      val named = untagged.flatMap(c => namespace.find(_.name == c.name).map(_.id == c.lanceId))
      named.nonEmpty && !named.contains(false)
    }
    def readable(c: LeafColumn) =
      Try(ArrowTypes.toSpark(
        c.field,
        s"column '${c.name}'")).toOption.exists(SchemaEvolution.mismatch(_, f.dataType, c.name).isEmpty)
    leaf.find(_.tag.contains(f.id))
      .orElse(untagged.find(_.name == f.name))
      .orElse(untagged.find(c => c.lanceId == f.id && readable(c)).filter(_ => agree))
  }

  /** The namespace column of `namespace` that leaf column `c` of `leaf` holds ([[find]]'s inverse). */
  def holder(leaf: Seq[LeafColumn], c: LeafColumn, namespace: Seq[SchemaField]): Option[SchemaField] =
    namespace.find(f => find(leaf, f, namespace).exists(_ eq c))

  /**
   * What the leaf must change to match `namespace`: a column holding a namespace column takes
   * that column's name (and its tag, when untagged: it is then found before and after the rename);
   * a leaf-only column whose name a namespace column has steps aside as
   * `<name>_deprecated_<tag>` (`untagged`). Lance applies all renames of a change at once.
   */
  def aligned(leaf: Seq[LeafColumn], namespace: Seq[SchemaField]): LeafChange = {
    val held = namespace.flatMap(c => find(leaf, c, namespace).map(_ -> c))
    val holders = held.map(_._1.name).toSet
    val names = namespace.map(_.name).toSet
    val displaced = leaf.collect {
      case c if !holders(c.name) && names(c.name) =>
        c.name -> s"${c.name}_deprecated_${c.tag.fold("untagged")(_.toString)}"
    }
    val renamed = held.filter { case (l, c) => l.name != c.name }
    LeafChange(
      renamed.map { case (l, c) => l.name -> c.name }.toMap ++ displaced,
      renamed.collect { case (l, c) if l.tag.isEmpty => l.name -> c.id }.toMap)
  }
}
