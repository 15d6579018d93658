// What lance-core needs once per JVM: its native library loaded safely, one Arrow allocator, and
// a pool that runs calls on separate datasets in parallel. Opening datasets is LanceAccess's.
package lancepart.lance

import java.util.concurrent.{ExecutionException, Executors}

import org.apache.arrow.memory.{BufferAllocator, RootAllocator}
import org.lance.{Dataset, JniLoader, Session, Transaction}
import org.lance.index.DistanceType
import org.lance.operation.Operation

import scala.annotation.tailrec
import scala.util.Try
import scala.util.control.NonFatal

object Lance {

  /** The class lance-core's native dispatcher thread looks up when the library loads. */
  private val DispatcherClass = "org/lance/ipc/AsyncScanner"

  /**
   * Loads lance-core's native library; call before the first use of a lance-core class in a JVM
   * (executors: first thing in a task). Loading starts a native dispatcher thread that looks up
   * [[DispatcherClass]] through the JVM's system class loader. When the plugin jar arrives only
   * through `spark.jars` that loader does not see it: the thread prints a Rust panic and dies with
   * a NoClassDefFoundError, which reaches the JVM's default uncaught-exception handler, and on an
   * executor Spark's handler then exits the JVM. lancepart never uses that scanner, so before
   * loading, the default handler is wrapped to ignore exactly this error and pass on every other.
   */
  def loadNative(): Unit = nativeLoaded

  private lazy val nativeLoaded: Unit = {
    val previous = Thread.getDefaultUncaughtExceptionHandler
    Thread.setDefaultUncaughtExceptionHandler { (thread: Thread, error: Throwable) =>
      if (isDispatcherLookup(error)) {
        System.err.println(s"lancepart: ignoring lance-core's native dispatcher failing to find $DispatcherClass " +
          "(the plugin jar is not on the JVM class path; lancepart does not use that class)")
      } else if (previous != null) previous.uncaughtException(thread, error)
      else { // what the JVM does without a default handler (ThreadGroup would call this one again)
        System.err.print(s"""Exception in thread "${thread.getName}" """)
        error.printStackTrace(System.err)
      }
    }
    JniLoader.ensureLoaded()
  }

  private def isDispatcherLookup(error: Throwable): Boolean = error match {
    case e: NoClassDefFoundError => Option(e.getMessage).exists(_.contains(DispatcherClass))
    case _ => false
  }

  /** Distance names, as Lance's: `l2` is the squared Euclidean distance, `cosine` 1 - cos, `dot`
   * 1 - x·y (vector search and vector indexes). */
  val Distances: Map[String, DistanceType] =
    Map("l2" -> DistanceType.L2, "cosine" -> DistanceType.Cosine, "dot" -> DistanceType.Dot)

  lazy val allocator: BufferAllocator = new RootAllocator(Long.MaxValue)

  /** The Lance session every open in this JVM shares: its object stores and its caches of
   * manifests (keyed by dataset, version and e-tag), file metadata (by file path) and indexes. */
  lazy val session: Session = {
    loadNative()
    Session.builder().metadataCacheSizeBytes(MetadataCacheBytes).indexCacheSizeBytes(IndexCacheBytes).build()
  }
  private val MetadataCacheBytes = 256L << 20
  private val IndexCacheBytes = 1L << 30

  /** Per-dataset calls (opens, small commits) run on this many threads. */
  val Threads = 8

  /** Whether `e` is Lance refusing a commit because another one landed first. */
  def isConflict(e: Throwable): Boolean =
    Iterator.iterate(e)(_.getCause).takeWhile(_ != null).exists { t =>
      val m = String.valueOf(t.getMessage)
      m.contains("concurrent") || m.contains("onflict")
    }

  /** How many times [[replanned]] runs a change. */
  val ReplanAttempts = 20

  /**
   * `change` (planned on the latest version of a dataset's main branch, then committed there), run
   * again while Lance refuses its commit for one that landed first and that it cannot rebase the
   * change over (a Delete of the same fragments, a compaction, a column added: Lance's retryable
   * conflicts), at most `attempts` times.
   */
  @tailrec def replanned[A](change: => A, attempts: Int = ReplanAttempts): A = {
    val outcome =
      try Right(change)
      catch { case NonFatal(e) if attempts > 1 && isConflict(e) => Left(e) }
    outcome match {
      case Right(result) => result
      case Left(_) => replanned(change, attempts - 1)
    }
  }

  /** `f` of every item on up to [[Threads]] threads, results in order; the first failure is thrown. */
  /** The operation of the commit that made `ds`'s version; None when it records no transaction
   * (or one lance-core cannot describe). */
  def operation(ds: Dataset): Option[Operation] = transaction(ds).map(_.operation())

  /** The transaction that made `ds`'s version, when its transaction file is there to read. */
  def transaction(ds: Dataset): Option[Transaction] = Try(Option(ds.readTransaction().orElse(null))).toOption.flatten

  def parallel[A, B](items: Seq[A])(f: A => B): Seq[B] =
    if (items.size <= 1) items.map(f)
    else {
      val pool = Executors.newFixedThreadPool(math.min(Threads, items.size))
      try items.map(item => pool.submit(() => f(item))).map { future =>
          try future.get()
          catch { case e: ExecutionException => throw e.getCause }
        }
      finally pool.shutdownNow()
    }

  def using[A <: AutoCloseable, B](resource: A)(f: A => B): B =
    try f(resource)
    finally resource.close()
}
