// What a partition table costs lance-core 7.0.0 to open and to read, outside Spark: for N small
// datasets (bench/spikes/make_datasets.py), six rounds on one thread with one shared Session of
// (a) open + scan + close each, (b) open all, (c) scan each opened one, (d) read each opened one's
// data files with LanceFileReader. Run from the repository root after `make jar`:
//   python bench/spikes/make_datasets.py /tmp/lance-open-scan 1000 1000
//   CP="$(ls target/lancepart-spark-4.1_2.13-*.jar):.venv/lib/python3.11/site-packages/pyspark/jars/*"
//   javac -d target/spikes -cp "$CP" bench/spikes/LanceOpenScan.java
//   java --add-opens=java.base/java.nio=ALL-UNNAMED -cp "$CP:target/spikes" LanceOpenScan /tmp/lance-open-scan 1000
import org.lance.*;
import org.lance.ipc.*;
import org.apache.arrow.memory.*;
import org.apache.arrow.vector.ipc.ArrowReader;
import java.util.*;

public class LanceOpenScan {
  static long readAll(Dataset ds, BufferAllocator a) throws Exception {
    long rows = 0;
    try (LanceScanner s = ds.newScan(new ScanOptions.Builder().batchSize(8192).build());
         ArrowReader r = s.scanBatches()) {
      while (r.loadNextBatch()) rows += r.getVectorSchemaRoot().getRowCount();
    }
    return rows;
  }
  public static void main(String[] args) throws Exception {
    String root = args[0];
    int n = Integer.parseInt(args[1]);
    BufferAllocator a = new RootAllocator();
    Session session = Session.create();
    List<String> uris = new ArrayList<>();
    for (int i = 0; i < n; i++) uris.add(root + "/p" + i + ".lance");
    for (int round = 0; round < 6; round++) {
      long t0 = System.nanoTime(), rows = 0;
      for (String u : uris) {
        try (Dataset ds = Dataset.open().allocator(a).uri(u).readOptions(new ReadOptions.Builder().setVersion(1).build()).session(session).build()) {
          rows += readAll(ds, a);
        }
      }
      long t1 = System.nanoTime();
      long openOnly0 = System.nanoTime();
      List<Dataset> open = new ArrayList<>();
      for (String u : uris) open.add(Dataset.open().allocator(a).uri(u).readOptions(new ReadOptions.Builder().setVersion(1).build()).session(session).build());
      long openOnly1 = System.nanoTime();
      long t2 = System.nanoTime(); long rows2 = 0;
      for (Dataset ds : open) rows2 += readAll(ds, a);
      long t3 = System.nanoTime();
      long t4 = System.nanoTime(); long rows3 = 0;
      for (int i = 0; i < open.size(); i++) {
        Dataset ds = open.get(i);
        for (FragmentMetadata fm : ds.getFragments().stream().map(Fragment::metadata).toList()) {
          for (org.lance.fragment.DataFile df : fm.getFiles()) {
            try (org.lance.file.LanceFileReader fr = org.lance.file.LanceFileReader.open(uris.get(i) + "/data/" + df.getPath(), a);
                 ArrowReader r = fr.readAll(null, null, 8192)) {
              while (r.loadNextBatch()) rows3 += r.getVectorSchemaRoot().getRowCount();
            }
          }
        }
      }
      long t5 = System.nanoTime();
      System.out.printf("   file reader of opened datasets' files %.1f ms (%d rows)%n", (t5 - t4) / 1e6, rows3);
      for (Dataset ds : open) ds.close();
      System.out.printf("round %d: open+scan %.1f ms (%d rows); open only %.1f ms; scan of opened %.1f ms (%d rows)%n",
        round, (t1 - t0) / 1e6, rows, (openOnly1 - openOnly0) / 1e6, (t3 - t2) / 1e6, rows2);
    }
  }
}
