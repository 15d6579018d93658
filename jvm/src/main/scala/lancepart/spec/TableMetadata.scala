// Root namespace properties (spec: Metadata Definition): the schema plus every partition_spec_v<N>.
package lancepart.spec

import org.apache.spark.sql.types._

/** A partition field with its source column (None when the source id is gone) and value type. */
case class BoundField(field: PartitionField, source: Option[SchemaField], valueType: DataType) {
  def fieldId: String = field.fieldId
  def column: String = field.manifestColumn
  def isIdentityOf(sourceId: Int): Boolean = field.isIdentity && field.sourceIds == Seq(sourceId)
}

/** A spec version with its fields bound to the schema. */
case class BoundSpec(spec: PartitionSpec, fields: Seq[BoundField]) {
  def id: Int = spec.id
  def namespace: String = spec.namespace
}

case class TableMetadata(table: String, schema: NamespaceSchema, specs: Seq[BoundSpec]) {
  require(specs.nonEmpty, s"table $table has no partition spec")

  /** The spec that new writes use: the highest version. */
  def currentSpec: BoundSpec = specs.maxBy(_.id)

  /** Every partition field of every version, each field_id once, in version then spec order. */
  def allFields: Seq[BoundField] = specs.sortBy(_.id).flatMap(_.fields).distinctBy(_.fieldId)

  def properties: Map[String, String] =
    specs.map(s => s.spec.key -> s.spec.toJson).toMap + (TableMetadata.SchemaKey -> schema.json)
}

object TableMetadata {
  val SchemaKey = "schema"

  /** Types a partition value may have: exact equality and a literal form in Lance filters. */
  def isSupportedPartitionType(dt: DataType): Boolean = dt match {
    case BooleanType | ByteType | ShortType | IntegerType | LongType | StringType | DateType |
         TimestampType | TimestampNTZType | _: DecimalType => true
    case _ => false
  }

  /** True when `props` (the __manifest table metadata) mark a partitioned namespace. */
  def isPartitioned(props: Map[String, String]): Boolean =
    props.keys.exists(k => PartitionSpec.versionOfKey(k).isDefined)

  def fromProperties(props: Map[String, String], table: String): TableMetadata = {
    val schemaText = props.getOrElse(SchemaKey,
      throw new FormatException(s"table $table: the __manifest metadata has no 'schema' property"))
    val schema = NamespaceSchema.parse(schemaText, table)
    val specs = props.toSeq.flatMap { case (k, v) => PartitionSpec.versionOfKey(k).map(_ => (k, v)) }
      .map { case (k, v) => bind(PartitionSpec.parse(v, k, table), schema, table) }
    if (specs.isEmpty) throw new FormatException(s"table $table: no partition_spec_v<N> property")
    checkFieldIdsAgree(specs, table)
    TableMetadata(table, schema, specs.sortBy(_.id))
  }

  def create(table: String, schema: NamespaceSchema, spec: PartitionSpec): TableMetadata =
    TableMetadata(table, schema, Seq(bind(spec, schema, table)))

  private def bind(spec: PartitionSpec, schema: NamespaceSchema, table: String): BoundSpec = {
    val fields = spec.fields.map { f =>
      val what = s"table $table: ${spec.key} field '${f.fieldId}'"
      val sources = f.sourceIds.map(schema.byId)
      val source = if (f.sourceIds.size == 1) sources.head else None
      val zoned = source.exists(_.dataType == TimestampType)
      val declared = ArrowJsonType.toSpark(f.resultTypeJson, zoned, s"$what: result_type")
      if (f.isIdentity) {
        if (f.sourceIds.size != 1) {
          throw new FormatException(s"$what: identity needs exactly one source id, got ${f.sourceIds.size}")
        }
        source.filter(_.dataType != declared).foreach { s =>
          throw new FormatException(
            s"$what: result_type ${declared.sql} differs from source column '${s.name}' type ${s.dataType.sql}")
        }
      }
      BoundField(f, source, declared)
    }
    BoundSpec(spec, fields)
  }

  /** A field_id names one definition across versions (spec: Field ID Reuse). */
  private def checkFieldIdsAgree(specs: Seq[BoundSpec], table: String): Unit = {
    specs.flatMap(s => s.fields.map(f => (s.id, f))).groupBy(_._2.fieldId).foreach { case (fid, uses) =>
      val defs = uses.map { case (_, f) => (f.field.sourceIds, f.field.transform, f.field.expression) }.distinct
      if (defs.size > 1) {
        throw new FormatException(
          s"table $table: field_id '$fid' has different definitions in versions ${uses.map(_._1).mkString(", ")}")
      }
    }
  }
}
