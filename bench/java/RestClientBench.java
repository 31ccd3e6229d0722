import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.view.View;

/**
 * Iceberg Java's own REST client ({@code org.apache.iceberg.rest.RESTCatalog}) timed one call at a
 * time on command, for {@code bench/bench_rest.py}. One warm JVM serves the whole run, so the
 * Python driver can interleave Java's calls with iceview's, round by round.
 *
 * <p>Usage: {@code java RestClientBench <uri> [key=value ...]} (extra catalog properties). Then
 * one command per line on stdin; each answers one line on stdout:
 *
 * <ul>
 *   <li>{@code load <namespace> <view>}: {@code loadView}; answers {@code ok <nanoseconds>};
 *   <li>{@code replace <namespace> <view> <sql...>}: {@code buildView(...).withQuery("spark",
 *       sql).replace()} with the bench's schema (the rest of the line is the SQL); answers {@code
 *       ok <nanoseconds>};
 *   <li>{@code quit}: closes the catalog and exits (so does the end of stdin).
 * </ul>
 *
 * A failed call answers {@code error <exception class>: <message>} on one line and the JVM goes on.
 * The time is {@code System.nanoTime()} around the catalog call alone.
 */
public final class RestClientBench {
  /** The schema bench_rest.py gives iceview: two optional columns, id int and data string. */
  static final Schema SCHEMA =
      new Schema(
          Types.NestedField.optional(1, "id", Types.IntegerType.get()),
          Types.NestedField.optional(2, "data", Types.StringType.get()));

  private RestClientBench() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 1) {
      System.err.println("usage: RestClientBench <uri> [key=value ...]");
      System.exit(2);
    }
    Map<String, String> props = new HashMap<>();
    props.put("uri", args[0]);
    for (int i = 1; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      if (eq <= 0) {
        System.err.println("not a key=value property: " + args[i]);
        System.exit(2);
      }
      props.put(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    try (RESTCatalog catalog = new RESTCatalog()) {
      catalog.setConf(new org.apache.hadoop.conf.Configuration());
      catalog.initialize("bench", props);
      out.println("READY");
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      String line;
      while ((line = in.readLine()) != null) {
        if (line.isBlank()) {
          continue;
        }
        if (line.equals("quit")) {
          break;
        }
        try {
          out.println("ok " + run(catalog, line));
        } catch (Exception e) {
          String message = String.valueOf(e.getMessage()).replace('\n', ' ');
          out.println("error " + e.getClass().getName() + ": " + message);
        }
      }
    }
  }

  /** Runs one command; returns the nanoseconds the catalog call took. */
  private static long run(RESTCatalog catalog, String line) {
    String[] parts = line.split(" ", 4);
    if (parts.length < 3) {
      throw new IllegalArgumentException("expected '<command> <namespace> <view> ...': " + line);
    }
    Namespace namespace = Namespace.of(parts[1].split("\\."));
    TableIdentifier ident = TableIdentifier.of(namespace, parts[2]);
    switch (parts[0]) {
      case "load":
        {
          long start = System.nanoTime();
          View view = catalog.loadView(ident);
          long elapsed = System.nanoTime() - start;
          if (view.currentVersion() == null) {
            throw new IllegalStateException("loaded view without a current version: " + ident);
          }
          return elapsed;
        }
      case "replace":
        {
          if (parts.length < 4) {
            throw new IllegalArgumentException("replace needs the SQL: " + line);
          }
          long start = System.nanoTime();
          catalog
              .buildView(ident)
              .withSchema(SCHEMA)
              .withDefaultNamespace(namespace)
              .withQuery("spark", parts[3])
              .replace();
          return System.nanoTime() - start;
        }
      default:
        throw new IllegalArgumentException("unknown command: " + parts[0]);
    }
  }
}
