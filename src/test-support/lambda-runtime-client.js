// Test stand-in for aws-lambda-ric, the runtime interface client the render image runs
// (cloud/image/Dockerfile): it serves a handler module over the Lambda Runtime API
// (AWS_LAMBDA_RUNTIME_API), reporting a thrown error's name as its errorType as the real client does.
// Used as the `bootstrap` of a provided.al2023 zip function on the AWS emulator, where container
// images cannot run. Usage: node lambda-runtime-client.js <handler module> <export name>
// With VIDKIT_TEST_INVOCATION_LOG set (a function environment variable), each invocation's mode,
// render and frame range is appended to that file as a JSON line, for tests that count them.
// With VIDKIT_TEST_HOLD_REFERENCE set to a file's path: while that file exists, the answer to a
// chunk invocation of a batch's reference row is held for as many milliseconds as the file says,
// so a test can tell "the other rows started before the reference ended" from a fast machine's
// luck.
'use strict';
const fs = require('node:fs');
const http = require('node:http');

function logInvocation(event) {
  const file = process.env.VIDKIT_TEST_INVOCATION_LOG;
  if (!file) return;
  const render = event && event.render;
  const line = { mode: event && event.mode, renderId: render && render.renderId, outputKey: render && render.outputKey, reference: Boolean(render && render.reuse && render.reuse.reference), chunk: event && event.chunk };
  fs.appendFileSync(file, JSON.stringify(line) + '\n');
}

/** Waits as the hold file asks, when `event` is a chunk of a reference row and the file exists. */
async function holdReference(event) {
  const file = process.env.VIDKIT_TEST_HOLD_REFERENCE;
  const render = event && event.render;
  if (!file || event.mode !== 'chunk' || !(render && render.reuse && render.reuse.reference) || !fs.existsSync(file)) return;
  const ms = Number(fs.readFileSync(file, 'utf8'));
  await new Promise((resolve) => setTimeout(resolve, Number.isFinite(ms) ? ms : 0));
}

const [modulePath, exportName] = process.argv.slice(2);
const base = `http://${process.env.AWS_LAMBDA_RUNTIME_API}/2018-06-01/runtime`;

function call(method, url, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (data += d));
      res.on('end', () => resolve({ headers: res.headers, body: data }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const errorBody = (err) => JSON.stringify({ errorType: (err && err.name) || 'Error', errorMessage: (err && err.message) || String(err), trace: String((err && err.stack) || '').split('\n') });

async function main() {
  let handler;
  try {
    handler = require(modulePath)[exportName];
  } catch (err) {
    await call('POST', `${base}/init/error`, errorBody(err), { 'Lambda-Runtime-Function-Error-Type': 'Runtime.ImportModuleError' });
    process.exit(1);
  }
  for (;;) {
    const next = await call('GET', `${base}/invocation/next`);
    const id = next.headers['lambda-runtime-aws-request-id'];
    try {
      const event = JSON.parse(next.body);
      logInvocation(event);
      const result = await handler(event);
      await holdReference(event);
      await call('POST', `${base}/invocation/${id}/response`, JSON.stringify(result ?? null));
    } catch (err) {
      await call('POST', `${base}/invocation/${id}/error`, errorBody(err), { 'Lambda-Runtime-Function-Error-Type': (err && err.name) || 'Error' });
    }
  }
}

main();
