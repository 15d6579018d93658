// Reading a partition expression's text: source columns, hash calls and rewrites, refusals.
package lancepart.transform

import org.scalatest.funsuite.AnyFunSuite

class PartitionExpressionSuite extends AnyFunSuite {
  private def parse(text: String, sources: Int = 3) = PartitionExpression.parse(text, sources)

  test("columns are colK unquoted in any case or quoted exactly; strings and other names are not") {
    assert(parse("""COL0 + "col2" - 'col1' + col01 + "COL1" + xcol1""").columns == Set(0, 2))
    assert(parse("concat(col1, 'it''s col0')").columns == Set(1))
  }

  test("a missing source becomes NULL, and nothing else changes") {
    assert(
      parse("coalesce(col0, col1 % 3) || 'col0'").withNullColumns(Set(0)).text == "coalesce(NULL, col1 % 3) || 'col0'")
  }

  test("hash calls are found innermost first with their arguments, and replaced") {
    val e = parse("abs(murmur3_multi(col0, lower(col1), MURMUR3(col2))) % 8 + murmur3(col0)")
    assert(e.hashes)
    assert(e.innermostHashCalls.map(c => (c.name, c.args)) ==
      Seq(("murmur3", Seq("col2")), ("murmur3", Seq("col0"))))
    val once = e.replacing(e.innermostHashCalls.zip(Seq("h0", "h1")))
    assert(once.text == "abs(murmur3_multi(col0, lower(col1), h0)) % 8 + h1")
    assert(once.innermostHashCalls.map(c => (c.name, c.args)) == Seq((
      "murmur3_multi",
      Seq("col0", "lower(col1)", "h0"))))
    assert(!parse("'murmur3(col0)' || murmur3").hashes)
    assert(parse("murmur3()").innermostHashCalls.map(_.args) == Seq(Seq.empty))
  }

  test("refused: more columns than sources, unbalanced brackets, several items, comments, clock, chance, windows, subqueries") {
    def refused(text: String) = intercept[ExprSyntaxException](parse(text, 1)).getMessage
    assert(refused("col1") == "col1 has no source (the field has 1 source ids) in expression 'col1'")
    assert(refused("lower(col0))").startsWith("unbalanced ')'"))
    assert(refused("[col0").startsWith("unclosed"))
    assert(refused("col0, col0").startsWith("a ',' outside parentheses"))
    assert(refused("col0; select 1").startsWith("';'"))
    assert(refused("col0 -- x").startsWith("a comment"))
    assert(refused("col0 /* x */").startsWith("a comment"))
    assert(refused("'abc").startsWith("unterminated string"))
    Seq("now()", "random()", "uuid()", "CURRENT_DATE", "current_timestamp()").foreach { f =>
      assert(refused(f).contains("depends on the clock or chance"), f)
    }
    assert(refused("sum(col0) OVER ()").contains("'OVER'"))
    assert(refused("(SELECT max(col0) FROM dataset)").contains("'SELECT'"))
    assert(parse("E'it\\'s' || col0", 1).columns == Set(0))
  }
}
