// A small client of the Azure Blob service's REST API (java.net.http, no SDK): the listing, put,
// delete, copy and properties calls AzureDirectories needs, authorized by an account key (Shared
// Key), a SAS token or a bearer token, and configured from the storage options Lance's object
// store reads for Azure (the same keys, aliases and AZURE_* environment variables).
package lancepart.storage

import java.net.URI
import java.net.http.{HttpClient, HttpRequest, HttpResponse}
import java.nio.charset.StandardCharsets.UTF_8
import java.time.{Duration, ZoneOffset, ZonedDateTime}
import java.time.format.DateTimeFormatter
import java.util.Base64
import java.util.concurrent.CompletableFuture
import javax.crypto.Mac
import javax.crypto.spec.SecretKeySpec
import javax.xml.parsers.DocumentBuilderFactory

import org.w3c.dom.Element

import scala.annotation.tailrec
import scala.jdk.CollectionConverters._
import scala.util.{Success, Try}

/** A blob as a listing shows it: a folder is a directory marker (metadata `hdi_isfolder=true`, as
 * Hadoop's Azure connectors and accounts with a hierarchical namespace make them). */
case class Blob(name: String, modified: Long, folder: Boolean)

/** One page of blobs and, in a listing by `/`, the prefixes of the "directories" below. */
case class BlobListing(blobs: Seq[Blob], prefixes: Seq[String])

/** How requests are authorized. */
sealed trait AzureCredential
object AzureCredential {
  final case class AccountKey(key: Array[Byte]) extends AzureCredential
  final case class Sas(query: String) extends AzureCredential
  final case class Bearer(token: String) extends AzureCredential
}

/** Blobs of `account` at `service` (`https://<account>.blob.core.windows.net`, or an emulator's
 * `http://host:port/<account>`), listed `pageSize` at a time (the service's most). */
