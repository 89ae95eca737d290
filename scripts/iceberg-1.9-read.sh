#!/usr/bin/env bash
# Reads a delivered table with Apache Iceberg 1.9.0's own Java library, the Iceberg the managed feature's tables
# keep to (SPEC S7), while the service writes with a newer one. deploy/all-in-one's TableFormatIT runs it.
#
# Usage: scripts/iceberg-1.9-read.sh REST_CATALOG_URI NAMESPACE TABLE
#        scripts/iceberg-1.9-read.sh --install     # only installs the jars (the test, while the service delivers)
# Env: S3_ENDPOINT (default http://127.0.0.1:4570; path-style, region us-east-1),
#      AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (default test/test).
# Prints the table's format version, its snapshot ids and its rows as sorted JSON lines
# (scripts/iceberg-1.9-read/Iceberg19Read.java). Exit code: 0 on a read, 2 on bad arguments, else Iceberg's error.
#
# First use installs the jars (~95 MB, mostly Hadoop's client and the AWS SDK, which the service's build has
# already downloaded; ~20 s with Iceberg 1.9.0's own from Maven Central) into
# .peers/iceberg-1.9-read/libs, as scripts/foreign-read.sh does; a changed pom.xml installs them anew.
set -euo pipefail
cd "$(dirname "$0")/.."
HERE=$PWD/scripts/iceberg-1.9-read
LIBS=$PWD/.peers/iceberg-1.9-read/libs

[ $# -eq 3 ] || [ "$*" = --install ] || { sed -n '5,6p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

STAMP=$LIBS/.pom-$(cksum <"$HERE/pom.xml" | cut -d' ' -f1) # written last: a half-finished copy is redone
if [ ! -f "$STAMP" ]; then
  echo "installing Apache Iceberg 1.9.0 into $LIBS" >&2
  rm -rf "$LIBS" && mkdir -p "$LIBS" # no stale jars of another version on the classpath
  ./mvnw -B -q -f "$HERE/pom.xml" dependency:copy-dependencies -DincludeScope=runtime \
    -DoutputDirectory="$LIBS" >"$PWD/.peers/iceberg-1.9-read/mvn.log" 2>&1 \
    || { echo "install failed, see .peers/iceberg-1.9-read/mvn.log" >&2; exit 1; }
  touch "$STAMP"
fi

[ "$1" = --install ] && exit 0
exec java -Xmx512m -cp "$LIBS/*" "$HERE/Iceberg19Read.java" "$@"
