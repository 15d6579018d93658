// How Azure URIs and storage options resolve to a container, a key, an account, a blob service
// and credentials (the requests themselves run against Azurite in
// integration-tests/test_object_store.py).
package lancepart.storage

import java.net.URI
import java.util.Base64

import org.scalatest.funsuite.AnyFunSuite

class AzureDirectoriesSuite extends AnyFunSuite {
  private val key = Base64.getEncoder.encodeToString("secret".getBytes)

  test("every URI form Lance's object store takes splits into container and key") {
    for (scheme <- Seq("az", "azure", "abfs", "abfss", "adl"))
      assert(AzureDirectories.split(s"$scheme://box/ware/house/") == ("box", "ware/house"))
    assert(AzureDirectories.split("az://box") == ("box", ""))
    assert(AzureDirectories.split("abfss://box@acct.dfs.core.windows.net/w/t") == ("box", "w/t"))
    assert(AzureDirectories.account("abfss://box@acct.dfs.core.windows.net/w") == Some("acct"))
    assert(AzureDirectories.account("az://box@acct.blob.core.windows.net/w") == Some("acct"))
    assert(AzureDirectories.account("az://box/w").isEmpty)
    assert(!AzureDirectories.handles("s3://box/w") && !AzureDirectories.handles("/tmp/w"))
    val wrongHost = intercept[IllegalArgumentException](AzureDirectories.account("abfss://box@acct.example.com/w"))
    assert(wrongHost.getMessage.contains("<account>.dfs.core.windows.net"))
    assert(intercept[IllegalArgumentException](AzureDirectories.split("az:///w")).getMessage.contains("no container"))
  }

  test("the account and blob service come from the URI, the options or the emulator's defaults") {
    val fromUri = AzureBlobs.fromOptions(Some("acct"), Map("account_name" -> "other", "account_key" -> key))
    assert(fromUri.account == "acct" && fromUri.service == URI.create("https://acct.blob.core.windows.net"))
    val endpoint = AzureBlobs.fromOptions(
      None,
      Map(
        "azure_storage_account_name" -> "dev",
        "azure_storage_endpoint" -> "http://127.0.0.1:9/dev/",
        "access_key" -> key))
    assert(endpoint.account == "dev" && endpoint.service == URI.create("http://127.0.0.1:9/dev"))
    val emulator = AzureBlobs.fromOptions(None, Map("use_emulator" -> "true"))
    assert(emulator.account == "devstoreaccount1")
    assert(
      emulator.service == URI.create(s"${sys.env.getOrElse("AZURITE_BLOB_STORAGE_URL", "http://127.0.0.1:10000")}" +
        "/devstoreaccount1"))
    assert(emulator.credential.isInstanceOf[AzureCredential.AccountKey])
    val noAccount = intercept[IllegalArgumentException](AzureBlobs.fromOptions(None, Map("account_key" -> key)))
    assert(noAccount.getMessage.contains("azure_storage_account_name"))
  }

  test("a bearer token wins over an account key, which wins over a SAS token, as in Lance") {
    def credential(options: (String, String)*) = AzureBlobs.fromOptions(Some("acct"), options.toMap).credential
    assert(credential("token" -> "t", "account_key" -> key, "sas_token" -> "sv=1") == AzureCredential.Bearer("t"))
    assert(credential("account_key" -> key, "sas_token" -> "sv=1").isInstanceOf[AzureCredential.AccountKey])
    assert(credential("azure_storage_sas_token" -> "?sv=1&sig=a%2Bb") == AzureCredential.Sas("sv=1&sig=a%2Bb"))
    val none = intercept[IllegalArgumentException](credential("azure_client_id" -> "id"))
    assert(none.getMessage.contains("azure_storage_account_key") && none.getMessage.contains("azure_storage_sas_token"))
  }

  test("request dates have a two-digit day, as Azure requires") {
    val time = java.time.ZonedDateTime.of(2026, 12, 1, 8, 5, 9, 0, java.time.ZoneOffset.UTC)
    assert(AzureBlobs.httpDate(time) == "Tue, 01 Dec 2026 08:05:09 GMT")
  }
}
