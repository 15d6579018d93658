// Spark keeps its name resolution (LookupCatalog) package-private; this bridge resolves a
// multipart table name to the catalog and identifier Spark's own commands would use.
package org.apache.spark.sql.lancepart

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.catalog.{CatalogManager, CatalogPlugin, Identifier, LookupCatalog}

object CatalogLookup {

  /** The catalog `nameParts` names by its first part, else the session's current catalog (with
   * the current namespace for a one-part name), and the identifier in it. */
  def apply(session: SparkSession, nameParts: Seq[String]): (CatalogPlugin, Identifier) = {
    val lookup = new LookupCatalog {
      override protected val catalogManager: CatalogManager = session.sessionState.catalogManager
    }
    nameParts match {
      case lookup.CatalogAndIdentifier(catalog, ident) => (catalog, ident)
    }
  }
}
