// Reads one Iceberg table with Apache Spark (local mode) + Iceberg's Spark runtime: an engine nobody here wrote.
// Run by scripts/foreign-read.sh (which installs the jars and passes the JVM flags Spark needs on Java 17) as
//   java -cp 'libs/*' ForeignRead.java (--rest URI | --jdbc URI --warehouse S3URI) NAMESPACE TABLE
// Env: S3_ENDPOINT (default http://127.0.0.1:4570), AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (default test/test).
// Prints the row count, up to 5 rows, the snapshots, and last the line "rows: N".

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.appender.ConsoleAppender;
import org.apache.logging.log4j.core.config.Configurator;
import org.apache.logging.log4j.core.config.builder.api.ConfigurationBuilder;
import org.apache.logging.log4j.core.config.builder.api.ConfigurationBuilderFactory;
import org.apache.logging.log4j.core.config.builder.impl.BuiltConfiguration;
import org.apache.spark.sql.SparkSession;

public class ForeignRead {
  public static void main(String[] args) throws Exception {
    String type = null, uri = null, warehouse = null;
    int i = 0;
    for (; i < args.length && args[i].startsWith("--"); i += 2) {
      if (i + 1 >= args.length) usage("missing value for " + args[i]);
      switch (args[i]) {
        case "--rest" -> { type = "rest"; uri = args[i + 1]; }
        case "--jdbc" -> { type = "jdbc"; uri = args[i + 1]; }
        case "--warehouse" -> warehouse = args[i + 1];
        default -> usage("unknown option " + args[i]);
      }
    }
    if (type == null || args.length - i != 2) usage("need --rest or --jdbc, then NAMESPACE TABLE");
    if (type.equals("jdbc") && warehouse == null) usage("--jdbc needs --warehouse");
    String table = "delivered." + args[i] + "." + args[i + 1];

    quietLogging();
    String c = "spark.sql.catalog.delivered";
    SparkSession.Builder b = SparkSession.builder()
        .appName("foreign-read")
        .master("local[1]") // the machine is shared: one core
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "1")
        // Spark's own (session) catalog is not used; keep its spark-warehouse dir out of the working directory
        .config("spark.sql.warehouse.dir", System.getProperty("java.io.tmpdir") + "/foreign-read-spark-warehouse")
        .config(c, "org.apache.iceberg.spark.SparkCatalog")
        .config(c + ".type", type)
        .config(c + ".uri", uri)
        // data and metadata files are read from S3 (S3Proxy) with Iceberg's own FileIO, not Hadoop's s3a
        .config(c + ".io-impl", "org.apache.iceberg.aws.s3.S3FileIO")
        .config(c + ".s3.endpoint", env("S3_ENDPOINT", "http://127.0.0.1:4570"))
        .config(c + ".s3.path-style-access", "true")
        .config(c + ".s3.access-key-id", env("AWS_ACCESS_KEY_ID", "test"))
        .config(c + ".s3.secret-access-key", env("AWS_SECRET_ACCESS_KEY", "test"))
        .config(c + ".client.region", "us-east-1");
    if (warehouse != null) b.config(c + ".warehouse", warehouse);
    // the service creates its SQLite catalog with the V1 schema (it has the view columns); read it as such
    if (type.equals("jdbc")) b.config(c + ".jdbc.schema-version", "V1");

    try (SparkSession spark = b.getOrCreate()) {
      long rows = spark.sql("SELECT count(*) FROM " + table).first().getLong(0);
      System.out.println("table: " + table + " (" + type + " " + uri + ")");
      spark.sql("SELECT * FROM " + table + " LIMIT 5").show(5, 60);
      spark.sql("SELECT committed_at, snapshot_id, parent_id, operation,"
          + " summary['added-records'] AS added_records, summary['total-records'] AS total_records"
          + " FROM " + table + ".snapshots ORDER BY committed_at").show(20, false);
      System.out.println("rows: " + rows);
    }
  }

  static String env(String name, String dflt) {
    String v = System.getenv(name);
    return v == null || v.isEmpty() ? dflt : v;
  }

  static void usage(String why) {
    System.err.println("foreign-read: " + why + "\nusage: (--rest URI | --jdbc URI --warehouse S3URI) NAMESPACE TABLE");
    System.exit(2);
  }

  // Spark loads its own INFO-level log4j2 profile when log4j2 runs on its default configuration; a configuration
  // of our own (WARN, to stderr) keeps stdout for the results. It is set on the system class loader's context:
  // log4j2 keeps one per class loader, and this source file's classes live in the launcher's own loader.
  static void quietLogging() {
    ConfigurationBuilder<BuiltConfiguration> cb = ConfigurationBuilderFactory.newConfigurationBuilder();
    cb.add(cb.newAppender("stderr", "Console").addAttribute("target", ConsoleAppender.Target.SYSTEM_ERR)
        .add(cb.newLayout("PatternLayout").addAttribute("pattern", "%d{HH:mm:ss} %p %c{1}: %m%n")));
    cb.add(cb.newRootLogger(Level.WARN).add(cb.newAppenderRef("stderr")));
    // "Unable to load native-hadoop library": Hadoop's pure-Java code paths are used, which is fine here
    cb.add(cb.newLogger("org.apache.hadoop.util.NativeCodeLoader", Level.ERROR));
    Configurator.initialize(ClassLoader.getSystemClassLoader(), cb.build());
  }
}
