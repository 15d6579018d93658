// Where plain Lance tables are, as the Directory Namespace spec lays them out (both layouts on, as
// the spec's default): `<name>.lance` dataset directories in a namespace's directory (V1), and
// `table` entries of a directory namespace's `__manifest` (V2; a catalog directory whose
// `__manifest` declares no partition spec is such a namespace root), which take precedence.
package lancepart.spark.plain

import lancepart.lance.{Lance, LanceAccess}
import lancepart.manifest.{ManifestStore, Naming}
import lancepart.prune.LanceSql
import lancepart.spark.Warehouse
import org.apache.arrow.vector.VarCharVector
import org.apache.spark.sql.connector.catalog.Identifier
import org.lance.Transaction
import org.lance.ipc.ScanOptions
import org.lance.operation.{UpdateConfig, UpdateMap}

import scala.collection.mutable
import scala.jdk.CollectionConverters._

class PlainTables(warehouse: Warehouse) {
  import PlainTables._

  /** Where CREATE TABLE puts a new plain table `ident` (V1 naming, in its namespace's directory). */
  def newUri(ident: Identifier): String = {
    Warehouse.checkName(ident.name(), ident.namespace().toSeq :+ ident.name())
    s"${warehouse.uri(ident.namespace().toSeq)}/${ident.name()}$Suffix"
  }

  /** The plain table `ident`: its dataset's URI and the V2 entry naming it, if one does. */
  def find(ident: Identifier): Option[(String, Option[Entry])] = {
    val path = ident.namespace().toSeq
    roots(path).iterator.map { case (dir, below) =>
      entries(dir).find(e => e.isTable && e.objectId == Naming.objectId(below :+ ident.name()))
    }.collectFirst { case Some(e) => e.uri -> Some(e) }
      .orElse(Some(newUri(ident)).filter(isDataset).map(_ -> None))
  }

  /** Names of the plain tables of namespace `path`. */
  def list(path: Seq[String]): Seq[String] = {
    val dir = warehouse.uri(path)
    val listed = roots(path).flatMap { case (root, below) =>
      entries(root).collect { case e if e.isTable && e.parent == below => e.name }
    }
    val v1 = warehouse.children(dir).filter(c => c.endsWith(Suffix) && isDataset(s"$dir/$c")).map(_.stripSuffix(Suffix))
    (listed ++ v1).distinct
  }

  /** Child namespaces of `path` that only a V2 `__manifest` declares (no directory of their own). */
  def namespaces(path: Seq[String]): Seq[String] =
    roots(path).flatMap { case (root, below) =>
      entries(root).collect { case e if !e.isTable && e.parent == below => e.name }
    }.distinct

  /** True when a V2 `__manifest` declares namespace `path`. */
  def declaresNamespace(path: Seq[String]): Boolean =
    path.nonEmpty && namespaces(path.init).contains(path.last)

  /** True when `uri` is a Lance dataset (a plain table's, or a V2 table directory). */
  def isDataset(uri: String): Boolean = warehouse.exists(s"$uri/_versions")

  /** Removes plain table `ident`: its V2 entry, then its dataset. */
  def drop(ident: Identifier): Boolean = find(ident).exists { case (uri, entry) =>
    entry.foreach(e =>
      warehouse.lance.withDataset(s"${e.root}/${ManifestStore.DirName}")(
        _.delete(s"object_id = ${LanceSql.string(e.objectId).get}")))
    warehouse.delete(uri)
  }

  /** Directory namespace roots that may list objects of namespace `path`: each ancestor directory
   * (the catalog root included) holding a `__manifest` that is no partitioned table's, with the
   * part of `path` below it. */
  private def roots(path: Seq[String]): Seq[(String, Seq[String])] =
    (0 to path.size).map(j => warehouse.uri(path.take(j)) -> path.drop(j)).filter { case (dir, _) =>
      warehouse.exists(s"$dir/${ManifestStore.DirName}") && !warehouse.isTable(dir)
    }

  /** The entries of the V2 `__manifest` in directory `root`. */
  private def entries(root: String): Seq[Entry] =
    warehouse.lance.withDataset(s"$root/${ManifestStore.DirName}") { ds =>
      val options = new ScanOptions.Builder().columns(Seq("object_id", "object_type", "location").asJava).build()
      val found = mutable.ArrayBuffer.empty[Entry]
      Lance.using(ds.newScan(options)) { scanner =>
        Lance.using(scanner.scanBatches()) { reader =>
          while (reader.loadNextBatch()) {
            val batch = reader.getVectorSchemaRoot
            def text(name: String, i: Int) = {
              val v = batch.getVector(name).asInstanceOf[VarCharVector]
              if (!v.isNull(i)) Some(new String(v.get(i), java.nio.charset.StandardCharsets.UTF_8)) else None
            }
            for (i <- 0 until batch.getRowCount) {
              (text("object_id", i), text("object_type", i)) match {
                case (Some(id), Some(kind)) if kind == "table" || kind == Naming.NamespaceType =>
                  found += Entry(root, id, kind == "table", text("location", i))
                case _ =>
              }
            }
          }
        }
      }
      found.toSeq
    }
}

object PlainTables {

  /** The directory name suffix of a V1 table. */
  val Suffix = ".lance"

  /** An object of the V2 `__manifest` in directory `root`: `objectId` is its namespace path and
   * name joined by `$`; a table's `location` is relative to `root`. */
  case class Entry(root: String, objectId: String, isTable: Boolean, location: Option[String]) {
    private val parts = objectId.split(java.util.regex.Pattern.quote(Naming.Delimiter), -1).toSeq
    def name: String = parts.last
    def parent: Seq[String] = parts.init
    def uri: String = s"$root/${location.getOrElse(throw new IllegalStateException(
        s"$root/${ManifestStore.DirName}: table '$objectId' has no location"))}"
  }

  /** Sets `config` (the user's table properties) in the Lance config of the dataset at `uri`,
   * removing `removed` first. */
  def setConfig(
      lance: LanceAccess,
      uri: String,
      config: Map[String, String],
      removed: Set[String] = Set.empty,
      atCreate: Boolean = false): Unit =
    if (config.nonEmpty || removed.nonEmpty) {
      val version = lance.withDataset(uri)(_.version())
      // a key mapped to null is removed (lance-core: UpdateMap)
      val updates = removed.map(_ -> (null: String)).toMap ++ config
      val update = new UpdateConfig.Builder()
        .configUpdates(UpdateMap.builder().updates(updates.asJava).replace(false).build()).build()
      val properties =
        if (atCreate) Map(PlainHistory.OperationKey -> PlainHistory.Create) else Map.empty[String, String]
      Lance.using(new Transaction.Builder().readVersion(version).operation(update)
        .transactionProperties(properties.asJava).build())(lance.commit(uri, _))
    }
}
