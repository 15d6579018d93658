// Before new rows land in an existing partition table, make it hold every readable namespace
// column under its current name (spec schema rules: writes never drop a value). Adds and renames
// are metadata-only Lance commits. A leaf that stores a column at a narrower type than the
// namespace (a widening since it was written) cannot take the rows: lance-core's Java API does
// not cast columns, so the write rewrites the partition instead. So does a strong-mode write into
// a leaf that needs any change: it is read at its read_version, and lance-core's Java API commits
// schema changes only on the main branch, never detached.
// Lance takes fragments only in the table's own column order, so the result is that order.
package lancepart.lance

import lancepart.arrow.ArrowTypes
import lancepart.spec.{NamespaceSchema, SchemaEvolution, SchemaField}
import org.apache.arrow.vector.types.pojo.Field
import org.lance.Dataset
import org.lance.schema.ColumnAlteration

import scala.jdk.CollectionConverters._

/** A leaf's fields after alignment, in order, each with the namespace column it stores (None for a
 * leaf-only column, which new rows leave NULL), and the Lance file format its data files have. */
case class LeafLayout(fields: Seq[(Field, Option[SchemaField])], fileVersion: String)

object LeafAlignment {

  /** The leaf's layout after alignment; None when the leaf cannot take rows of the namespace's
   * columns and the partition is to be rewritten. `pinned` is the version a strong-mode write
   * appends to (None in weak mode: the latest, which is aligned in place). */
  def align(lance: LanceAccess, uri: String, schema: NamespaceSchema, pinned: Option[Long]): Option[LeafLayout] = {
    lance.withDataset(uri, pinned) { ds =>
      val leaf = ds.getSchema
      val found = schema.fields.map(c => c -> LeafSchema.find(leaf, c))
      val narrower = found.exists { case (c, f) =>
        f.exists { f =>
          val leafType = ArrowTypes.toSpark(f, s"partition table $uri: column '${f.getName}'")
          val same = ArrowTypes.sameValues(leafType, c.dataType)
          if (!same && !SchemaEvolution.isWidening(leafType, c.dataType)) {
            throw new IllegalStateException(s"partition table $uri: column '${f.getName}' has type ${leafType.sql}; " +
              s"values of namespace column '${c.name}' (${c.dataType.sql}) cannot be stored in it")
          }
          !same
        }
      }
      val renames = found.collect {
        case (c, Some(f)) if f.getName != c.name =>
          new ColumnAlteration.Builder(f.getName).rename(c.name).build()
      }
      // A leaf column of a dropped namespace column steps aside when a new column takes its name.
      val missingNames = found.collect { case (c, None) => c.name }.toSet
      val displaced = leaf.getFields.asScala.toSeq.collect {
        case f if missingNames(f.getName) =>
          new ColumnAlteration.Builder(f.getName)
            .rename(
              s"${f.getName}_deprecated_${Option(f.getMetadata.get(LeafSchema.FieldIdKey)).getOrElse("untagged")}").build()
      }
      val missing = found.collect { case (c, None) => LeafSchema.tagged(schema, c) }
      val unchanged = renames.isEmpty && displaced.isEmpty && missing.isEmpty
      if (narrower || (pinned.isDefined && !unchanged)) None
      else if (unchanged) Some(layout(ds, schema))
      else {
        if (renames.nonEmpty || displaced.nonEmpty) ds.alterColumns((renames ++ displaced).asJava)
        if (missing.nonEmpty) ds.addColumns(missing.asJava)
        Some(lance.withDataset(uri)(layout(_, schema)))
      }
    }
  }

  private def layout(ds: Dataset, schema: NamespaceSchema): LeafLayout = {
    val leaf = ds.getSchema
    LeafLayout(
      leaf.getFields.asScala.toSeq.map(f => f -> schema.fields.find(c => LeafSchema.find(leaf, c).contains(f))),
      ds.getLanceFileFormatVersion)
  }
}