class AzureBlobs(
    val account: String,
    val service: URI,
    val credential: AzureCredential,
    pageSize: Int = AzureBlobs.PageSize) {
  import AzureBlobs._

  private val http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).build()

  /** Every blob under `prefix` of `container` (with `delimited`, only those directly under it,
   * and the prefixes of deeper ones), or the first `max` of them. */
  def list(container: String, prefix: String, delimited: Boolean, max: Option[Int] = None): BlobListing = {
    @tailrec
    def pages(marker: Option[String], blobs: Vector[Blob], prefixes: Vector[String]): BlobListing = {
      val query = Seq("restype" -> "container", "comp" -> "list", "include" -> "metadata", "prefix" -> prefix) ++
        (if (delimited) Seq("delimiter" -> "/") else Nil) ++
        Seq("maxresults" -> max.fold(pageSize)(math.min(_, pageSize)).toString) ++ marker.map("marker" -> _)
      val page = parseListing(send("GET", container, "", query).body())
      val (allBlobs, allPrefixes) = (blobs ++ page.blobs, prefixes ++ page.prefixes)
      page.next match {
        case Some(next) if max.forall(allBlobs.size + allPrefixes.size < _) => pages(Some(next), allBlobs, allPrefixes)
        case _ => BlobListing(allBlobs, allPrefixes)
      }
    }
    pages(None, Vector.empty, Vector.empty)
  }

  /** The blob's metadata and system properties (response headers, names lower case); None when
   * there is no such blob. */
  def properties(container: String, name: String): Option[Map[String, String]] = {
    val response = send("HEAD", container, name, Nil, allowed = Set(NotFound))
    if (response.statusCode() == NotFound) None
    else Some(response.headers().map().asScala.map { case (k, v) => k.toLowerCase -> v.asScala.mkString(",") }.toMap)
  }

  /** Writes an empty blob `name` with `metadata`, replacing any blob of that name. */
  def putEmpty(container: String, name: String, metadata: Map[String, String]): Unit = {
    val headers = Map("x-ms-blob-type" -> "BlockBlob") ++ metadata.map { case (k, v) => s"x-ms-meta-$k" -> v }
    send("PUT", container, name, Nil, headers)
  }

  /** Deletes blob `name`; false when there was none. */
  def delete(container: String, name: String): Boolean =
    send("DELETE", container, name, Nil, allowed = Set(NotFound)).statusCode() != NotFound

  /** Deletes `names` of `container`, up to `Parallel` requests at a time; a request that failed
   * in a way worth retrying is sent again alone, as [[delete]] does. */
  def deleteAll(container: String, names: Seq[String]): Unit = names.grouped(Parallel).foreach { group =>
    val requests = group.map(n => n -> sendAsync(request("DELETE", container, n, Nil, Map.empty)))
    requests.foreach { case (name, response) =>
      Try(response.join()) match {
        case Success(r) if r.statusCode() < 300 || r.statusCode() == NotFound =>
        case Success(r) if !transient(r.statusCode()) => throw failure("DELETE", container, name, r)
        case _ => delete(container, name)
      }
    }
  }

  /** Copies blob `from` to `to` (both in `container`), waiting while the service copies. */
  def copy(container: String, from: String, to: String): Unit = {
    val source = credential match {
      case AzureCredential.Sas(sas) => s"${blobUri(container, from)}?$sas"
      case _ => blobUri(container, from).toString
    }
    @tailrec
    def await(status: Option[String], attempt: Int): Unit = status match {
      case Some("pending") if attempt < CopyChecks =>
        Thread.sleep(math.min(1000L, 10L << math.min(attempt, 6)))
        await(properties(container, to).flatMap(_.get("x-ms-copy-status")), attempt + 1)
      case None | Some("success") =>
      case Some(other) => throw new IllegalStateException(
          s"could not copy ${blobUri(container, from)} to ${blobUri(container, to)}: the copy's status is $other")
    }
    val response = send("PUT", container, to, Nil, Map("x-ms-copy-source" -> source))
    await(Option(response.headers().firstValue("x-ms-copy-status").orElse(null)), 0)
  }

  private def send(
      method: String,
      container: String,
      name: String,
      query: Seq[(String, String)],
      headers: Map[String, String] = Map.empty,
      allowed: Set[Int] = Set.empty): HttpResponse[String] = {
    @tailrec
    def attempt(n: Int): HttpResponse[String] = {
      val outcome =
        try Right(http.send(request(method, container, name, query, headers), HttpResponse.BodyHandlers.ofString()))
        catch { case e: java.io.IOException => Left(e) }
      outcome match {
        case Right(r) if r.statusCode() < 300 || allowed(r.statusCode()) => r
        case Right(r) if !transient(r.statusCode()) || n + 1 >= Attempts => throw failure(method, container, name, r)
        case Left(e) if n + 1 >= Attempts =>
          throw new IllegalStateException(
            s"Azure Blob $method ${blobUri(container, name)} failed after $Attempts attempts: ${e.getMessage}",
            e)
        case _ =>
          Thread.sleep(200L << n)
          attempt(n + 1)
      }
    }
    attempt(0)
  }

  private def sendAsync(request: HttpRequest): CompletableFuture[HttpResponse[String]] =
    http.sendAsync(request, HttpResponse.BodyHandlers.ofString())

  private def request(
      method: String,
      container: String,
      name: String,
      query: Seq[(String, String)],
      headers: Map[String, String]): HttpRequest = {
    val path = blobUri(container, name)
    val sas = credential match {
      case AzureCredential.Sas(s) => Seq(s)
      case _ => Nil
    }
    val queryText = (query.map { case (k, v) => s"${encode(k, keepSlash = false)}=${encode(v, keepSlash = false)}" } ++
      sas).mkString("&")
    val uri = URI.create(if (queryText.isEmpty) path.toString else s"$path?$queryText")
    val all = headers ++ Map(
      "x-ms-date" -> httpDate(ZonedDateTime.now(ZoneOffset.UTC)),
      "x-ms-version" -> ApiVersion)
    val builder = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60))
      .method(method, HttpRequest.BodyPublishers.noBody())
    all.foreach { case (k, v) => builder.header(k, v) }
    credential match {
      case AzureCredential.AccountKey(key) =>
        builder.header("Authorization", s"SharedKey $account:${sign(key, method, uri.getRawPath, query, all)}")
      case AzureCredential.Bearer(token) => builder.header("Authorization", s"Bearer $token")
      case AzureCredential.Sas(_) =>
    }
    builder.build()
  }

  /** The Shared Key signature of a request with no body and no standard headers but `x-ms-*` ones. */
  private def sign(
      key: Array[Byte],
      method: String,
      rawPath: String,
      query: Seq[(String, String)],
      headers: Map[String, String]): String = {
    val canonicalHeaders = headers.toSeq.map { case (k, v) => k.toLowerCase -> v.trim }.filter(_._1.startsWith("x-ms-"))
      .sortBy(_._1).map { case (k, v) => s"$k:$v\n" }.mkString
    val canonicalQuery = query.groupBy(_._1.toLowerCase).toSeq.sortBy(_._1)
      .map { case (k, vs) => s"\n$k:${vs.map(_._2).sorted.mkString(",")}" }.mkString
    // verb, then 11 standard headers (Content-Encoding ... Range), all empty here
    val toSign = s"$method\n${"\n" * 11}$canonicalHeaders/$account$rawPath$canonicalQuery"
    val mac = Mac.getInstance("HmacSHA256")
    mac.init(new SecretKeySpec(key, "HmacSHA256"))
    Base64.getEncoder.encodeToString(mac.doFinal(toSign.getBytes(UTF_8)))
  }

  private def blobUri(container: String, name: String): URI = URI.create(
    s"${service.toString.stripSuffix("/")}/${encode(container, keepSlash = false)}" +
      (if (name.isEmpty) "" else s"/${encode(name, keepSlash = true)}"))

  private def failure(method: String, container: String, name: String, r: HttpResponse[String]) = {
    val code = r.headers().firstValue("x-ms-error-code").orElse("")
    val message = "<Message>(.*?)</Message>".r.findFirstMatchIn(Option(r.body()).getOrElse("")).map(_.group(1))
    new IllegalStateException(
      s"Azure Blob $method ${blobUri(container, name)}: HTTP ${r.statusCode()} $code${message.fold("")(m => s": $m")}")
  }
}

