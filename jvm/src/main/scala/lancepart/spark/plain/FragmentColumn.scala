// The metadata column `_fragment` of a plain Lance table: which Lance fragment a row is read from.
package lancepart.spark.plain

import lancepart.spark.read.LeafMetadataColumn
import org.apache.spark.sql.types.StringType

/** A row's fragment id, as text (`SELECT _fragment, * FROM t`). Copy-on-write DELETE, UPDATE and
 * MERGE INTO read it to learn which fragments hold the rows they change. */
object FragmentColumn extends LeafMetadataColumn("_fragment", StringType, "id of the Lance fragment holding the row")
