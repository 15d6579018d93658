// The __manifest table of one partitioned namespace: create, load metadata, query rows, upsert rows.
package lancepart.manifest

import java.util.Collections

import lancepart.spec.{BoundField, FormatException, PartitionField, TableMetadata}
import org.apache.arrow.c.{ArrowArrayStream, Data}
import org.apache.arrow.vector.VectorSchemaRoot
import org.apache.arrow.vector.types.pojo.{ArrowType, Field, FieldType, Schema}
import org.apache.spark.sql.lancepart.ArrowBridge
import org.lance.{Dataset, WriteParams}
import org.lance.ipc.ScanOptions
import org.lance.merge.MergeInsertParams
import org.lance.operation.{UpdateConfig, UpdateMap}

import scala.collection.mutable.ArrayBuffer
import scala.jdk.CollectionConverters._

/** One `__manifest` row; `values` maps partition field_id to its value (see [[ArrowValues]]). */
case class ManifestRow(
    objectId: String,
    objectType: String,
    location: Option[String],
    readVersion: Option[Long],
    values: Map[String, Any]) {
  def specVersion: Option[Int] = Naming.specVersion(objectId)
}

/** What a reader needs: metadata at one manifest version. */
case class Manifest(meta: TableMetadata, version: Long)

class ManifestStore(val tableUri: String, val table: String, storage: Map[String, String]) {
  import ManifestStore._

  val uri: String = s"$tableUri/$DirName"

  /** URI of a partition table from its location (relative to the table root). */
  def leafUri(location: String): String = s"$tableUri/$location"

  /** URI of the partition table of a `table` row; a row without a location is refused. */
  def leafUri(row: ManifestRow): String = leafUri(row.location.getOrElse(
    throw new FormatException(s"table $table: partition table ${row.objectId} has no location")))

  /** A partition table's row count at the row's read_version, from Lance metadata. */
  def leafRowCount(row: ManifestRow): Long =
    Lance.using(Lance.open(leafUri(row), storage, row.readVersion))(_.countRows())

  /** Creates `__manifest` with the table's metadata and the `v<N>` row of its spec. */
  def create(meta: TableMetadata): Unit = {
    val schema = arrowSchema(meta.allFields)
    val created = Dataset.write().allocator(Lance.allocator).schema(schema).uri(uri)
      .mode(WriteParams.WriteMode.CREATE).storageOptions(storage.asJava).execute()
    created.close()
    updateMetadata(meta.properties)
    upsert(Seq(ManifestRow(meta.currentSpec.namespace, Naming.NamespaceType, None, None, Map.empty)))
  }

  /**
   * Adds `next`'s newest spec to a table whose metadata was `current`: first the spec's new
   * `partition_field_*` columns (all NULL), then the `partition_spec_v<N>` property, then the
   * `v<N>` namespace row, so a reader that sees the spec always finds its columns.
   */
  def evolve(current: TableMetadata, next: TableMetadata): Unit = {
    val spec = next.currentSpec
    Lance.using(Lance.open(uri, storage)) { ds =>
      val present = ds.getSchema.getFields.asScala.map(_.getName).toSet
      val added = next.allFields.filterNot(f => present(f.column))
        .map(f => ArrowBridge.toArrowField(f.column, f.valueType, nullable = true))
      if (added.nonEmpty) ds.addColumns(added.asJava)
    }
    val stored = properties()
    if (stored.contains(spec.spec.key) || stored.get(TableMetadata.SchemaKey) != current.properties.get(TableMetadata.SchemaKey)) {
      throw new IllegalStateException(s"table $table changed while ${spec.spec.key} was being added; retry")
    }
    updateMetadata(Map(spec.spec.key -> spec.spec.toJson))
    upsert(Seq(ManifestRow(spec.namespace, Naming.NamespaceType, None, None, Map.empty)))
  }

  /** Stores `next` as the table's schema (one table-metadata commit); refused when the stored
   * schema is no longer `current`'s. Partition tables are not rewritten. */
  def updateSchema(current: TableMetadata, next: TableMetadata): Unit = {
    if (properties().get(TableMetadata.SchemaKey) != current.properties.get(TableMetadata.SchemaKey)) {
      throw new IllegalStateException(s"table $table changed while its schema was being altered; retry")
    }
    updateMetadata(Map(TableMetadata.SchemaKey -> next.schema.json))
  }

  private def updateMetadata(updates: Map[String, String]): Unit = Lance.using(Lance.open(uri, storage)) { ds =>
    val update = UpdateConfig.builder()
      .tableMetadataUpdates(UpdateMap.builder().updates(updates.asJava).replace(false).build()).build()
    Lance.using(ds.newTransactionBuilder().operation(update).build())(_.commit().close())
  }

  /** The table metadata and manifest version, checked against the manifest's columns. */
  def load(): Manifest = loadIfPartitioned().getOrElse(
    throw new FormatException(s"table $table: the __manifest metadata has no partition_spec_v<N> property"))

  /** As [[load]], or None when the manifest declares no partition spec (a plain namespace):
   * one open of `__manifest` tells both. */
  def loadIfPartitioned(): Option[Manifest] = Lance.using(Lance.open(uri, storage)) { ds =>
    val props = ds.getTableMetadata.asScala.toMap
    Option.when(TableMetadata.isPartitioned(props)) {
      val meta = TableMetadata.fromProperties(props, table)
      checkColumns(meta, ds.getSchema)
      Manifest(meta, ds.version())
    }
  }

