// Which source types each transform accepts and the type of its result (spec: Supported Transforms).
package lancepart.transform

import org.apache.spark.sql.types._

object TransformTypes {
  private def isTemporal(dt: DataType) = dt == DateType || dt == TimestampType || dt == TimestampNTZType
  private def isTruncatable(dt: DataType) = dt match {
    case StringType | ByteType | ShortType | IntegerType | LongType | _: DecimalType => true
    case _ => false
  }

  /** The result type of `t` over sources of `types`, or a message saying why it does not apply. */
  def resultType(t: Transform, types: Seq[DataType]): Either[String, DataType] = {
    def one(ok: DataType => Boolean, result: DataType => DataType, accepted: String): Either[String, DataType] =
      types match {
        case Seq(dt) if ok(dt) => Right(result(dt))
        case Seq(dt) => Left(s"transform '${t.kind}' does not apply to ${dt.sql} (it takes $accepted)")
        case _ => Left(s"transform '${t.kind}' needs exactly one source id, got ${types.size}")
      }
    t.kind match {
      case Transform.Identity => one(_ => true, identity, "any type")
      case "year" | "month" | "day" => one(isTemporal, _ => IntegerType, "date, timestamp or timestamp_ntz")
      case "hour" => one(dt => dt == TimestampType || dt == TimestampNTZType, _ => IntegerType, "timestamp or timestamp_ntz")
      case "bucket" => one(BucketHash.supports, _ => IntegerType, "a hashable type")
      case "truncate" => one(isTruncatable, identity, "string, integer or decimal")
      case "multi_bucket" =>
        if (types.isEmpty) Left("transform 'multi_bucket' needs source ids")
        else types.find(!BucketHash.supports(_)).map(dt => Left(s"multi_bucket cannot hash ${dt.sql}"))
          .getOrElse(Right(IntegerType))
    }
  }
}
