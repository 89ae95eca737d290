#!/usr/bin/env bash
# Reads a delivered table with an engine nobody here wrote: Apache Spark 4.1 (local mode, in-process) with Iceberg's
# Spark runtime 1.12.0, all jars from Maven Central. Proves the tables are plain Iceberg, readable by others.
#
# Usage:
#   scripts/foreign-read.sh --rest http://127.0.0.1:8181 NAMESPACE TABLE          # Iceberg REST catalog
#   scripts/foreign-read.sh --jdbc jdbc:sqlite:/path/catalog.db --warehouse s3://bucket/warehouse NAMESPACE TABLE
# Env: S3_ENDPOINT (default http://127.0.0.1:4570; path-style, region us-east-1),
#      AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (default test/test).
# Prints the row count, up to 5 rows and the table's snapshots; the last line is "rows: N" (for scripts to grep).
# Exit code: 0 on a read, 2 on bad arguments, else Spark's/Iceberg's error.
#
# First use installs the jars (~340 MB, ~200 jars, ~20 s from Maven Central) into .peers/foreign-read/libs, as
# peers.sh installs Kafka; a changed pom.xml installs them anew.
# There is no Spark distribution (no spark-submit): scripts/foreign-read/ForeignRead.java builds the SparkSession and
# runs as a Java 17 single-file source program.
set -euo pipefail
cd "$(dirname "$0")/.."
HERE=$PWD/scripts/foreign-read
LIBS=$PWD/.peers/foreign-read/libs

[ $# -ge 3 ] || { sed -n '5,7p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

STAMP=$LIBS/.pom-$(cksum <"$HERE/pom.xml" | cut -d' ' -f1) # written last: a half-finished copy is redone
if [ ! -f "$STAMP" ]; then
  echo "installing Spark + Iceberg's Spark runtime into $LIBS" >&2
  rm -rf "$LIBS" && mkdir -p "$LIBS" # no stale jars of another version on the classpath
  ./mvnw -B -q -f "$HERE/pom.xml" dependency:copy-dependencies -DincludeScope=runtime \
    -DoutputDirectory="$LIBS" >"$PWD/.peers/foreign-read/mvn.log" 2>&1 \
    || { echo "install failed, see .peers/foreign-read/mvn.log" >&2; exit 1; }
  touch "$STAMP"
fi

# Spark on Java 17 reflects into JDK internals: these are the flags Spark's own launcher adds
# (org.apache.spark.launcher.JavaModuleOptions of Spark 4.1.3); without them SparkContext fails to start.
JAVA_MODULE_OPTS=(
  -XX:+IgnoreUnrecognizedVMOptions
  --add-opens=java.base/java.lang=ALL-UNNAMED
  --add-opens=java.base/java.lang.invoke=ALL-UNNAMED
  --add-opens=java.base/java.lang.reflect=ALL-UNNAMED
  --add-opens=java.base/java.io=ALL-UNNAMED
  --add-opens=java.base/java.net=ALL-UNNAMED
  --add-opens=java.base/java.nio=ALL-UNNAMED
  --add-opens=java.base/java.util=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED
  --add-opens=java.base/jdk.internal.ref=ALL-UNNAMED
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
  --add-opens=java.base/sun.nio.cs=ALL-UNNAMED
  --add-opens=java.base/sun.security.action=ALL-UNNAMED
  --add-opens=java.base/sun.util.calendar=ALL-UNNAMED
  --add-opens=java.security.jgss/sun.security.krb5=ALL-UNNAMED
  -Djdk.reflect.useDirectMethodHandle=false
  -Dio.netty.tryReflectionSetAccessible=true
)

# Spark would otherwise pick the address of eth0 for its (in-process) driver and executor, and warn about it
export SPARK_LOCAL_IP=${SPARK_LOCAL_IP:-127.0.0.1}
# The machine is shared with builds: a 1 GiB heap (Spark runs in this JVM; spark.driver.memory would not apply)
# and one core for Spark (local[1] in ForeignRead.java).
exec java -Xmx1g "${JAVA_MODULE_OPTS[@]}" -cp "$LIBS/*" "$HERE/ForeignRead.java" "$@"
