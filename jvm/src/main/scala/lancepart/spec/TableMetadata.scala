// Root namespace properties (spec: Metadata Definition): the schema plus every partition_spec_v<N>.
package lancepart.spec

import lancepart.arrow.ArrowTypes
import lancepart.transform.{ExprSyntaxException, PartitionExpression, Transform}
import org.apache.arrow.vector.types.pojo.{ArrowType, Field}
import org.apache.spark.sql.types._

import scala.collection.mutable
import scala.jdk.CollectionConverters._

/**
 * A partition field bound to the schema: `sources` follow `source_ids` (None for an id the schema
 * no longer has), `valueType` is the partition value's type and `storedType` is the Arrow type of
 * its `result_type`. A transform field is computed here ([[transformValue]]); an expression field
 * is DataFusion SQL, evaluated in batches through lance-core (`lancepart.lance.PartitionValues`).
 */
case class BoundField(
    field: PartitionField,
    sources: Seq[Option[SchemaField]],
    valueType: DataType,
    storedType: ArrowType) {
  def fieldId: String = field.fieldId
  def column: String = field.manifestColumn

  /** The `__manifest` column of its values, of its `result_type`. */
  def arrowField: Field = Field.nullable(column, storedType)

  /** A transform field's value for source values (Spark internal forms); NULL when the schema
   * lost a source. */
  def transformValue(values: IndexedSeq[Any]): Any = {
    val t = field.transform.getOrElse(throw new IllegalStateException(s"field '$fieldId' is an expression field"))
    if (sources.contains(None)) null else t(values.zip(sources.flatten.map(_.dataType)))
  }

  /** The single source column, when the field has exactly one and the schema has it. */
  def source: Option[SchemaField] = if (sources.size == 1) sources.head else None
  def isIdentityOf(sourceId: Int): Boolean = field.isIdentity && field.sourceIds == Seq(sourceId)
}

/** A spec version with its fields bound to the schema. */
case class BoundSpec(spec: PartitionSpec, fields: Seq[BoundField]) {
  def id: Int = spec.id
  def namespace: String = spec.namespace

  /** A leaf's values of the identity fields' source columns, by column name, from its partition
   * values (by field id). */
  def identityValues(values: Map[String, Any]): Map[String, Any] =
    fields.filter(_.field.isIdentity).flatMap(f => f.source.map(s => s.name -> values.getOrElse(f.fieldId, null))).toMap
}

/** `tableProperties` are the user's: COMMENT and custom TBLPROPERTIES (stored with a prefix).
 * `unpartitioned` names the partition tables whose partition values are unknown (another client
 * created them without any, see `ManifestRepair`): every scan reads them, and no partition
 * filter is exact while there are any. */
case class TableMetadata(
    table: String,
    schema: NamespaceSchema,
    specs: Seq[BoundSpec],
    mode: TransactionMode = TransactionMode.Weak,
    tableProperties: Map[String, String] = Map.empty,
    unpartitioned: Set[String] = Set.empty) {
  require(specs.nonEmpty, s"table $table has no partition spec")

  /** The spec that new writes use: the highest version. */
  def currentSpec: BoundSpec = specs.maxBy(_.id)

  /** Every partition field of every version, each field_id once, in version then spec order. */
  def allFields: Seq[BoundField] = {
    val seen = mutable.Set.empty[String]
    specs.sortBy(_.id).flatMap(_.fields).filter(f => seen.add(f.fieldId))
  }

  def properties: Map[String, String] =
    specs.map(s => s.spec.key -> s.spec.toJson).toMap + (TableMetadata.SchemaKey -> schema.json) +
      (TransactionMode.Key -> mode.name) ++
      (if (unpartitioned.nonEmpty)
         Some(TableMetadata.UnpartitionedKey -> TableMetadata.unpartitionedJson(unpartitioned))
       else None)

  /** The whole `__manifest` table metadata: [[properties]] and the user's table properties. */
  def stored: Map[String, String] =
    properties ++ tableProperties.map { case (k, v) => TableMetadata.PropertyPrefix + k -> v }

  /** This metadata with `spec` added as the newest version, checked as a stored spec is. */
  def withSpec(spec: PartitionSpec): TableMetadata = {
    val all = specs :+ TableMetadata.bindChecked(spec, schema, table)
    TableMetadata.checkFieldIdsAgree(all, table)
    copy(specs = all)
  }
}

