// Round trips and validation of the format's JSON: namespace schema and partition specs.
package lancepart.spec

import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

class SpecJsonSuite extends AnyFunSuite {
  private val appendixA =
    """{"fields": [
      |  {"name": "id", "nullable": false, "type": {"type": "int64"}, "metadata": {"lance:field_id": "0"}},
      |  {"name": "event_date", "nullable": true, "type": {"type": "date32"}, "metadata": {"lance:field_id": "1"}},
      |  {"name": "country", "nullable": true, "type": {"type": "utf8"}, "metadata": {"lance:field_id": "2"}}
      |]}""".stripMargin

  private val specV2 =
    """{"id": 2, "fields": [
      |  {"field_id": "event_year", "source_ids": [1], "transform": {"type": "year"}, "result_type": {"type": "int32"}},
      |  {"field_id": "country", "source_ids": [2], "transform": {"type": "identity"}, "result_type": {"type": "utf8"}}
      |]}""".stripMargin

  test("the spec's Appendix A schema parses with its field ids") {
    val schema = NamespaceSchema.parse(appendixA, "t")
    assert(schema.fields == Seq(
      SchemaField(0, "id", LongType, nullable = false),
      SchemaField(1, "event_date", DateType, nullable = true),
      SchemaField(2, "country", StringType, nullable = true)))
  }

  test("a Spark schema round trips through JsonArrowSchema, nested fields included") {
    val struct = StructType(Seq(
      StructField("id", LongType, nullable = false),
      StructField("ts", TimestampType),
      StructField("ntz", TimestampNTZType),
      StructField("amount", DecimalType(12, 3)),
      StructField("b", BooleanType),
      StructField("i8", ByteType),
      StructField("i16", ShortType),
      StructField("f", FloatType),
      StructField("bin", BinaryType),
      StructField("tags", ArrayType(StringType, containsNull = true)),
      StructField("point", StructType(Seq(StructField("x", DoubleType), StructField("y", DoubleType)))),
      StructField("attrs", MapType(StringType, IntegerType, valueContainsNull = true))
    ))
    val created = NamespaceSchema.fromSpark(struct, "t")
    val parsed = NamespaceSchema.parse(created.json, "t")
    assert(parsed.sparkSchema == struct)
    assert(parsed.fields.map(_.id) == Seq(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 14))
    val ids = "\"lance:field_id\":\"(\\d+)\"".r.findAllMatchIn(created.json).map(_.group(1).toInt).toList
    assert(ids.sorted == (0 until ids.size), "every field, nested ones too, has its own id")
  }

  test("decimal and zoned timestamps use Lance's encodings") {
    val json = NamespaceSchema.fromSpark(
      StructType(Seq(
        StructField("d", DecimalType(38, 10)),
        StructField("ts", TimestampType))),
      "t").json
    assert(json.contains("\"type\":{\"type\":\"decimal128\",\"length\":38010}"))
    assert(json.contains("\"lancepart:timezone\":\"UTC\""))
  }

  test("a partition spec round trips") {
    val spec = PartitionSpec.parse(specV2, "partition_spec_v2", "t")
    assert(spec.id == 2)
    assert(spec.fields.map(f => (f.fieldId, f.sourceIds, f.transform.map(_.jsonName))) ==
      Seq(("event_year", Seq(1), Some("year")), ("country", Seq(2), Some("identity"))))
    assert(PartitionSpec.parse(spec.toJson, "partition_spec_v2", "t") == spec)
  }

  test("table metadata binds identity fields to their source columns") {
    val meta = TableMetadata.fromProperties(
      Map(
        "schema" -> appendixA,
        "partition_spec_v2" -> specV2,
        "partition_spec_v1" -> """{"id":1,"fields":[{"field_id":"event_date","source_ids":[1],"transform":{"type":"identity"},"result_type":{"type":"date32"}}]}"""
      ),
      "t"
    )
    assert(meta.specs.map(_.id) == Seq(1, 2))
    assert(meta.currentSpec.id == 2)
    assert(meta.allFields.map(_.fieldId) == Seq("event_date", "event_year", "country"))
    assert(meta.allFields.map(_.valueType) == Seq(DateType, IntegerType, StringType))
    assert(meta.specs.head.fields.head.source.map(_.name).contains("event_date"))
  }

  private def specError(fields: String): String = intercept[FormatException] {
    TableMetadata.fromProperties(
      Map("schema" -> appendixA, "partition_spec_v1" -> s"""{"id":1,"fields":[$fields]}"""),
      "cat.ns.t")
  }.getMessage

  test("bad specs fail with errors that name the table, key and field") {
    assert(specError("""{"field_id":"x","source_ids":[1],"result_type":{"type":"int32"}}""") ==
      "table cat.ns.t: property 'partition_spec_v1', field #0 ('x'): exactly one of 'transform' and 'expression' must be given")
    assert(specError("""{"field_id":"x","source_ids":[1],"transform":{"type":"identity"},"expression":"col0","result_type":{"type":"date32"}}""")
      .contains("exactly one of 'transform' and 'expression'"))
    assert(
      specError("""{"field_id":"x","source_ids":[1],"transform":{"type":"zorder"},"result_type":{"type":"int32"}}""")
        .endsWith("unknown transform type 'zorder'"))
    assert(
      specError("""{"field_id":"x","source_ids":[1],"transform":{"type":"bucket"},"result_type":{"type":"int32"}}""")
        .endsWith("transform 'bucket' needs a positive integer 'num_buckets'"))
    assert(specError(
      """{"field_id":"x","source_ids":[1],"transform":{"type":"truncate","width":0},"result_type":{"type":"int32"}}""")
      .endsWith("transform 'truncate' needs a positive integer 'width'"))
    assert(
      specError("""{"field_id":"x","source_ids":[1],"transform":{"type":"identity"},"result_type":{"type":"utf8"}},""" +
        """{"field_id":"x","source_ids":[2],"transform":{"type":"identity"},"result_type":{"type":"utf8"}}""")
        .endsWith("field_id 'x' appears twice"))
    assert(specError(
      """{"field_id":"x","source_ids":[1],"transform":{"type":"identity"},"result_type":{"type":"utf8"}}""") ==
      "table cat.ns.t: partition_spec_v1 field 'x': result_type STRING is inconsistent with transform 'identity' of DATE, which gives DATE")
    assert(specError(
      """{"field_id":"a.b","source_ids":[1],"transform":{"type":"identity"},"result_type":{"type":"date32"}}""")
      .endsWith("field_id must be non-empty text without '.' (Lance column names cannot hold one)"))
  }

