// The members of the channel operations' input and output shapes in the AWS SDK for JavaScript v3's model
// (@aws-sdk/client-kinesis, installed by install.sh), as paths "A.B[].C" (a map's keys are data, not members):
// ApiShapesTest compares them with the Java SDK's model and with what the service accepts and answers.
const path = require('path');
const kinesis = require(path.join(__dirname, '../../.peers/js-clients/node_modules/@aws-sdk/client-kinesis'));
const version = require(path.join(__dirname,
    '../../.peers/js-clients/node_modules/@aws-sdk/client-kinesis/package.json')).version;

// A schema is [3 (structure), namespace, name, traits, member names, member schemas, required count],
// [1 (list), namespace, name, traits, member schema], [2 (map), ...], a number (a simple type) or a function
// returning one of these.
function members(schema, prefix, out) {
  const s = typeof schema === 'function' ? schema() : schema;
  if (!Array.isArray(s)) {
    return;
  }
  if (s[0] === 3) {
    s[4].forEach((name, i) => {
      out.push(prefix + name);
      const member = typeof s[5][i] === 'function' ? s[5][i]() : s[5][i];
      if (Array.isArray(member) && member[0] === 1) {
        members(member[4], prefix + name + '[].', out);
      } else {
        members(member, prefix + name + '.', out);
      }
    });
  }
}

const shapes = { version };
for (const op of ['CreateChannel', 'DescribeChannel', 'ListChannels', 'UpdateChannel', 'DeleteChannel']) {
  const input = [];
  const output = [];
  members(kinesis[op + 'Input$'], '', input);
  members(kinesis[op + 'Output$'], '', output);
  shapes[op] = { input: input.sort(), output: output.sort() };
}
console.log(JSON.stringify(shapes));
