// The error raised for stored metadata that breaks the partitioning spec.
package lancepart.spec

/** A partitioned namespace whose stored metadata breaks the spec; the message names table and key. */
class FormatException(message: String) extends IllegalArgumentException(message)
