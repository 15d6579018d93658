// lancepart's Spark session extension: Iceberg's partition evolution DDL (ALTER TABLE ... ADD /
// DROP / REPLACE PARTITION FIELD) on lancepart's tables, and the vector search function
// lance_vector_search. Spark loads it by itself from the plugin jar on the driver's class path
// (META-INF/services, SparkSessionExtensionsProvider); naming it in spark.sql.extensions as well
// applies it once.
package lancepart.spark

import java.util.{Collections, WeakHashMap}

import lancepart.spark.extensions.PartitionFieldParser
import lancepart.spark.search.{FilterIntoSearch, VectorSearch}
import org.apache.spark.sql.{SparkSessionExtensions, SparkSessionExtensionsProvider}

class LancepartSparkSessionExtensions extends SparkSessionExtensionsProvider {

  override def apply(extensions: SparkSessionExtensions): Unit =
    if (LancepartSparkSessionExtensions.applied.add(extensions)) {
      extensions.injectParser((session, parser) => new PartitionFieldParser(session, parser))
      extensions.injectTableFunction(VectorSearch.description)
      extensions.injectPostHocResolutionRule(_ => FilterIntoSearch)
    }
}

object LancepartSparkSessionExtensions {

  /** The extension sets already given lancepart's parts: from spark.sql.extensions and from the
   * class path, Spark applies both to the same set. */
  private val applied =
    Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap[SparkSessionExtensions, java.lang.Boolean]()))
}
