// Partition-table (leaf) schemas: written with each column tagged by its namespace field id, so
// that a renamed column is still found in leaves written before the rename.
package lancepart.lance

import lancepart.spec.{NamespaceSchema, SchemaField}
import org.apache.arrow.vector.types.pojo.{Field, FieldType, Schema}

import scala.jdk.CollectionConverters._

object LeafSchema {
  val FieldIdKey = "lancepart:field_id"

  /** The Arrow schema of data written now: the readable columns, tagged with their ids. */
  def arrow(schema: NamespaceSchema): Schema = new Schema(schema.fields.map(tagged(schema, _)).asJava)

  /** Column `f` as a new partition table stores it ([[NamespaceSchema.arrow]]), tagged with its id. */
  def tagged(schema: NamespaceSchema, f: SchemaField): Field = {
    val plain = schema.arrow(f)
    new Field(
      plain.getName,
      new FieldType(plain.isNullable, plain.getType, plain.getDictionary, Map(FieldIdKey -> f.id.toString).asJava),
      plain.getChildren)
  }

  /** The leaf field holding namespace column `f`: the one tagged with its id, else an untagged
   * field of the same name (leaves of other writers). */
  def find(leaf: Schema, f: SchemaField): Option[Field] = {
    val fields = leaf.getFields.asScala
    def tag(x: Field) = Option(x.getMetadata).flatMap(m => Option(m.get(FieldIdKey)))
    fields.find(x => tag(x).contains(f.id.toString))
      .orElse(fields.find(x => tag(x).isEmpty && x.getName == f.name))
  }
}