  /** The table metadata map of `__manifest`, or None when the directory has no manifest. */
  def properties(): Map[String, String] =
    Lance.using(Lance.open(uri, storage))(_.getTableMetadata.asScala.toMap)

  /** Rows matching a Lance SQL `filter`, read at `manifest.version`; the filter runs inside Lance. */
  def rows(manifest: Manifest, filter: String): Seq[ManifestRow] =
    Lance.using(Lance.open(uri, storage, Some(manifest.version))) { ds =>
      val fields = manifest.meta.allFields
      val columns = BaseColumns ++ fields.map(_.column)
      val options = new ScanOptions.Builder().columns(columns.asJava).filter(filter).batchSize(8192).build()
      val out = ArrayBuffer.empty[ManifestRow]
      Lance.using(ds.newScan(options)) { scanner =>
        Lance.using(scanner.scanBatches()) { reader =>
          while (reader.loadNextBatch()) {
            val root = reader.getVectorSchemaRoot
            def col(name: String) = root.getVector(name)
            for (i <- 0 until root.getRowCount) {
              out += ManifestRow(
                objectId = ArrowValues.get(col(ObjectId), i).toString,
                objectType = ArrowValues.get(col(ObjectType), i).toString,
                location = Option(ArrowValues.get(col(Location), i)).map(_.toString),
                readVersion = Option(ArrowValues.get(col(ReadVersion), i)).map(_.asInstanceOf[Long]),
                values = fields.map(f => f.fieldId -> ArrowValues.get(col(f.column), i)).toMap)
            }
          }
        }
      }
      out.toSeq
    }

  /** Number of partition tables at `manifest.version`. */
  def tableCount(manifest: Manifest): Long =
    Lance.using(Lance.open(uri, storage, Some(manifest.version)))(_.countRows(s"$ObjectType = 'table'"))

  /**
   * One atomic `__manifest` commit: rows whose object_id exists are replaced, others inserted
   * (merge_insert keyed on object_id). Returns the new manifest version.
   */
  def upsert(rows: Seq[ManifestRow]): Long = Lance.using(Lance.open(uri, storage)) { ds =>
    Lance.using(VectorSchemaRoot.create(ds.getSchema, Lance.allocator)) { root =>
      root.allocateNew()
      rows.zipWithIndex.foreach { case (row, i) =>
        root.getFieldVectors.asScala.foreach(v => ArrowValues.set(v, i, columnValue(row, v.getField.getName)))
      }
      root.getFieldVectors.asScala.foreach(_.setValueCount(rows.size))
      root.setRowCount(rows.size)
      Lance.using(new RootReader(root, Lance.allocator)) { reader =>
        Lance.using(ArrowArrayStream.allocateNew(Lance.allocator)) { stream =>
          Data.exportArrayStream(Lance.allocator, reader, stream)
          val params = new MergeInsertParams(Collections.singletonList(ObjectId))
            .withMatchedUpdateAll()
            .withNotMatched(MergeInsertParams.WhenNotMatched.InsertAll)
            .withConflictRetries(ConflictRetries)
          Lance.using(ds.mergeInsert(params, stream).dataset())(_.version())
        }
      }
    }
  }

  private def columnValue(row: ManifestRow, column: String): Any = column match {
    case ObjectId => row.objectId
    case ObjectType => row.objectType
    case Location => row.location.orNull
    case ReadVersion => row.readVersion.getOrElse(null)
    case c if c.startsWith(PartitionField.ColumnPrefix) => row.values.getOrElse(c.stripPrefix(PartitionField.ColumnPrefix), null)
    case _ => null
  }

  private def checkColumns(meta: TableMetadata, schema: Schema): Unit = {
    val present = schema.getFields.asScala.map(_.getName).toSet
    (BaseColumns.filterNot(present)).headOption.foreach { c =>
      throw new FormatException(s"table $table: __manifest has no '$c' column")
    }
    for (spec <- meta.specs; f <- spec.fields if !present(f.column)) {
      throw new FormatException(
        s"table $table: __manifest has no column '${f.column}' for field '${f.fieldId}' of " +
          s"${spec.spec.key}; another client may have rewritten the manifest without its partition columns")
    }
  }
}

object ManifestStore {
  val DirName = "__manifest"
  val ObjectId = "object_id"
  val ObjectType = "object_type"
  val Location = "location"
  val Metadata = "metadata"
  val BaseObjects = "base_objects"
  val ReadVersion = "read_version"
  val BaseColumns: Seq[String] = Seq(ObjectId, ObjectType, Location, ReadVersion)
  private val ConflictRetries = 20

  /** Directory-namespace columns, `read_version` and one column per partition field. */
  def arrowSchema(fields: Seq[BoundField]): Schema = {
    val utf8 = new ArrowType.Utf8()
    val pk = Map("lance-schema:unenforced-primary-key:position" -> "0").asJava
    val base = Seq(
      new Field(ObjectId, new FieldType(false, utf8, null, pk), null),
      Field.notNullable(ObjectType, utf8),
      Field.nullable(Location, utf8),
      Field.nullable(Metadata, utf8),
      new Field(BaseObjects, FieldType.nullable(new ArrowType.List()),
        Collections.singletonList(Field.nullable(ObjectId, utf8))),
      Field.nullable(ReadVersion, new ArrowType.Int(64, false)))
    val partition = fields.map(f => ArrowBridge.toArrowField(f.column, f.valueType, nullable = true))
    new Schema((base ++ partition).asJava)
  }

}