object AzureBlobs {
  private val ApiVersion = "2023-11-03"
  private val NotFound = 404
  private val Attempts = 4
  private val CopyChecks = 60
  private val Parallel = 32
  private val PageSize = 5000
  private val EmulatorAccount = "devstoreaccount1"
  private val EmulatorKey = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

  /** An HTTP date (RFC 7231's IMF-fixdate: a two-digit day, which Azure requires in x-ms-date;
   * java.time's RFC_1123_DATE_TIME writes one digit for days 1 to 9). */
  def httpDate(time: ZonedDateTime): String = HttpDate.format(time.withZoneSameInstant(ZoneOffset.UTC))

  private val HttpDate = DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", java.util.Locale.US)

  private def transient(status: Int): Boolean = status == 408 || status == 429 || status >= 500

  /** A client for `account` (None: from the options) configured as Lance's object store is by
   * `storage` (its Azure keys and their aliases) and the AZURE_* environment variables. */
  def fromOptions(account: Option[String], storage: Map[String, String]): AzureBlobs = {
    def option(keys: String*): Option[String] = keys.flatMap(k =>
      storage.get(k).orElse(if (k.startsWith("azure_")) sys.env.get(k.toUpperCase) else None)).find(_.trim.nonEmpty)
    val emulator = option("azure_storage_use_emulator", "object_store_use_emulator", "use_emulator").exists(_.toBoolean)
    val name = account.orElse(option("azure_storage_account_name", "account_name"))
      .orElse(if (emulator) Some(EmulatorAccount) else None).getOrElse(throw new IllegalArgumentException(
        "Azure storage needs an account: give storage option azure_storage_account_name, or a URI " +
          "abfss://<container>@<account>.dfs.core.windows.net/<path>"))
    val key = option(
      "azure_storage_account_key",
      "azure_storage_access_key",
      "azure_storage_master_key",
      "account_key",
      "access_key",
      "master_key")
    val credential = option("azure_storage_token", "bearer_token", "token").map(AzureCredential.Bearer)
      .orElse(key.map(k => AzureCredential.AccountKey(Base64.getDecoder.decode(k.trim))))
      .orElse(option("azure_storage_sas_key", "azure_storage_sas_token", "sas_key", "sas_token")
        .map(s => AzureCredential.Sas(s.trim.stripPrefix("?"))))
      .orElse(if (emulator) Some(AzureCredential.AccountKey(Base64.getDecoder.decode(EmulatorKey))) else None)
      .getOrElse(throw new IllegalArgumentException(
        "lancepart's own Azure Blob requests (listing, moving and deleting directories) take an account key " +
          "(storage option azure_storage_account_key), a SAS token (azure_storage_sas_token) or a bearer token " +
          "(azure_storage_token); none is set"))
    val service = option("azure_storage_endpoint", "azure_endpoint", "endpoint")
      .orElse(if (emulator) Some(s"${sys.env.getOrElse("AZURITE_BLOB_STORAGE_URL", "http://127.0.0.1:10000")}/$name")
      else None)
      .getOrElse(s"https://$name.blob.core.windows.net")
    new AzureBlobs(name, URI.create(service.stripSuffix("/")), credential)
  }

  /** Percent-encodes `text` but for RFC 3986's unreserved characters (and `/`, with `keepSlash`). */
  private def encode(text: String, keepSlash: Boolean): String =
    text.getBytes(UTF_8).map { b =>
      val c = (b & 0xff).toChar
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "-._~".contains(c) ||
        (keepSlash && c == '/')) c.toString
      else f"%%${b & 0xff}%02X"
    }.mkString

