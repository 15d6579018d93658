// Directory operations on S3 and S3-compatible stores. S3 has no directories: a directory is the
// key prefix `<path>/`, it exists while any object lies under it, and creating one writes an
// empty marker object `<path>/` (as the AWS console and Hadoop's S3A do), so that an empty Spark
// namespace is listed. The client takes the same storage options Lance's object store reads.
package lancepart.storage

import lancepart.lance.LanceAccess

import java.net.URI

import software.amazon.awssdk.auth.credentials.{
  AwsBasicCredentials, AwsSessionCredentials, DefaultCredentialsProvider, StaticCredentialsProvider
}
import software.amazon.awssdk.core.checksums.{RequestChecksumCalculation, ResponseChecksumValidation}
import software.amazon.awssdk.core.sync.RequestBody
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient
import software.amazon.awssdk.regions.Region
import software.amazon.awssdk.services.s3.S3Client
import software.amazon.awssdk.services.s3.model.{
  CopyObjectRequest, Delete, DeleteObjectRequest, DeleteObjectsRequest, ListObjectsV2Request, ObjectIdentifier,
  PutObjectRequest, S3Object
}

import scala.jdk.CollectionConverters._

class S3Directories(client: S3Client) extends Directories {
  override def exists(uri: String): Boolean = {
    val (bucket, key) = S3Directories.split(uri)
    client.listObjectsV2(
      ListObjectsV2Request.builder().bucket(bucket).prefix(S3Directories.prefix(key)).maxKeys(1).build())
      .keyCount() > 0
  }

  override def childDirectories(uri: String): Seq[String] = {
    val (bucket, key) = S3Directories.split(uri)
    val prefix = S3Directories.prefix(key)
    listing(bucket, prefix, delimited = true).flatMap(_.commonPrefixes().asScala)
      .map(_.prefix().stripPrefix(prefix).stripSuffix("/")).toSeq.sorted
  }

  override def files(uri: String): Seq[StoredFile] = {
    val (bucket, key) = S3Directories.split(uri)
    val prefix = S3Directories.prefix(key)
    objects(bucket, prefix, delimited = true).filter(_.key() != prefix)
      .map(o => StoredFile(o.key().stripPrefix(prefix), o.lastModified().toEpochMilli))
  }

  override def lastModified(uri: String): Long = {
    val (bucket, key) = S3Directories.split(uri)
    objects(bucket, S3Directories.prefix(key), delimited = false).map(_.lastModified().toEpochMilli)
      .reduceOption(_ max _).getOrElse(throw new IllegalArgumentException(s"$uri does not exist"))
  }

  override def mkdirs(uri: String): Unit = {
    val (bucket, key) = S3Directories.split(uri)
    client.putObject(
      PutObjectRequest.builder().bucket(bucket).key(S3Directories.prefix(key)).build(),
      RequestBody.empty())
  }

  override def delete(uri: String): Boolean = {
    val (bucket, key) = S3Directories.split(uri)
    val keys = objects(bucket, S3Directories.prefix(key), delimited = false).map(_.key())
    keys.grouped(S3Directories.DeleteBatch).foreach { batch =>
      val ids = batch.map(k => ObjectIdentifier.builder().key(k).build()).asJava
      val result = client.deleteObjects(DeleteObjectsRequest.builder().bucket(bucket)
        .delete(Delete.builder().objects(ids).quiet(true).build()).build())
      result.errors().asScala.headOption.foreach { e =>
        throw new IllegalStateException(s"could not delete s3://$bucket/${e.key()}: ${e.code()} ${e.message()}")
      }
    }
    keys.nonEmpty
  }

  override def deleteFile(uri: String): Unit = {
    val (bucket, key) = S3Directories.split(uri)
    client.deleteObject(DeleteObjectRequest.builder().bucket(bucket).key(key).build())
  }

