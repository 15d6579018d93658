// Version manifest names in both of Lance's naming schemes, and the names that are no versions.
package lancepart.lance

import org.scalatest.funsuite.AnyFunSuite

class LeafFilesSuite extends AnyFunSuite {

  test("the latest main-branch version among V1 and V2 manifest names; other files are no versions") {
    // V2: 2^64 - 1 - version in 20 digits (version 1 is 18446744073709551614)
    assert(LeafFiles.latestMainVersion(Seq("18446744073709551614.manifest", "18446744073709551612.manifest")) ==
      Some(3L))
    assert(LeafFiles.latestMainVersion(Seq("1.manifest", "2.manifest", "10.manifest")) == Some(10L))
    assert(LeafFiles.latestMainVersion(Seq("3.manifest", "18446744073709551610.manifest")) == Some(5L))
    val others = Seq("d9223372036854775817.manifest", "latest_version_hint.json", "7.manifest.tmp", "_latest.manifest")
    assert(LeafFiles.latestMainVersion(others :+ "18446744073709551613.manifest") == Some(2L))
    assert(LeafFiles.latestMainVersion(others).isEmpty)
  }
}
