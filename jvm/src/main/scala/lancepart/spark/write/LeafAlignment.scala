// Before new rows land in an existing partition table, make it hold every readable namespace
// column under its current name (spec schema rules: writes never drop a value). Adds and renames
// are metadata-only Lance commits. A column widened in the namespace keeps its narrower type in
// the leaf (lance-core's Java API does not cast columns): values are narrowed exactly or refused.
// Lance takes fragments only in the table's own column order, so the result is that order.
// In strong mode the leaf is read at its read_version and cannot be aligned: lance-core's Java
// API commits schema changes only on the main branch, never detached.
package lancepart.spark.write

import lancepart.manifest.Lance
import lancepart.spark.LeafSchema
import lancepart.spec.{NamespaceSchema, SchemaEvolution, SchemaField}
import org.apache.arrow.vector.types.pojo.{Field, Schema}
import org.apache.spark.sql.lancepart.ArrowBridge
import org.lance.schema.ColumnAlteration

import scala.jdk.CollectionConverters._

object LeafAlignment {
  /** The leaf's fields after alignment, in order, each with the namespace column it stores
   * (None for a leaf-only column, which new rows leave NULL). `pinned` is the version a
   * strong-mode write appends to (None in weak mode: the latest, which is aligned in place). */
  def align(uri: String, schema: NamespaceSchema, storage: Map[String, String],
            pinned: Option[Long]): Seq[(Field, Option[SchemaField])] = {
    val unchanged = Lance.using(Lance.open(uri, storage, pinned)) { ds =>
      val leaf = ds.getSchema
      val found = schema.active.map(c => c -> LeafSchema.find(leaf, c))
      val alterations = found.collect { case (c, Some(f)) =>
        val leafType = ArrowBridge.fromArrowField(f)
        if (!SchemaEvolution.isWidening(leafType, c.dataType)) {
          throw new IllegalStateException(s"partition table $uri: column '${f.getName}' has type ${leafType.sql}; " +
            s"values of namespace column '${c.name}' (${c.dataType.sql}) cannot be stored in it")
        }
        if (f.getName != c.name) Some(new ColumnAlteration.Builder(f.getName).rename(c.name).build()) else None
      }.flatten
      // A leaf column of a dropped namespace column steps aside when a new column takes its name.
      val missingNames = found.collect { case (c, None) => c.name }.toSet
      val displaced = leaf.getFields.asScala.toSeq.collect {
        case f if missingNames(f.getName) => new ColumnAlteration.Builder(f.getName)
          .rename(s"${f.getName}_deprecated_${Option(f.getMetadata.get(LeafSchema.FieldIdKey)).getOrElse("untagged")}").build()
      }
      val missing = found.collect { case (c, None) => LeafSchema.tagged(c) }
      if (pinned.isDefined && (alterations.nonEmpty || displaced.nonEmpty || missing.nonEmpty)) {
        val columns = (alterations.map(_.getPath) ++ displaced.map(_.getPath) ++ missing.map(_.getName)).mkString(", ")
        throw new UnsupportedOperationException(s"partition table $uri predates schema changes of its namespace " +
          s"(columns: $columns) and transaction.mode=strong cannot align it: lance-core commits schema changes only " +
          "on the main branch, never detached. Rewrite the partition with a dynamic INSERT OVERWRITE " +
          "(spark.sql.sources.partitionOverwriteMode=dynamic), which writes it in the namespace's columns")
      }
      if (alterations.nonEmpty || displaced.nonEmpty) ds.alterColumns((alterations ++ displaced).asJava)
      if (missing.nonEmpty) ds.addColumns(missing.asJava)
      if (alterations.isEmpty && displaced.isEmpty && missing.isEmpty) Some(layout(leaf, schema)) else None
    }
    unchanged.getOrElse(Lance.using(Lance.open(uri, storage, pinned))(ds => layout(ds.getSchema, schema)))
  }

  private def layout(leaf: Schema, schema: NamespaceSchema): Seq[(Field, Option[SchemaField])] =
    leaf.getFields.asScala.toSeq.map(f => f -> schema.active.find(c => LeafSchema.find(leaf, c).contains(f)))
}