object TableMetadata {
  val SchemaKey = "schema"

  /** Prefix of the user's table properties in the `__manifest` table metadata. */
  val PropertyPrefix = "property."

  /** The object ids of the partition tables without partition values, as a JSON array of strings. */
  val UnpartitionedKey = "lancepart.unpartitioned-tables"

  def unpartitionedJson(objectIds: Set[String]): String = {
    val array = Json.mapper.createArrayNode()
    objectIds.toSeq.sorted.foreach(array.add)
    Json.write(array)
  }

  private def parseUnpartitioned(props: Map[String, String], table: String): Set[String] =
    props.get(UnpartitionedKey).fold(Set.empty[String]) { text =>
      val what = s"table $table: __manifest metadata $UnpartitionedKey"
      val node = Json.parse(text, what)
      if (!node.isArray || !node.elements().asScala.forall(_.isTextual))
        throw new FormatException(s"$what is not a JSON array of object ids: $text")
      node.elements().asScala.map(_.asText()).toSet
    }

  /** Types a partition value may have: exact equality and a literal form in Lance filters. */
  def isSupportedPartitionType(dt: DataType): Boolean = dt match {
    case BooleanType | ByteType | ShortType | IntegerType | LongType | FloatType | DoubleType | StringType |
        BinaryType | DateType | TimestampType | TimestampNTZType | _: DecimalType => true
    case _ => false
  }

  /** True when `props` (the __manifest table metadata) mark a partitioned namespace. */
  def isPartitioned(props: Map[String, String]): Boolean =
    props.keys.exists(k => PartitionSpec.versionOfKey(k).isDefined)

  def fromProperties(props: Map[String, String], table: String): TableMetadata = {
    val schemaText = props.getOrElse(
      SchemaKey,
      throw new FormatException(s"table $table: the __manifest metadata has no 'schema' property"))
    val schema = NamespaceSchema.parse(schemaText, table)
    val specs = props.toSeq.flatMap { case (k, v) => PartitionSpec.versionOfKey(k).map(_ => (k, v)) }
      .map { case (k, v) => bind(PartitionSpec.parse(v, k, table), schema, table) }
    if (specs.isEmpty) throw new FormatException(s"table $table: no partition_spec_v<N> property")
    checkFieldIdsAgree(specs, table)
    val user = props.collect { case (k, v) if k.startsWith(PropertyPrefix) => k.stripPrefix(PropertyPrefix) -> v }
    TableMetadata(
      table,
      schema,
      specs.sortBy(_.id),
      TransactionMode.of(props, table),
      user,
      parseUnpartitioned(props, table))
  }

  /** Metadata of a new table, checked exactly as a stored spec is when loaded. */
  def create(
      table: String,
      schema: NamespaceSchema,
      spec: PartitionSpec,
      mode: TransactionMode = TransactionMode.Weak,
      tableProperties: Map[String, String] = Map.empty): TableMetadata =
    TableMetadata(table, schema, Seq(bindChecked(spec, schema, table)), mode, tableProperties)

  /** `spec` bound after a JSON round trip, so a new spec passes every check a stored one does. */
  private[spec] def bindChecked(spec: PartitionSpec, schema: NamespaceSchema, table: String): BoundSpec =
    bind(PartitionSpec.parse(spec.toJson, spec.key, table), schema, table)

  private def bind(spec: PartitionSpec, schema: NamespaceSchema, table: String): BoundSpec =
    BoundSpec(spec, spec.fields.map(f => bindField(f, schema, s"table $table: ${spec.key} field '${f.fieldId}'")))

