#!/usr/bin/python3
"""The client matrix's boto3 column (Debian's python3-boto3): Glue calls through boto3's own client, channel calls
signed by botocore's SigV4Auth over the JSON 1.1 bodies (the model boto3 ships predates the channel operations), and
sent by botocore's own HTTP session. Prints one `RESULT boto3 <call> <outcome>` line per call (see ClientMatrix)."""
import datetime
import json
import os
import sys
import types
import uuid

import boto3
import botocore
import botocore.compat
import botocore.auth
if botocore.compat.HAS_CRT:
    import botocore.crt.auth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials
from botocore.exceptions import ClientError
from botocore.httpsession import URLLib3Session

ENDPOINT = os.environ["MATRIX_ENDPOINT"]
REGION = os.environ["MATRIX_REGION"]
KEY = os.environ["MATRIX_KEY"]
SECRET = os.environ["MATRIX_SECRET"]
CLIENT = "boto3"
failures = 0


def result(call, outcome):
    global failures
    if outcome.startswith("FAIL"):
        failures += 1
    print(f"RESULT {CLIENT} {call} {outcome}", flush=True)


def expect(call, run, check=lambda r: None, error=None):
    """Runs a call: `ok` when it answers and `check` finds nothing wrong, else the error type it answered."""
    try:
        answer = run()
    except ClientError as e:
        code = e.response["Error"]["Code"]
        result(call, code if code == error else f"FAIL {code}: {e.response['Error'].get('Message')}")
        return None
    if error:
        result(call, f"FAIL answered where {error} was expected")
        return None
    problem = check(answer)
    result(call, f"FAIL {problem}" if problem else "ok")
    return answer


class StaleDatetime(datetime.datetime):
    """The clock twenty minutes behind, for the old-date case."""

    @classmethod
    def utcnow(cls):
        return datetime.datetime.utcnow() - datetime.timedelta(minutes=20)

    @classmethod
    def now(cls, tz=None):
        return datetime.datetime.now(tz) - datetime.timedelta(minutes=20)


STALE = types.ModuleType("datetime")
STALE.__dict__.update(vars(datetime))
STALE.datetime = StaleDatetime


def stale(run):
    """Runs `run` with both of botocore's SigV4 signers (its own, and awscrt's where installed) twenty minutes late."""
    modules = [botocore.auth] + ([botocore.crt.auth] if botocore.compat.HAS_CRT else [])
    saved = [m.datetime for m in modules]
    for m in modules:
        m.datetime = STALE
    try:
        return run()
    finally:
        for m, real in zip(modules, saved):
            m.datetime = real


def kinesis(operation, body, key=KEY, secret=SECRET, tamper=False):
    """One channel call: JSON 1.1, signed with botocore's SigV4Auth for service kinesis."""
    request = AWSRequest(method="POST", url=ENDPOINT + "/", data=json.dumps(body).encode(), headers={
        "Content-Type": "application/x-amz-json-1.1", "X-Amz-Target": "Kinesis_20131202." + operation})
    botocore.auth.SigV4Auth(Credentials(key, secret), "kinesis", REGION).add_auth(request)
    if tamper:
        request.data = request.data.replace(b"mx-", b"MX-")  # changed after signing, same length
    response = URLLib3Session().send(request.prepare())
    answer = json.loads(response.content or b"{}")
    if response.status_code >= 300:
        raise ClientError({"Error": {"Code": answer.get("__type", str(response.status_code)).split("#")[-1],
                                     "Message": answer.get("message")}}, operation)
    return answer


def glue_client(key=KEY, secret=SECRET):
    return boto3.client("glue", endpoint_url=ENDPOINT, region_name=REGION, aws_access_key_id=key,
                        aws_secret_access_key=secret, config=Config(retries={"max_attempts": 1}))


def main():
    suffix = uuid.uuid4().hex[:8]
    registry = f"mx-{CLIENT}-{suffix}"
    with open(os.environ["MATRIX_SCHEMA"]) as f:
        definition = f.read()
    glue = glue_client()
    expect("CreateRegistry", lambda: glue.create_registry(RegistryName=registry))
    created = expect("CreateSchema", lambda: glue.create_schema(
        RegistryId={"RegistryName": registry}, SchemaName="events", DataFormat="JSON", Compatibility="NONE",
        SchemaDefinition=definition))
    schema_arn = created["SchemaArn"] if created else "missing"
    expect("GetSchema", lambda: glue.get_schema(SchemaId={"SchemaArn": schema_arn}),
           lambda r: None if r["SchemaName"] == "events" else f"SchemaName {r['SchemaName']}")
    expect("GetSchemaVersion", lambda: glue.get_schema_version(
        SchemaId={"SchemaArn": schema_arn}, SchemaVersionNumber={"LatestVersion": True}),
           lambda r: None if json.loads(r["SchemaDefinition"]) == json.loads(definition) else "another definition")

    name = f"mx-{CLIENT}-{suffix}"
    with open(os.environ["MATRIX_CHANNEL"]) as f:
        channel = json.loads(f.read().replace("@NAME@", name).replace("@TABLE@", name.replace("-", "_"))
                             .replace("@SCHEMA_ARN@", schema_arn))
    created = expect("CreateChannel", lambda: kinesis("CreateChannel", channel),
                     lambda r: None if r["ChannelDescription"]["ChannelName"] == name else "another name")
    arn = created["ChannelDescription"]["ChannelARN"] if created else "missing"
    expect("DescribeChannel", lambda: kinesis("DescribeChannel", {"ChannelARN": arn}),
           lambda r: None if r["ChannelDescription"]["ChannelARN"] == arn else "another channel")
    expect("ListChannels", lambda: kinesis("ListChannels", {}),
           lambda r: None if arn in [c["ChannelARN"] for c in r["ChannelSummaries"]] else "channel not listed")
    expect("UpdateChannel", lambda: kinesis("UpdateChannel", {
        "ChannelARN": arn, "S3TablesDestinationConfiguration": {"DataFreshnessInSeconds": 120}}),
           lambda r: None if r["ChannelDescription"]["S3TablesDestinationConfiguration"]["DataFreshnessInSeconds"]
           == 120 else "freshness not updated")
    expect("DeleteChannel", lambda: kinesis("DeleteChannel", {"ChannelARN": arn}))

    body = {"ChannelName": f"mx-{CLIENT}-{suffix}"}  # what the tampering changes: mx- to MX-
    expect("wrong-secret", lambda: kinesis("ListChannels", {}, secret="guessed"), error="InvalidSignatureException")
    expect("unknown-key", lambda: kinesis("ListChannels", {}, key="AKIAUNKNOWN"), error="InvalidSignatureException")
    expect("changed-body", lambda: kinesis("ListChannels", body, tamper=True), error="InvalidSignatureException")
    expect("old-date", lambda: stale(lambda: kinesis("ListChannels", {})), error="InvalidSignatureException")
    expect("glue-wrong-secret", lambda: glue_client(secret="guessed").list_registries(),
           error="InvalidSignatureException")
    expect("glue-unknown-key", lambda: glue_client(key="AKIAUNKNOWN").list_registries(),
           error="InvalidSignatureException")
    tampering = glue_client()
    tampering.meta.events.register("before-send.glue.GetRegistry", lambda request, **kw: setattr(
        request, "body", request.body.replace(b"mx-", b"MX-")))
    expect("glue-changed-body", lambda: tampering.get_registry(RegistryId={"RegistryName": registry}),
           error="InvalidSignatureException")
    expect("glue-old-date", lambda: stale(lambda: glue_client().list_registries()), error="InvalidSignatureException")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
