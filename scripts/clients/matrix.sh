#!/usr/bin/env bash
# The client matrix's command-line columns: the AWS CLI v2 from Debian (/usr/bin/aws, Glue calls: its channel commands
# came later) and `curl --aws-sigv4` (every call, JSON 1.1 by hand). The changed-body cases go through
# MATRIX_TAMPER_ENDPOINT, a proxy that changes the body after the client signed it; the CLI's old date comes from
# faketime, curl's from an X-Amz-Date header it signs as given. Prints `RESULT <client> <call> <outcome>` lines.
set -uo pipefail
: "${MATRIX_ENDPOINT:?}" "${MATRIX_TAMPER_ENDPOINT:?}" "${MATRIX_REGION:?}" "${MATRIX_KEY:?}" "${MATRIX_SECRET:?}"
: "${MATRIX_SCHEMA:?}" "${MATRIX_CHANNEL:?}"
failures=0
suffix=$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

result() { # client call outcome
  case "$3" in FAIL*) failures=$((failures + 1)) ;; esac
  echo "RESULT $1 $2 $3"
}

# field FILE PYTHON-EXPRESSION-ON-r: prints the expression's value for the JSON in FILE
field() { /usr/bin/python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$1" 2>/dev/null; }

# expect CLIENT CALL EXPECTED-ERROR CHECK -- COMMAND...: runs COMMAND (its JSON answer in $work/out); ok when it exits 0
# and CHECK (a python expression on r, or "true") holds, else the error type the client printed
expect() {
  local client=$1 call=$2 error=$3 check=$4
  shift 5
  if "$@" >"$work/out" 2>"$work/err"; then
    if [ -n "$error" ]; then
      result "$client" "$call" "FAIL answered where $error was expected"
    elif [ "$check" = true ] || [ "$(field "$work/out" "$check")" = True ]; then
      result "$client" "$call" ok
    else
      result "$client" "$call" "FAIL the answer fails $check: $(head -c 300 "$work/out")"
    fi
  else
    local code
    code=$(grep -o 'An error occurred ([A-Za-z]*)' "$work/err" | head -1 | sed 's/.*(\(.*\))/\1/')
    [ -z "$code" ] && code=$(field "$work/out" "r['__type']")
    if [ -n "$error" ] && [ "$code" = "$error" ]; then
      result "$client" "$call" "$code"
    else
      result "$client" "$call" "FAIL ${code:-no error type}: $(cat "$work/err" "$work/out" | head -c 300 | tr '\n' ' ')"
    fi
  fi
}

# --- the AWS CLI v2 (Debian's awscli), Glue calls
aws_() { # KEY SECRET ENDPOINT aws-args...
  local key=$1 secret=$2 endpoint=$3
  shift 3
  AWS_ACCESS_KEY_ID=$key AWS_SECRET_ACCESS_KEY=$secret AWS_PAGER="" AWS_MAX_ATTEMPTS=1 AWS_CONFIG_FILE=/dev/null \
    AWS_SHARED_CREDENTIALS_FILE=/dev/null /usr/bin/aws --region "$MATRIX_REGION" --endpoint-url "$endpoint" \
    --output json "$@"
}
cli() { aws_ "$MATRIX_KEY" "$MATRIX_SECRET" "$MATRIX_ENDPOINT" "$@"; }
registry="mx-cli-$suffix"
expect cli CreateRegistry "" "r['RegistryName'] == '$registry'" -- cli glue create-registry --registry-name "$registry"
expect cli CreateSchema "" "r['SchemaName'] == 'events'" -- cli glue create-schema \
  --registry-id "RegistryName=$registry" --schema-name events --data-format JSON --compatibility NONE \
  --schema-definition "file://$MATRIX_SCHEMA"
schema_arn=$(field "$work/out" "r['SchemaArn']")
expect cli GetSchema "" "r['SchemaArn'] == '$schema_arn'" -- cli glue get-schema --schema-id "SchemaArn=$schema_arn"
expect cli GetSchemaVersion "" "json.loads(r['SchemaDefinition']) == json.load(open('$MATRIX_SCHEMA'))" -- \
  cli glue get-schema-version --schema-id "SchemaArn=$schema_arn" --schema-version-number LatestVersion=true
expect cli glue-wrong-secret InvalidSignatureException true -- \
  aws_ "$MATRIX_KEY" guessed "$MATRIX_ENDPOINT" glue list-registries
expect cli glue-unknown-key InvalidSignatureException true -- \
  aws_ AKIAUNKNOWN "$MATRIX_SECRET" "$MATRIX_ENDPOINT" glue list-registries
expect cli glue-changed-body InvalidSignatureException true -- \
  aws_ "$MATRIX_KEY" "$MATRIX_SECRET" "$MATRIX_TAMPER_ENDPOINT" glue get-registry --registry-id "RegistryName=$registry"
expect cli glue-old-date InvalidSignatureException true -- faketime -f -20m \
  /usr/bin/env AWS_ACCESS_KEY_ID="$MATRIX_KEY" AWS_SECRET_ACCESS_KEY="$MATRIX_SECRET" AWS_MAX_ATTEMPTS=1 \
  AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null AWS_PAGER="" /usr/bin/aws --region "$MATRIX_REGION" \
  --endpoint-url "$MATRIX_ENDPOINT" glue list-registries

# --- curl --aws-sigv4, every call as JSON 1.1
curl_() { # KEY SECRET ENDPOINT SERVICE TARGET BODY [curl-args...]: the body's JSON answer on stdout, exit 0 on 2xx
  local key=$1 secret=$2 endpoint=$3 service=$4 target=$5 body=$6
  shift 6
  local status
  status=$(curl -sS -o "$work/curl" -w '%{http_code}' --aws-sigv4 "aws:amz:$MATRIX_REGION:$service" \
    --user "$key:$secret" -H 'Content-Type: application/x-amz-json-1.1' -H "X-Amz-Target: $target" \
    --data-binary "$body" "$@" "$endpoint/") || return 1
  cat "$work/curl"
  [ "${status:0:1}" = 2 ]
}
kinesis() { curl_ "$MATRIX_KEY" "$MATRIX_SECRET" "$MATRIX_ENDPOINT" kinesis "Kinesis_20131202.$1" "$2"; }
glue() { curl_ "$MATRIX_KEY" "$MATRIX_SECRET" "$MATRIX_ENDPOINT" glue "AWSGlue.$1" "$2"; }
registry="mx-curl-$suffix"
definition=$(/usr/bin/python3 -c 'import json,sys; print(json.dumps(open(sys.argv[1]).read()))' "$MATRIX_SCHEMA")
expect curl CreateRegistry "" "r['RegistryName'] == '$registry'" -- glue CreateRegistry "{\"RegistryName\":\"$registry\"}"
expect curl CreateSchema "" "r['SchemaName'] == 'events'" -- glue CreateSchema "{\"RegistryId\":{\"RegistryName\":\
\"$registry\"},\"SchemaName\":\"events\",\"DataFormat\":\"JSON\",\"Compatibility\":\"NONE\",\"SchemaDefinition\":$definition}"
schema_arn=$(field "$work/out" "r['SchemaArn']")
expect curl GetSchema "" "r['SchemaArn'] == '$schema_arn'" -- glue GetSchema "{\"SchemaId\":{\"SchemaArn\":\"$schema_arn\"}}"
expect curl GetSchemaVersion "" "json.loads(r['SchemaDefinition']) == json.load(open('$MATRIX_SCHEMA'))" -- \
  glue GetSchemaVersion "{\"SchemaId\":{\"SchemaArn\":\"$schema_arn\"},\"SchemaVersionNumber\":{\"LatestVersion\":true}}"
name="mx-curl-$suffix"
channel=$(sed -e "s|@NAME@|$name|g" -e "s|@TABLE@|${name//-/_}|g" -e "s|@SCHEMA_ARN@|$schema_arn|g" "$MATRIX_CHANNEL")
expect curl CreateChannel "" "r['ChannelDescription']['ChannelName'] == '$name'" -- kinesis CreateChannel "$channel"
arn=$(field "$work/out" "r['ChannelDescription']['ChannelARN']")
expect curl DescribeChannel "" "r['ChannelDescription']['ChannelARN'] == '$arn'" -- \
  kinesis DescribeChannel "{\"ChannelARN\":\"$arn\"}"
expect curl ListChannels "" "'$arn' in [c['ChannelARN'] for c in r['ChannelSummaries']]" -- kinesis ListChannels '{}'
expect curl UpdateChannel "" "r['ChannelDescription']['S3TablesDestinationConfiguration']['DataFreshnessInSeconds'] == 120" \
  -- kinesis UpdateChannel "{\"ChannelARN\":\"$arn\",\"S3TablesDestinationConfiguration\":{\"DataFreshnessInSeconds\":120}}"
expect curl DeleteChannel "" true -- kinesis DeleteChannel "{\"ChannelARN\":\"$arn\"}"
expect curl wrong-secret InvalidSignatureException true -- \
  curl_ "$MATRIX_KEY" guessed "$MATRIX_ENDPOINT" kinesis Kinesis_20131202.ListChannels '{}'
expect curl unknown-key InvalidSignatureException true -- \
  curl_ AKIAUNKNOWN "$MATRIX_SECRET" "$MATRIX_ENDPOINT" kinesis Kinesis_20131202.ListChannels '{}'
expect curl changed-body InvalidSignatureException true -- curl_ "$MATRIX_KEY" "$MATRIX_SECRET" \
  "$MATRIX_TAMPER_ENDPOINT" kinesis Kinesis_20131202.DescribeChannel "{\"ChannelARN\":\"$arn\"}"
expect curl old-date InvalidSignatureException true -- curl_ "$MATRIX_KEY" "$MATRIX_SECRET" "$MATRIX_ENDPOINT" kinesis \
  Kinesis_20131202.ListChannels '{}' -H "X-Amz-Date: $(date -u -d '-20 min' +%Y%m%dT%H%M%SZ)"
expect curl glue-wrong-secret InvalidSignatureException true -- \
  curl_ "$MATRIX_KEY" guessed "$MATRIX_ENDPOINT" glue AWSGlue.ListRegistries '{}'
expect curl glue-unknown-key InvalidSignatureException true -- \
  curl_ AKIAUNKNOWN "$MATRIX_SECRET" "$MATRIX_ENDPOINT" glue AWSGlue.ListRegistries '{}'
expect curl glue-changed-body InvalidSignatureException true -- curl_ "$MATRIX_KEY" "$MATRIX_SECRET" \
  "$MATRIX_TAMPER_ENDPOINT" glue AWSGlue.GetRegistry "{\"RegistryId\":{\"RegistryName\":\"$registry\"}}"
expect curl glue-old-date InvalidSignatureException true -- curl_ "$MATRIX_KEY" "$MATRIX_SECRET" "$MATRIX_ENDPOINT" glue \
  AWSGlue.ListRegistries '{}' -H "X-Amz-Date: $(date -u -d '-20 min' +%Y%m%dT%H%M%SZ)"
[ "$failures" -eq 0 ]
