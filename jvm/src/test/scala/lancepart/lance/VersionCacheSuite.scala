// The per-JVM cache of what versions hold: bounded by weight, least recently asked out first.
package lancepart.lance

import org.scalatest.funsuite.AnyFunSuite

class VersionCacheSuite extends AnyFunSuite {
  test(
    "keeps at most its capacity in weight, dropping the least recently asked; a value heavier than that is not kept") {
    val cache = new VersionCache[String, Seq[Int]](5, (_, v) => v.size)
    cache.put("a", Seq(1, 2))
    cache.put("b", Seq.empty) // weighs 1, as an empty value does
    cache.put("c", Seq(1, 2))
    assert(cache.kept == 5)
    assert(cache.get("a").contains(Seq(1, 2))) // now asked after b and c
    cache.put("d", Seq(1))
    assert(cache.get("b").isEmpty && cache.get("c").contains(Seq(1, 2)) && cache.kept == 5)
    cache.put("c", Seq(1, 2, 3)) // replaced: its old weight leaves
    assert(cache.get("a").isEmpty && cache.get("d").contains(Seq(1)) && cache.kept == 4)
    cache.put("e", Seq(1, 2, 3, 4, 5, 6))
    assert(cache.get("e").isEmpty && cache.kept == 4)
  }
}
