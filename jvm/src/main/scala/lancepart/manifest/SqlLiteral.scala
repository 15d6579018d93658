// Lance SQL string literals, shared by the __manifest queries and the filters `prune` renders.
package lancepart.manifest

object SqlLiteral {

  /** `s` as a Lance SQL string literal (quotes doubled). */
  def quote(s: String): String = "'" + s.replace("'", "''") + "'"
}