  test("transforms are checked against their sources and result types") {
    assert(specError(
      """{"field_id":"y","source_ids":[1],"transform":{"type":"year"},"result_type":{"type":"int64"}}""") ==
      "table cat.ns.t: partition_spec_v1 field 'y': result_type BIGINT is inconsistent with transform 'year' of DATE, which gives INT")
    assert(specError("""{"field_id":"y","source_ids":[2],"transform":{"type":"year"},"result_type":{"type":"int32"}}""")
      .endsWith("transform 'year' does not apply to STRING (it takes date, timestamp or timestamp_ntz)"))
    // a source the schema no longer has (requirement 4): the field's values are NULL of its declared type
    val lost = TableMetadata.fromProperties(
      Map(
        "schema" -> appendixA,
        "partition_spec_v1" ->
          """{"id":1,"fields":[{"field_id":"y","source_ids":[9],"transform":{"type":"bucket","num_buckets":4},"result_type":{"type":"int32"}}]}"""
      ),
      "cat.ns.t"
    ).currentSpec.fields.head
    assert(lost.sources == Seq(None) && lost.valueType == IntegerType && lost.transformValue(IndexedSeq(null)) == null)
    assert(specError(
      """{"field_id":"y","source_ids":[0,2],"transform":{"type":"truncate","width":2},"result_type":{"type":"int64"}}""")
      .endsWith("transform 'truncate' needs exactly one source id, got 2"))
  }

  test("expressions are read when the spec loads: columns, brackets, and what is not one row's value") {
    assert(specError("""{"field_id":"e","source_ids":[2],"expression":"col1 || col0","result_type":{"type":"utf8"}}""")
      .endsWith("col1 has no source (the field has 1 source ids) in expression 'col1 || col0'"))
    assert(specError("""{"field_id":"e","source_ids":[2],"expression":"lower(col0","result_type":{"type":"utf8"}}""")
      .contains("unclosed '(' or '['"))
    assert(specError(
      """{"field_id":"e","source_ids":[1],"expression":"date_part('year', now())","result_type":{"type":"int32"}}""")
      .contains("function 'now' depends on the clock or chance"))
    assert(specError(
      """{"field_id":"e","source_ids":[1],"expression":"row_number() OVER ()","result_type":{"type":"int64"}}""")
      .contains("'OVER' (a partition value comes from one row alone)"))
    assert(specError("""{"field_id":"e","source_ids":[2],"expression":"col0, col0","result_type":{"type":"utf8"}}""")
      .contains("a ',' outside parentheses"))
    val meta = TableMetadata.fromProperties(
      Map(
        "schema" -> appendixA,
        "partition_spec_v1" ->
          """{"id":1,"fields":[{"field_id":"e","source_ids":[7, 0],"expression":"coalesce(col0, col1 % 3)","result_type":{"type":"int64"}}]}"""
      ),
      "t"
    )
    val field = meta.currentSpec.fields.head
    assert(field.sources.map(_.map(_.name)) == Seq(None, Some("id")) && field.valueType == LongType)
  }

  test("bad schemas and missing properties fail with clear errors") {
    def err(props: Map[String, String]) =
      intercept[FormatException](TableMetadata.fromProperties(props, "t")).getMessage
    val spec = """{"id":1,"fields":[]}"""
    assert(err(Map("partition_spec_v1" -> spec)) == "table t: the __manifest metadata has no 'schema' property")
    assert(err(Map(
      "schema" -> "{",
      "partition_spec_v1" -> spec)).startsWith("table t: property 'schema' is not valid JSON"))
    assert(err(Map(
      "schema" -> """{"fields":[{"name":"a","type":{"type":"int32"},"metadata":{"lance:field_id":"x"}}]}""",
      "partition_spec_v1" -> spec)) == "table t: property 'schema', field 'a': lance:field_id 'x' is not a non-negative integer")
    assert(err(Map(
      "schema" -> ("""{"fields":[{"name":"a","type":{"type":"int32"},"metadata":{"lance:field_id":"1"}},""" +
        """{"name":"b","type":{"type":"int32"},"metadata":{"lance:field_id":"1"}}]}"""),
      "partition_spec_v1" -> spec
    )) ==
      "table t: property 'schema': field id 1 is used twice")
    assert(err(Map("schema" -> appendixA, "partition_spec_v1" -> """{"id":2,"fields":[]}""")) ==
      "table t: property 'partition_spec_v1': id 2 does not match the key's version 1")
    assert(err(Map(
      "schema" -> """{"fields":[{"name":"ts","type":{"type":"timestamp"},
      "metadata":{"lance:field_id":"0","lancepart:timezone":"America/New_York"}}]}""",
      "partition_spec_v1" -> spec
    )) ==
      "table t: property 'schema', field 'ts': lancepart:timezone 'America/New_York' is not supported; zoned timestamps are UTC")
  }
}
