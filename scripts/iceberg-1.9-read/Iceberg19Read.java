// Reads one table with Apache Iceberg 1.9.0's own Java library: the managed feature's tables keep to the Iceberg
// spec that 1.9.0 reads (SPEC S7), and the service writes them with a newer Iceberg. Run by
// scripts/iceberg-1.9-read.sh (which installs the jars) as
//   java -cp 'libs/*' Iceberg19Read.java REST_CATALOG_URI NAMESPACE TABLE
// Env: S3_ENDPOINT (default http://127.0.0.1:4570), AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (default test/test).
// Prints "format-version N", then "snapshot ID" for each snapshot in the table's order, then "row JSON" for each
// row: objects with their keys sorted, timestamps as UTC instants, the lines sorted, for a test to compare.

import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.OffsetDateTime;
import java.time.temporal.Temporal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

public class Iceberg19Read {
  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: REST_CATALOG_URI NAMESPACE TABLE");
      System.exit(2);
    }
    Catalog catalog = CatalogUtil.buildIcebergCatalog("delivered", Map.of(
        "type", "rest",
        "uri", args[0],
        "io-impl", "org.apache.iceberg.aws.s3.S3FileIO",
        "http-client.type", "urlconnection",
        "s3.endpoint", env("S3_ENDPOINT", "http://127.0.0.1:4570"),
        "s3.path-style-access", "true",
        "s3.access-key-id", env("AWS_ACCESS_KEY_ID", "test"),
        "s3.secret-access-key", env("AWS_SECRET_ACCESS_KEY", "test"),
        "client.region", "us-east-1"), null);
    Table table = catalog.loadTable(TableIdentifier.of(args[1], args[2]));

    System.out.println("format-version " + ((HasTableOperations) table).operations().current().formatVersion());
    for (Snapshot snapshot : table.snapshots()) {
      System.out.println("snapshot " + snapshot.snapshotId());
    }
    ObjectMapper json = new ObjectMapper();
    List<String> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record record : records) {
        rows.add(json.writeValueAsString(plain(record)));
      }
    }
    Collections.sort(rows);
    rows.forEach(row -> System.out.println("row " + row));
  }

  /** Iceberg's generic value as one Jackson writes the same way whatever the library: no java.time types. */
  static Object plain(Object value) {
    if (value instanceof Record record) {
      Map<String, Object> object = new TreeMap<>();
      for (Types.NestedField field : record.struct().fields()) {
        object.put(field.name(), plain(record.getField(field.name())));
      }
      return object;
    }
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> object = new TreeMap<>();
      map.forEach((k, v) -> object.put(String.valueOf(k), plain(v)));
      return object;
    }
    if (value instanceof List<?> list) {
      return list.stream().map(Iceberg19Read::plain).toList();
    }
    if (value instanceof OffsetDateTime time) {
      return time.toInstant().toString();
    }
    return value instanceof Temporal ? value.toString() : value;
  }

  static String env(String name, String dflt) {
    String v = System.getenv(name);
    return v == null || v.isEmpty() ? dflt : v;
  }
}
