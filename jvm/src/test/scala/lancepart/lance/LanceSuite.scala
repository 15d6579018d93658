// Loading lance-core's native library: the uncaught-exception guard ignores only the native
// dispatcher's failed class lookup and passes every other error on (printing it once).
package lancepart.lance

import java.io.{ByteArrayOutputStream, PrintStream}

import org.scalatest.funsuite.AnyFunSuite

class LanceSuite extends AnyFunSuite {
  private def stderrOf(body: => Unit): String = {
    val captured = new ByteArrayOutputStream()
    val saved = System.err
    System.setErr(new PrintStream(captured, true))
    try body
    finally System.setErr(saved)
    captured.toString
  }

  private def dieWith(error: Throwable): Unit = {
    val thread = new Thread(() => throw error, "lancepart-test-thread")
    thread.start()
    thread.join()
  }

  test("after loadNative, other uncaught errors still reach a handler, once") {
    Lance.loadNative()
    val text = stderrOf(dieWith(new IllegalStateException("boom")))
    assert(text.contains("java.lang.IllegalStateException: boom"), text)
    assert(!text.contains("StackOverflowError"), text)
  }

  test("the native dispatcher's failed AsyncScanner lookup is reported in one line, not as an error") {
    Lance.loadNative()
    val text = stderrOf(dieWith(new NoClassDefFoundError("org/lance/ipc/AsyncScanner")))
    assert(text.contains("lancepart: ignoring lance-core's native dispatcher"), text)
    assert(!text.contains("NoClassDefFoundError"), text)
  }
}
