// spark.sql.extensions=lancepart.spark.LancepartSparkSessionExtensions: Iceberg's partition
// evolution DDL (ALTER TABLE ... ADD / DROP / REPLACE PARTITION FIELD) on lancepart's tables, and
// the vector search function lance_vector_search.
package lancepart.spark

import lancepart.spark.extensions.PartitionFieldParser
import lancepart.spark.search.{FilterIntoSearch, VectorSearch}
import org.apache.spark.sql.SparkSessionExtensions

class LancepartSparkSessionExtensions extends (SparkSessionExtensions => Unit) {

  override def apply(extensions: SparkSessionExtensions): Unit = {
    extensions.injectParser((session, parser) => new PartitionFieldParser(session, parser))
    extensions.injectTableFunction(VectorSearch.description)
    extensions.injectPostHocResolutionRule(_ => FilterIntoSearch)
  }
}
