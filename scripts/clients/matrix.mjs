// The client matrix's JavaScript column: the AWS SDK for JavaScript v3 Kinesis and Glue clients with their defaults
// (the Kinesis client talks HTTP/2, h2c on http://, and signs :authority), installed by scripts/clients/install.sh.
// Prints one `RESULT js <call> <outcome>` line per call (see ClientMatrix).
import { readFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";

const require = createRequire(process.env.MATRIX_JS_MODULES + "/");
const kinesisSdk = require("@aws-sdk/client-kinesis");
const glueSdk = require("@aws-sdk/client-glue");

const { MATRIX_ENDPOINT: endpoint, MATRIX_REGION: region, MATRIX_KEY: key, MATRIX_SECRET: secret } = process.env;
const CLIENT = "js";
let failures = 0;

function result(call, outcome) {
  if (outcome.startsWith("FAIL")) failures++;
  console.log(`RESULT ${CLIENT} ${call} ${outcome}`);
}

/** `ok` when the call answers and `check` finds nothing wrong, else the error type it answered. */
async function expect(call, run, check = () => null, error = null) {
  let answer;
  try {
    answer = await run();
  } catch (e) {
    result(call, e.name === error ? e.name : `FAIL ${e.name}: ${e.message}`);
    return null;
  }
  if (error) {
    result(call, `FAIL answered where ${error} was expected`);
    return null;
  }
  const problem = check(answer);
  result(call, problem ? `FAIL ${problem}` : "ok");
  return answer;
}

/** A client as users build one; the wrong cases without retries (the SDK corrects what it takes for clock skew). */
function client(Sdk, { accessKeyId = key, secretAccessKey = secret, ...options } = {}) {
  return new Sdk({ endpoint, region, credentials: { accessKeyId, secretAccessKey }, ...options });
}

/** The body changed after the SDK signed it, as a man in the middle would. */
function tampering(c) {
  c.middlewareStack.addRelativeTo((next) => async (args) => {
    const body = args.request.body;
    const text = typeof body === "string" ? body : new TextDecoder().decode(body);
    args.request.body = text.replace(/mx-/g, "MX-"); // ASCII: the same length as signed
    return next(args);
  }, { relation: "after", toMiddleware: "httpSigningMiddleware", name: "tamper" });
  return c;
}

const suffix = randomUUID().slice(0, 8);
const registry = `mx-${CLIENT}-${suffix}`;
const definition = readFileSync(process.env.MATRIX_SCHEMA, "utf8");
const glue = client(glueSdk.GlueClient);
await expect("CreateRegistry", () => glue.send(new glueSdk.CreateRegistryCommand({ RegistryName: registry })));
const schema = await expect("CreateSchema", () => glue.send(new glueSdk.CreateSchemaCommand({
  RegistryId: { RegistryName: registry }, SchemaName: "events", DataFormat: "JSON", Compatibility: "NONE",
  SchemaDefinition: definition })));
const schemaArn = schema ? schema.SchemaArn : "missing";
await expect("GetSchema", () => glue.send(new glueSdk.GetSchemaCommand({ SchemaId: { SchemaArn: schemaArn } })),
  (r) => (r.SchemaName === "events" ? null : `SchemaName ${r.SchemaName}`));
await expect("GetSchemaVersion", () => glue.send(new glueSdk.GetSchemaVersionCommand({
  SchemaId: { SchemaArn: schemaArn }, SchemaVersionNumber: { LatestVersion: true } })),
  (r) => (JSON.stringify(JSON.parse(r.SchemaDefinition)) === JSON.stringify(JSON.parse(definition))
    ? null : "another definition"));

const name = `mx-${CLIENT}-${suffix}`;
const channel = JSON.parse(readFileSync(process.env.MATRIX_CHANNEL, "utf8").replaceAll("@NAME@", name)
  .replaceAll("@TABLE@", name.replaceAll("-", "_"))
  .replaceAll("@SCHEMA_ARN@", schemaArn));
const kinesis = client(kinesisSdk.KinesisClient);
// the Kinesis client's default transport is HTTP/2 (h2c on http://): the case that signs :authority
const handler = await kinesis.config.requestHandler;
result("transport", (typeof handler === "function" ? await handler() : handler).constructor.name);
const created = await expect("CreateChannel", () => kinesis.send(new kinesisSdk.CreateChannelCommand(channel)),
  (r) => (r.ChannelDescription.ChannelName === name ? null : "another name"));
const arn = created ? created.ChannelDescription.ChannelARN : "missing";
await expect("DescribeChannel", () => kinesis.send(new kinesisSdk.DescribeChannelCommand({ ChannelARN: arn })),
  (r) => (r.ChannelDescription.ChannelARN === arn ? null : "another channel"));
await expect("ListChannels", () => kinesis.send(new kinesisSdk.ListChannelsCommand({})),
  (r) => (r.ChannelSummaries.some((c) => c.ChannelARN === arn) ? null : "channel not listed"));
await expect("UpdateChannel", () => kinesis.send(new kinesisSdk.UpdateChannelCommand({
  ChannelARN: arn, S3TablesDestinationConfiguration: { DataFreshnessInSeconds: 120 } })),
  (r) => (r.ChannelDescription.S3TablesDestinationConfiguration.DataFreshnessInSeconds === 120
    ? null : "freshness not updated"));
await expect("DeleteChannel", () => kinesis.send(new kinesisSdk.DeleteChannelCommand({ ChannelARN: arn })));

const once = { maxAttempts: 1 };
const stale = { ...once, systemClockOffset: -20 * 60 * 1000 };
const list = (c) => c.send(new kinesisSdk.ListChannelsCommand({}));
await expect("wrong-secret", () => list(client(kinesisSdk.KinesisClient, { ...once, secretAccessKey: "guessed" })),
  undefined, "InvalidSignatureException");
await expect("unknown-key", () => list(client(kinesisSdk.KinesisClient, { ...once, accessKeyId: "AKIAUNKNOWN" })),
  undefined, "InvalidSignatureException");
await expect("changed-body", () => tampering(client(kinesisSdk.KinesisClient, once)).send(
  new kinesisSdk.DescribeChannelCommand({ ChannelARN: arn })), undefined, "InvalidSignatureException");
await expect("old-date", () => list(client(kinesisSdk.KinesisClient, stale)), undefined, "InvalidSignatureException");
const registries = (c) => c.send(new glueSdk.ListRegistriesCommand({}));
await expect("glue-wrong-secret", () => registries(client(glueSdk.GlueClient, { ...once, secretAccessKey: "guessed" })),
  undefined, "InvalidSignatureException");
await expect("glue-unknown-key", () => registries(client(glueSdk.GlueClient, { ...once, accessKeyId: "AKIAUNKNOWN" })),
  undefined, "InvalidSignatureException");
await expect("glue-changed-body", () => tampering(client(glueSdk.GlueClient, once)).send(
  new glueSdk.GetRegistryCommand({ RegistryId: { RegistryName: registry } })), undefined, "InvalidSignatureException");
await expect("glue-old-date", () => registries(client(glueSdk.GlueClient, stale)), undefined,
  "InvalidSignatureException");
kinesis.destroy();
process.exit(failures ? 1 : 0);