  private def bindField(f: PartitionField, schema: NamespaceSchema, what: String): BoundField = {
    val sources = f.sourceIds.map(schema.byId)
    def bound(valueType: DataType): BoundField = {
      val zoned = valueType == TimestampType
      val stored =
        ArrowJsonType.toArrow(f.manifestColumn, f.resultTypeJson, nullable = true, zoned, s"$what: result_type")
      BoundField(f, sources, valueType, stored.getType)
    }
    sources.flatten.foreach(s => checkStoredSource(f.transform, s, schema.arrow(s), what))
    f.transform match {
      case Some(_) if sources.contains(None) =>
        // a dropped source (spec requirement 4): the field's values are NULL, typed as declared
        bound(ArrowJsonType.toSpark(f.resultTypeJson, zoned = true, s"$what: result_type"))
      case Some(t) =>
        val types = sources.flatten.map(_.dataType)
        val valueType = t.resultType(types).fold(e => throw new FormatException(s"$what: $e"), identity)
        val zoned = valueType == TimestampType
        val declared = ArrowJsonType.toSpark(f.resultTypeJson, zoned, s"$what: result_type")
        if (declared != valueType) {
          throw new FormatException(s"$what: result_type ${declared.sql} is inconsistent with transform " +
            s"'${t.jsonName}' of ${types.map(_.sql).mkString(", ")}, which gives ${valueType.sql}")
        }
        bound(valueType)
      case None =>
        // read here, planned by DataFusion when a spec is made (lancepart.lance.PartitionValues.check)
        try PartitionExpression.parse(f.expression.get, sources.size)
        catch { case e: ExprSyntaxException => throw new FormatException(s"$what: ${e.getMessage}") }
        bound(ArrowJsonType.toSpark(f.resultTypeJson, zoned = false, s"$what: result_type"))
    }
  }

  /**
   * Refuses a partition field whose value lancepart would compute otherwise than the spec's
   * DataFusion functions over source `s`, stored as Arrow field `stored` (docs/format.md,
   * "Types"). Values read as Spark's own Arrow types are the stored ones. Of the others, identity
   * and calendar fields see the same value (a date, an instant, a number); truncate sees the same
   * number for unsigned integers and decimal256; bucket hashes, and expressions compute on, the
   * stored Arrow value, which is the Spark value only for large_utf8, large_binary and decimal256.
   */
  private def checkStoredSource(t: Option[Transform], s: SchemaField, stored: Field, what: String): Unit = {
    val sameValue = t.contains(Transform.Identity) || t.exists(_.isInstanceOf[Transform.CalendarField]) ||
      (stored.getType match {
        case _: ArrowType.LargeUtf8 | _: ArrowType.LargeBinary | _: ArrowType.Decimal => true
        case i: ArrowType.Int => !i.getIsSigned && t.exists(_.isInstanceOf[Transform.Truncate])
        case _ => false
      })
    if (!sameValue && !ArrowTypes.isSparkOwn(stored, s"$what: column '${s.name}'")) {
      val kind = t.fold("an expression")(k => s"transform '${k.jsonName}'")
      val storedName = ArrowTypes.name(stored.getType)
      throw new FormatException(s"$what: $kind over column '${s.name}' (stored as $storedName, read as " +
        s"${s.dataType.sql}) is not supported: its value would be computed on the ${s.dataType.sql} value, while the " +
        s"spec computes it on the stored $storedName value, which differs in width or unit")
    }
  }

  /** A field_id names one definition across versions (spec: Field ID Reuse). */
  private[spec] def checkFieldIdsAgree(specs: Seq[BoundSpec], table: String): Unit = {
    specs.flatMap(s => s.fields.map(f => (s.id, f))).groupBy(_._2.fieldId).foreach { case (fid, uses) =>
      val defs = uses.map { case (_, f) => f.field.definition }.distinct
      if (defs.size > 1) {
        throw new FormatException(
          s"table $table: field_id '$fid' has different definitions in versions ${uses.map(_._1).mkString(", ")}")
      }
    }
  }
}