  override def move(from: String, to: String): Unit = {
    val (fromBucket, fromKey) = S3Directories.split(from)
    val (toBucket, toKey) = S3Directories.split(to)
    client.copyObject(CopyObjectRequest.builder().sourceBucket(fromBucket).sourceKey(fromKey)
      .destinationBucket(toBucket).destinationKey(toKey).build())
    deleteFile(from)
  }

  override def transferDirectory(from: String, to: String): Boolean = {
    if (exists(to)) throw new IllegalStateException(s"could not copy $from to $to: $to already exists")
    val (fromBucket, fromKey) = S3Directories.split(from)
    val (toBucket, toKey) = S3Directories.split(to)
    val (source, target) = (S3Directories.prefix(fromKey), S3Directories.prefix(toKey))
    objects(fromBucket, source, delimited = false).foreach { o =>
      client.copyObject(CopyObjectRequest.builder().sourceBucket(fromBucket).sourceKey(o.key())
        .destinationBucket(toBucket).destinationKey(target + o.key().stripPrefix(source)).build())
    }
    false
  }

  private def listing(bucket: String, prefix: String, delimited: Boolean) = {
    val request = ListObjectsV2Request.builder().bucket(bucket).prefix(prefix)
    if (delimited) request.delimiter("/")
    client.listObjectsV2Paginator(request.build()).asScala
  }

  private def objects(bucket: String, prefix: String, delimited: Boolean): Seq[S3Object] =
    listing(bucket, prefix, delimited).flatMap(_.contents().asScala).toSeq
}

object S3Directories {
  private val Scheme = "s3://"
  private val DeleteBatch = 1000

  def handles(uri: String): Boolean = uri.startsWith(Scheme)

  /** (bucket, key) of `s3://bucket/key`; the key has no trailing '/'. */
  def split(uri: String): (String, String) = {
    require(handles(uri), s"not an s3:// URI: $uri")
    val rest = uri.stripPrefix(Scheme)
    val slash = rest.indexOf('/')
    if (slash < 0) (rest, "") else (rest.take(slash), rest.drop(slash + 1).stripSuffix("/"))
  }

  private def prefix(key: String): String = if (key.isEmpty) "" else s"$key/"

  /** A client from Lance storage options (the keys and aliases of Lance's object store), falling
   * back to the AWS SDK's defaults (environment, profile) for credentials and to the
   * AWS_REGION / AWS_DEFAULT_REGION variables, then us-east-1, for the region. */
  def client(lance: LanceAccess): S3Client = {
    val storage = lance.storageOptions
    def option(keys: String*): Option[String] = keys.flatMap(k => storage.get(k)).headOption.filter(_.nonEmpty)
    val endpoint = option("aws_endpoint", "aws_endpoint_url", "endpoint", "endpoint_url")
    val virtualHosted = option("aws_virtual_hosted_style_request", "virtual_hosted_style_request").exists(_.toBoolean)
    val region =
      option("aws_region", "region").orElse(sys.env.get("AWS_REGION")).orElse(sys.env.get("AWS_DEFAULT_REGION"))
        .getOrElse("us-east-1")
    val credentials = (
      option("aws_access_key_id", "access_key_id"),
      option("aws_secret_access_key", "secret_access_key"),
      option("aws_session_token", "aws_token", "session_token", "token")) match {
      case (Some(id), Some(secret), Some(token)) =>
        StaticCredentialsProvider.create(AwsSessionCredentials.create(id, secret, token))
      case (Some(id), Some(secret), None) => StaticCredentialsProvider.create(AwsBasicCredentials.create(id, secret))
      case _ => DefaultCredentialsProvider.builder().build()
    }
    val builder = S3Client.builder().httpClientBuilder(UrlConnectionHttpClient.builder())
      .region(Region.of(region)).credentialsProvider(credentials)
      .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
      .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
    endpoint.foreach(e => builder.endpointOverride(URI.create(e)).forcePathStyle(!virtualHosted))
    builder.build()
  }
}
