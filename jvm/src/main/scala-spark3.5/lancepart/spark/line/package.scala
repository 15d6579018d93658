// Spark 3.5 has no stored procedures and no reducible functions: lancepart's own, under the names the
// shared sources use (on Spark 4 they are Spark's: scala-spark4/lancepart/spark/line). CALL is read
// by CallSyntax and run by ResolveCall's command, as Iceberg's extensions do on Spark 3.5; the
// reducer interfaces are only implemented, since Spark 3.5's storage-partitioned joins need
// partitionings of the same bucket count or calendar level.
package lancepart.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.{CatalogPlugin, Identifier}
import org.apache.spark.sql.connector.read.Scan
import org.apache.spark.sql.types.{DataType, StructType}

package object line {

  /** A catalog that has procedures: `CALL <catalog>.<namespace>.<name>(...)`. */
  trait ProcedureCatalog extends CatalogPlugin {
    def loadProcedure(ident: Identifier): UnboundProcedure
  }

  trait UnboundProcedure {
    def name(): String
    def description(): String
    def bind(inputType: StructType): BoundProcedure
  }

  trait BoundProcedure {
    def name(): String
    def description(): String
    def parameters(): Array[ProcedureParameter]
    def isDeterministic: Boolean

    /** The schema of its result rows (a CALL command declares it before it runs). */
    def outputType: StructType

    /** Runs the procedure on its arguments, one value per parameter in order; its result rows. */
    def call(input: InternalRow): java.util.Iterator[Scan]
  }

  /** An IN parameter; `default` is the SQL expression of its value when a CALL omits it. */
  final case class ProcedureParameter(name: String, dataType: DataType, default: Option[String])

  trait ReducibleFunction[I, O] {
    def reducer(other: ReducibleFunction[_, _]): Reducer[I, O] =
      throw new UnsupportedOperationException(s"$this has no reducer for $other")
    def reducer(thisNumBuckets: Int, other: ReducibleFunction[_, _], otherNumBuckets: Int): Reducer[I, O] =
      throw new UnsupportedOperationException(s"$this has no reducer for $other")
  }

  trait Reducer[I, O] {
    def reduce(arg: I): O
  }

  /** A required IN parameter `name` of type `dataType`. */
  def parameter(name: String, dataType: DataType): ProcedureParameter = ProcedureParameter(name, dataType, None)

  /** An optional IN parameter whose value defaults to SQL expression `default`. */
  def parameter(name: String, dataType: DataType, default: String): ProcedureParameter =
    ProcedureParameter(name, dataType, Some(default))
}
