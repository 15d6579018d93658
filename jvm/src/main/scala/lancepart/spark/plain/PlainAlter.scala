// ALTER TABLE on a plain Lance table: properties in the dataset's Lance config; ADD, RENAME and DROP
// COLUMN and DROP NOT NULL of top-level columns as Lance schema changes.
package lancepart.spark.plain

import lancepart.arrow.ArrowTypes
import lancepart.spark.TableProperties
import lancepart.spec.{ArrowJsonType, NamespaceSchema, TransactionMode}
import org.apache.spark.sql.connector.catalog.{TableCatalog, TableChange}
import org.apache.spark.sql.types.StructField

import scala.jdk.CollectionConverters._

object PlainAlter {

  def apply(table: PlainTable, changes: Seq[TableChange]): Unit = {
    val name = table.name()
    def column(names: Array[String]): String = names match {
      case Array(n) if table.plainColumns.fields.exists(_.name == n) => n
      case Array(n) => throw new IllegalArgumentException(s"table $name: no column '$n'")
      case _ => throw new UnsupportedOperationException(
          s"table $name: only top-level columns can be changed, not '${names.mkString(".")}'")
    }
    val (properties, columns) =
      changes.partition(c => c.isInstanceOf[TableChange.SetProperty] || c.isInstanceOf[TableChange.RemoveProperty])
    val set = properties.collect { case c: TableChange.SetProperty =>
      if (c.property() == TransactionMode.Key) throw new IllegalArgumentException(
        s"table $name: ${TransactionMode.Key} is a property of partitioned tables, not of a plain Lance table")
      if (c.property() == TableCatalog.PROP_LOCATION) TableProperties.checkLocation(name, table.uri, c.value())
      else {
        TableProperties.checkSettable(name, c.property())
        TableProperties.checkValue(name, c.property(), c.value())
        PlainTable.checkProperty(name, c.property(), c.value())
      }
      c.property() -> c.value()
    }.filterNot(_._1 == TableCatalog.PROP_LOCATION).toMap
    val removed = properties.collect { case c: TableChange.RemoveProperty => c.property() }.toSet
    PlainTables.setConfig(table.lance, table.uri, set, removed)
    if (columns.nonEmpty) table.lance.withDataset(table.uri) { ds =>
      columns.foreach {
        case c: TableChange.AddColumn =>
          val path = c.fieldNames()
          if (path.length != 1) throw new UnsupportedOperationException(
            s"table $name: only top-level columns can be added, not '${path.mkString(".")}'")
          if (!c.isNullable) throw new IllegalArgumentException(
            s"table $name: new column '${path.head}' must be nullable (existing rows read it as NULL)")
          if (c.position() != null || c.defaultValue() != null) throw new UnsupportedOperationException(
            s"table $name: ADD COLUMN with a position or a default is not supported")
          NamespaceSchema.checkColumnName(name, path.head)
          ArrowJsonType.requireWritable(name, path.head, c.dataType(), table.fileVersion)
          val added = NamespaceSchema.stored(name, StructField(path.head, c.dataType(), nullable = true))
          if (!ArrowTypes.addableAsNull(added)) throw new UnsupportedOperationException(
            s"table $name: column '${path.head}' of type ${c.dataType().sql} cannot be added to a plain Lance table: " +
              "Lance adds a column to existing rows only when every field in it can be NULL, and a map's keys " +
              s"cannot; write the table anew with CREATE OR REPLACE TABLE $name AS SELECT *, " +
              s"CAST(NULL AS ${c.dataType().sql}) AS ${path.head} FROM $name")
          ds.addColumns(Seq(added).asJava)
        case c: TableChange.RenameColumn =>
          NamespaceSchema.checkColumnName(name, c.newName())
          ds.alterColumns(Seq(new org.lance.schema.ColumnAlteration.Builder(column(c.fieldNames())).rename(
            c.newName()).build()).asJava)
        case c: TableChange.DeleteColumn => ds.dropColumns(Seq(column(c.fieldNames())).asJava)
        case c: TableChange.UpdateColumnType => throw new UnsupportedOperationException(
            s"table $name: column '${column(c.fieldNames())}' cannot change type on a plain Lance table: " +
              "lance-core 7.0.0 does not cast a stored column (its alterColumns ignores the new type); write the " +
              "table anew with CREATE OR REPLACE TABLE ... AS SELECT and a CAST")
        case c: TableChange.UpdateColumnPosition => throw new UnsupportedOperationException(
            s"table $name: column '${column(c.fieldNames())}' cannot be moved on a plain Lance table: lance-core " +
              "7.0.0 has no commit that reorders a dataset's columns (a partitioned table's columns can be moved)")
        case c: TableChange.UpdateColumnNullability =>
          val col = column(c.fieldNames())
          val nullable = table.plainColumns.fields.exists(f => f.name == col && f.nullable)
          if (c.nullable() && !nullable)
            ds.alterColumns(Seq(new org.lance.schema.ColumnAlteration.Builder(col).nullable(true).build()).asJava)
          else if (!c.nullable() && nullable) throw new UnsupportedOperationException(
            s"table $name: column '$col' is nullable and cannot be made NOT NULL (its rows may hold NULLs)")
        case other => throw new UnsupportedOperationException(
            s"table $name: ALTER TABLE change ${other.getClass.getSimpleName} is not supported on a plain Lance table")
      }
    }
  }
}