  private case class Page(blobs: Seq[Blob], prefixes: Seq[String], next: Option[String])

  private def parseListing(xml: String): Page = {
    val factory = DocumentBuilderFactory.newInstance()
    factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true)
    val root = factory.newDocumentBuilder().parse(new java.io.ByteArrayInputStream(xml.getBytes(UTF_8)))
      .getDocumentElement
    def children(e: Element, tag: String): Seq[Element] = {
      val nodes = e.getChildNodes
      (0 until nodes.getLength).map(nodes.item).collect {
        case c: Element if c.getTagName == tag => c
      }
    }
    def text(e: Element, tag: String): Option[String] = children(e, tag).headOption.map { c =>
      if (c.getAttribute("Encoded") == "true") java.net.URLDecoder.decode(c.getTextContent, "UTF-8")
      else c.getTextContent
    }
    val entries = children(root, "Blobs").flatMap(b => (0 until b.getChildNodes.getLength).map(b.getChildNodes.item))
    val blobs = entries.collect {
      case e: Element if e.getTagName == "Blob" =>
        val props = children(e, "Properties").head
        val folder = children(e, "Metadata").flatMap(text(_, "hdi_isfolder")).exists(_.equalsIgnoreCase("true")) ||
          text(props, "ResourceType").contains("directory")
        val modified = ZonedDateTime.parse(text(props, "Last-Modified").get, DateTimeFormatter.RFC_1123_DATE_TIME)
        Blob(text(e, "Name").get, modified.toInstant.toEpochMilli, folder)
    }
    val prefixes = entries.collect { case e: Element if e.getTagName == "BlobPrefix" => text(e, "Name").get }
    Page(blobs, prefixes, text(root, "NextMarker").filter(_.nonEmpty))
  }
}
