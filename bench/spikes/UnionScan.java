// What reading many small partition tables costs lance-core 7.0.0 outside Spark, one scanner per
// table ("each") against one scanner per group of tables ("union": a temporary dataset whose base
// paths are the tables' directories and whose fragments are theirs, as lancepart.lance.LeafUnion
// builds), on THREADS threads sharing one Session; four rounds, each printing the wall time per
// table and (union) the thread-summed time spent opening the tables, committing the unions and
// scanning them. TABLES is a table directory of partition tables (a bench/scans.py --root run's
// lance/bench/events_10000). Run from the repository root after `make jar`:
//   CP="$(ls target/lancepart-spark-4.1_2.13-*.jar):.venv/lib/python3.11/site-packages/pyspark/jars/*"
//   javac -d target/spikes -cp "$CP" bench/spikes/UnionScan.java
//   java --add-opens=java.base/java.nio=ALL-UNNAMED -cp "$CP:target/spikes" UnionScan TABLES THREADS each|union \
//     country,amount LIMIT GROUP
import org.lance.*;
import org.lance.ipc.*;
import org.lance.fragment.*;
import org.lance.operation.Append;
import org.apache.arrow.memory.*;
import org.apache.arrow.vector.ipc.ArrowReader;
import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.*;
import java.io.File;
import java.nio.file.*;

public class UnionScan {
  static BufferAllocator a = new RootAllocator();
  static Session session = Session.create();
  static AtomicInteger seq = new AtomicInteger();
  static AtomicLong tOpen = new AtomicLong(), tCommit = new AtomicLong(), tScan = new AtomicLong();

  static long scanGroup(List<String> uris, List<String> cols, boolean union) throws Exception {
    long rows = 0;
    if (!union) {
      for (String u : uris) try (Dataset ds = Dataset.open().allocator(a).uri(u).session(session).build();
           LanceScanner s = ds.newScan(new ScanOptions.Builder().batchSize(8192).columns(cols).build());
           ArrowReader r = s.scanBatches()) {
        while (r.loadNextBatch()) rows += r.getVectorSchemaRoot().getRowCount();
      }
      return rows;
    }
    List<BasePath> bases = new ArrayList<>();
    List<FragmentMetadata> frags = new ArrayList<>();
    org.apache.arrow.vector.types.pojo.Schema schema = null;
    int fid = 0;
    long p0 = System.nanoTime();
    for (int i = 0; i < uris.size(); i++) {
      try (Dataset ds = Dataset.open().allocator(a).uri(uris.get(i)).session(session).build()) {
        if (schema == null) schema = ds.getSchema();
        bases.add(new BasePath(i + 1, Optional.empty(), uris.get(i), true));
        for (Fragment f : ds.getFragments()) {
          FragmentMetadata m = f.metadata();
          List<DataFile> files = new ArrayList<>();
          for (DataFile d : m.getFiles())
            files.add(new DataFile(d.getPath(), d.getFields(), d.getColumnIndices(), d.getFileMajorVersion(), d.getFileMinorVersion(), d.getFileSizeBytes(), i + 1));
          DeletionFile del = m.getDeletionFile();
          if (del != null) del = new DeletionFile(del.getId(), del.getReadVersion(), del.getNumDeletedRows(), del.getFileType(), i + 1);
          frags.add(new FragmentMetadata(fid++, files, m.getPhysicalRows(), del, null));
        }
      }
    }
    long p1 = System.nanoTime(); tOpen.addAndGet(p1 - p0);
    String tmp = System.getProperty("java.io.tmpdir") + "/union-scan-" + ProcessHandle.current().pid() + "/u" + seq.incrementAndGet();
    try (Dataset empty = Dataset.write().allocator(a).schema(schema).uri(tmp).mode(WriteParams.WriteMode.CREATE)
           .initialBases(bases).session(session).execute();
         Transaction txn = new Transaction.Builder().readVersion(empty.version()).operation(Append.builder().fragments(frags).build()).build();
         Dataset ds = new CommitBuilder(empty).execute(txn)) {
      long p2 = System.nanoTime(); tCommit.addAndGet(p2 - p1);
      try (LanceScanner s = ds.newScan(new ScanOptions.Builder().batchSize(8192).columns(cols).build());
         ArrowReader r = s.scanBatches()) {
      while (r.loadNextBatch()) rows += r.getVectorSchemaRoot().getRowCount();
    }
      tScan.addAndGet(System.nanoTime() - p2);
    }
    try (var paths = Files.walk(Paths.get(tmp))) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
    return rows;
  }

  public static void main(String[] args) throws Exception {
    String root = args[0]; int threads = Integer.parseInt(args[1]); boolean union = args[2].equals("union");
    List<String> cols = Arrays.asList(args[3].split(","));
    int limit = Integer.parseInt(args[4]); int group = Integer.parseInt(args[5]);
    List<String> uris = new ArrayList<>();
    for (File f : new File(root).listFiles()) if (f.getName().endsWith("$dataset")) uris.add(f.getPath());
    Collections.sort(uris);
    uris = uris.subList(0, Math.min(limit, uris.size()));
    List<List<String>> groups = new ArrayList<>();
    for (int i = 0; i < uris.size(); i += group) groups.add(uris.subList(i, Math.min(uris.size(), i + group)));
    ExecutorService ex = Executors.newFixedThreadPool(threads);
    for (int round = 0; round < 4; round++) {
      AtomicLong rows = new AtomicLong(); AtomicInteger next = new AtomicInteger();
      long t0 = System.nanoTime();
      List<Future<?>> fs = new ArrayList<>();
      for (int t = 0; t < threads; t++) fs.add(ex.submit(() -> {
        int i;
        while ((i = next.getAndIncrement()) < groups.size()) rows.addAndGet(scanGroup(groups.get(i), cols, union));
        return null;
      }));
      for (Future<?> f : fs) f.get();
      long t1 = System.nanoTime();
      System.out.printf("open %.0f commit %.0f scan %.0f ms (thread-summed) ", tOpen.getAndSet(0)/1e6, tCommit.getAndSet(0)/1e6, tScan.getAndSet(0)/1e6);
      System.out.printf("round %d %s threads %d group %d: %.1f ms, %.3f ms/table wall, %d rows%n", round, args[2], threads, group, (t1 - t0) / 1e6, (t1 - t0) / 1e6 / uris.size(), rows.get());
    }
    ex.shutdown();
    System.exit(0); // lance-core's native threads would keep the JVM up
  }
}
