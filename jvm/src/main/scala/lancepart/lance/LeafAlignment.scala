// Before new rows land in an existing partition table, make it hold every readable namespace
// column under its current name (spec schema rules: writes never drop a value). Adds and renames
// are metadata-only Lance commits. A leaf that stores a column at a narrower type than the
// namespace (a widening since it was written) cannot take the rows: lance-core's Java API does
// not cast columns, so the write rewrites the partition instead. So it does for a missing column
// with a field that cannot be NULL (a map's entries and keys): Lance adds a column to existing rows
// only when every field in it is nullable. So does a strong-mode write into
// a leaf that needs any change: its append builds on the leaf's read_version as the manifest
// has it (RENAME COLUMN publishes renamed versions itself; this is for ADD COLUMN, or a RENAME
// that did not finish).
// Lance takes fragments only in the table's own column order, so the result is that order.
package lancepart.lance

import lancepart.arrow.ArrowTypes
import lancepart.spec.{NamespaceSchema, SchemaEvolution, SchemaField}
import org.apache.arrow.vector.types.pojo.Field
import org.lance.Dataset

/** A leaf's fields after alignment, in order, each with the namespace column it stores (None for a
 * leaf-only column, which new rows leave NULL), and the Lance file format its data files have. */
case class LeafLayout(fields: Seq[(Field, Option[SchemaField])], fileVersion: String)

object LeafAlignment {

  /** The leaf's layout after alignment; None when the leaf cannot take rows of the namespace's
   * columns and the partition is to be rewritten. `pinned` is the version a strong-mode write
   * appends to (None in weak mode: the latest, which is aligned in place). `before` runs just
   * before the leaf is changed (the writer checks there that the namespace schema is still the
   * one it writes: a stale writer must not rename a leaf back). */
  def align(
      lance: LanceAccess,
      uri: String,
      schema: NamespaceSchema,
      pinned: Option[Long],
      before: () => Unit): Option[LeafLayout] = {
    lance.withDataset(uri, pinned) { ds =>
      val leaf = LeafSchema.columns(ds)
      val found = schema.fields.map(c => c -> LeafSchema.find(leaf, c, schema.fields))
      val narrower = found.exists { case (c, f) =>
        f.exists { f =>
          val leafType = ArrowTypes.toSpark(f.field, s"partition table $uri: column '${f.name}'")
          val same = ArrowTypes.sameValues(leafType, c.dataType)
          if (!same && !SchemaEvolution.isWidening(leafType, c.dataType)) {
            throw new IllegalStateException(s"partition table $uri: column '${f.name}' has type ${leafType.sql}; " +
              s"values of namespace column '${c.name}' (${c.dataType.sql}) cannot be stored in it")
          }
          !same
        }
      }
      val missing = missingFields(leaf, schema)
      val unchanged = LeafSchema.aligned(leaf, schema.fields).isEmpty && missing.isEmpty
      if (narrower || !missing.forall(ArrowTypes.addableAsNull) || (pinned.isDefined && !unchanged)) None
      else if (unchanged) Some(layout(ds, schema))
      else {
        // planned again when another commit lands first (another writer may have added them)
        LeafProject.commit(lance, uri, base = None, before)(leaf =>
          LeafSchema.aligned(leaf, schema.fields).copy(added = missingFields(leaf, schema)))
        Some(lance.withDataset(uri)(layout(_, schema)))
      }
    }
  }

  /** The namespace columns a leaf of columns `leaf` lacks, as the fields to add: with the
   * namespace's field ids, which the leaf then has where they are free ([[LeafProject]]). */
  private def missingFields(leaf: Seq[LeafColumn], schema: NamespaceSchema): Seq[Field] =
    schema.fields.filter(c => LeafSchema.find(leaf, c, schema.fields).isEmpty).map(LeafSchema.created(schema, _))

  private def layout(ds: Dataset, schema: NamespaceSchema): LeafLayout = {
    val leaf = LeafSchema.columns(ds)
    LeafLayout(
      LeafSchema.forAppend(ds).zip(leaf).map { case (written, l) =>
        written -> schema.fields.find(c => LeafSchema.find(leaf, c, schema.fields).contains(l))
      },
      ds.getLanceFileFormatVersion
    )
  }
}
