#!/usr/bin/env bash
# Installs the client matrix's clients (ClientMatrixIT): Debian's python3-boto3, awscli (the AWS CLI v2) and faketime,
# and the AWS SDK for JavaScript v3's Kinesis and Glue clients from npm into .peers/js-clients. curl is on every
# machine; the Java SDK comes with the build. A client that cannot be installed fails the run: none is skipped.
set -euo pipefail
cd "$(dirname "$0")/../.."
JS=.peers/js-clients
missing=()
/usr/bin/python3 -c 'import boto3' 2>/dev/null || missing+=(python3-boto3)
[ -x /usr/bin/aws ] || missing+=(awscli)
command -v faketime >/dev/null || missing+=(faketime)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${missing[*]} (Debian)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q "${missing[@]}" >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q "${missing[@]}" >/dev/null; }
fi
if [ ! -d "$JS/node_modules/@aws-sdk/client-kinesis" ] || [ ! -d "$JS/node_modules/@aws-sdk/client-glue" ]; then
  echo "installing @aws-sdk/client-kinesis and @aws-sdk/client-glue (npm)"
  mkdir -p "$JS"
  npm install --no-save --no-audit --no-fund --prefix "$JS" @aws-sdk/client-kinesis@3.1143.0 @aws-sdk/client-glue@3.1178.0 \
    >"$JS/npm.log" 2>&1 || { tail -20 "$JS/npm.log" >&2; exit 1; }
fi
