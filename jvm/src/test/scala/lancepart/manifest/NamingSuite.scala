// Object ids, generated names and leaf locations.
package lancepart.manifest

import org.scalatest.funsuite.AnyFunSuite

class NamingSuite extends AnyFunSuite {
  test("names are 16 base36 characters, random or derived") {
    val names =
      Seq.fill(200)(Naming.randomName()) ++ Seq.tabulate(200)(i => Naming.derivedName("seed", Seq(i.toString)))
    assert(names.forall(_.matches("[0-9a-z]{16}")))
    assert(names.distinct.size == names.size)
  }

  test("derived names depend on seed and values, nothing else") {
    assert(Naming.derivedName("s", Seq("a", "b")) == Naming.derivedName("s", Seq("a", "b")))
    assert(Naming.derivedName("s", Seq("a", "b")) != Naming.derivedName("t", Seq("a", "b")))
    assert(Naming.derivedName("s", Seq("ab")) != Naming.derivedName("s", Seq("a", "b")))
  }

  test("locations are <8 hex>_<object_id> and spec versions come from object ids") {
    val id = "v12$abcdefghijklmnop$dataset"
    assert(Naming.location(id, "seed").matches("[0-9a-f]{8}_v12\\$abcdefghijklmnop\\$dataset"))
    assert(Naming.location(id, "seed") == Naming.location(id, "seed"), "every task of a write agrees")
    assert(Naming.location(id, "seed") != Naming.location(id, "other"), "another write gets another directory")
    assert(Naming.specVersion(id).contains(12))
    assert(Naming.specVersion("other$x").isEmpty)
    assert(Naming.specVersion("v$x").isEmpty)
  }
}
