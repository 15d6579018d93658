// spark.sql.extensions=lancepart.spark.LancepartSparkSessionExtensions: Iceberg's partition
// evolution DDL (ALTER TABLE ... ADD / DROP / REPLACE PARTITION FIELD) on lancepart's tables.
package lancepart.spark

import lancepart.spark.extensions.PartitionFieldParser
import org.apache.spark.sql.SparkSessionExtensions

class LancepartSparkSessionExtensions extends (SparkSessionExtensions => Unit) {

  override def apply(extensions: SparkSessionExtensions): Unit =
    extensions.injectParser((session, parser) => new PartitionFieldParser(session, parser))
}
