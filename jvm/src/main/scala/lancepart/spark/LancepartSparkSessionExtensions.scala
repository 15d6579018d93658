// lancepart's Spark session extension: Iceberg's partition evolution DDL (ALTER TABLE ... ADD /
// DROP / REPLACE PARTITION FIELD) on lancepart's tables, the search functions
// lance_vector_search and lance_text_search, the session catalog's listing and name checks, and on
// Spark 3.5 CALL (LineExtensions). Spark loads it by itself from the plugin jar on the driver's class path
// (META-INF/services, SparkSessionExtensionsProvider), and again where spark.sql.extensions names it.
package lancepart.spark

import java.util.{Collections, WeakHashMap}

import lancepart.spark.extensions.{
  ForeignAlterTable, LineExtensions, AlterTableParser, SessionTableNames, ShowSessionTables
}
import lancepart.spark.search.{FilterIntoSearch, SearchConditions, TextSearch, VectorSearch}
import org.apache.spark.sql.{SparkSessionExtensions, SparkSessionExtensionsProvider}

/**
 * Spark applies the class-path copy before the extensions spark.sql.extensions names when a JVM
 * builds the session (SparkSession.builder), after them when pyspark does. Each parser injected
 * wraps those injected before it, so the parser is injected on every application: the last one
 * named after Iceberg's takes these statements before Iceberg's parser does, in either order. The
 * function and the rules are injected once per session; where Iceberg's parser still comes first,
 * [[ForeignAlterTable]] names the fix.
 */
class LancepartSparkSessionExtensions extends SparkSessionExtensionsProvider {

  override def apply(extensions: SparkSessionExtensions): Unit = {
    extensions.injectParser((session, parser) => new AlterTableParser(session, parser))
    if (LancepartSparkSessionExtensions.applied.add(extensions)) {
      extensions.injectTableFunction(VectorSearch.description)
      extensions.injectTableFunction(TextSearch.description)
      extensions.injectPostHocResolutionRule(_ => FilterIntoSearch)
      extensions.injectPlannerStrategy(_ => SearchConditions)
      extensions.injectPlannerStrategy(session => ShowSessionTables(session))
      extensions.injectCheckRule(new ForeignAlterTable(_))
      extensions.injectCheckRule(SessionTableNames)
      LineExtensions.inject(extensions)
    }
  }
}

object LancepartSparkSessionExtensions {

  /** The extension sets already given the function and the rules. */
  private val applied =
    Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap[SparkSessionExtensions, java.lang.Boolean]()))
}
