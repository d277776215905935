import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseRenderRequest } from '../composition/render-request';
import { loadComposition } from '../composition/composition';
import { VidkitError, render } from '../index';
import { MAX_JSON_DEPTH } from '../values/constants';
import { DEFAULT_INPUT_LIMITS, checkVariables } from '../options/input-limits';
import { parseRenderServerRequest } from '../template-server/render-server';
import { resolveConfig } from '../sdk/validate-config';
import { CliRun, ServingCli, cli, errorLines, tempDir, vidkit, vidkitServe } from '../test-support/cli';
import { httpRequest } from '../test-support/http';
import { ffprobe } from '../test-support/media';

// Every input a render takes has a bound, checked before any browser starts: one byte over answers
// exit 2 (400 or 413 on HTTP) within 5 s, naming the input, its size and the limit; one byte
// under renders. The renders are 2 frames of a 64x36 page; the limits are lowered by their
// options where a value at the default would cost a page seconds to lay out.
const out = tempDir('vidkit-limits-test-');
const { variableBytes, variablesBytes } = DEFAULT_INPUT_LIMITS;

/** A page that writes its title into itself: the render has to lay the value out. */
function project(): string {
  const dir = fs.mkdtempSync(path.join(out, 'project-'));
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    `<!doctype html>
<html data-composition-variables='[{"id":"title","type":"string","default":"t"},{"id":"more","type":"string","default":"m"},{"id":"deep","type":"string","default":""}]'>
<body style="margin:0">
<div id="root" data-composition-id="limits" data-width="64" data-height="36" data-duration="0.2" data-fps="10" style="width:64px;height:36px;overflow:hidden;font:8px sans-serif"></div>
<script>document.getElementById('root').textContent = window.__vidkit.getVariables().title;</script>
</body>
</html>
`,
  );
  return dir;
}
const dir = project();

/** A string variable whose JSON is exactly `bytes` bytes: the quotes count. */
const text = (bytes: number) => 'a'.repeat(bytes - 2);
/** An object of variables whose JSON is exactly `bytes` bytes. */
function variablesOf(bytes: number): Record<string, string> {
  const skeleton = JSON.stringify({ title: '' });
  return { title: 'a'.repeat(bytes - skeleton.length) };
}
/** JSON arrays nested `levels` deep, as one variable's value inside the variables object (one level more). */
const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

function run(args: string[], input?: string, env: NodeJS.ProcessEnv = {}): { run: CliRun; seconds: number } {
  const started = Date.now();
  const r = spawnSync(process.execPath, [cli(), ...args], { encoding: 'utf8', input, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024, env: { ...process.env, ...env } });
  return { run: { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr }, seconds: (Date.now() - started) / 1000 };
}

/**
 * Runs the CLI; a refusal must come within 5 s of the command's start. Node's own start is taken
 * off, measured by a command refused at once (a missing project): on a machine shared with other
 * renders it alone can take seconds.
 */
function timed(args: string[], input?: string, env: NodeJS.ProcessEnv = {}): CliRun {
  const { run: done, seconds } = run(args, input, env);
  if (done.status === 2) {
    const startup = run(['render', path.join(out, 'no-such-project')]).seconds;
    assert.ok(seconds - startup < 5, `refused after ${seconds} s, of which ${startup} s to start: ${done.stderr}`);
  }
  return done;
}

function file(name: string, content: string): string {
  const p = path.join(out, name);
  fs.writeFileSync(p, content);
  return p;
}

/** A render that must succeed: 2 frames of 64x36 in the output. */
function assertRendered(run: CliRun, output: string): void {
  assert.is(run.status, 0, run.stderr);
  const video = ffprobe(output).streams.find((s) => s.codec_type === 'video')!;
  assert.equal([video.width, video.height, Number(video.nb_frames)], [64, 36, 2]);
}

const test = suite('input limits: one byte over is refused at once, naming it; one byte under renders');

test.after(() => fs.rmSync(out, { recursive: true, force: true }));

test('the size of the variables is their JSON in UTF-8, counted without writing them twice', () => {
  const values = { title: 'café 🎬 "quoted" \\ \n', n: 12.5, on: true, list: [1, 'two', { three: null }], 'ключ': 'значение' };
  const bytes = Buffer.byteLength(JSON.stringify(values), 'utf8');
  assert.is(checkVariables(values, 'v', { variableBytes: bytes, variablesBytes: bytes }), bytes);
  assert.throws(() => checkVariables(values, 'v', { variableBytes: bytes, variablesBytes: bytes - 1 }), (e: Error) => e.message.includes(`v: the variables are ${bytes} bytes together`));
  assert.is(checkVariables({}, 'v', DEFAULT_INPUT_LIMITS), 2);
});

test('one variable: the default limit one byte over is refused, naming the variable, its size and the limit', () => {
  const vars = file('one-over.json', JSON.stringify({ title: text(variableBytes + 1) }));
  const run = timed(['render', dir, '--variables-file', vars, '--output', path.join(out, 'never.mp4')]);
  assert.is(run.status, 2, run.stderr);
  assert.equal(errorLines(run.stderr), [
    `vidkit: error: variables: variable "title" is ${variableBytes + 1} bytes, over the limit of ${variableBytes} bytes (8 MiB) for one variable; pass media as URLs, or raise it with --max-variable-bytes (render() and the SDK: maxVariableBytes; servers: VIDKIT_MAX_VARIABLE_BYTES)`,
  ]);
  assert.not.ok(fs.existsSync(path.join(out, 'never.mp4')));
});

test('one variable: --max-variable-bytes lowers it; one byte under renders, one over is refused', () => {
  const output = path.join(out, 'one-under.mp4');
  assertRendered(timed(['render', dir, '--max-variable-bytes', '1000', '--variables', JSON.stringify({ title: text(1000) }), '--output', output]), output);
  const over = timed(['render', dir, '--max-variable-bytes', '1000', '--variables', JSON.stringify({ title: text(1001) }), '--output', output]);
  assert.is(over.status, 2, over.stderr);
  assert.match(errorLines(over.stderr)[0], 'variable "title" is 1001 bytes, over the limit of 1000 bytes for one variable');
});

test('all variables: the default limit one byte over is refused as a file, on stdin and on the command line', () => {
  const over = JSON.stringify(variablesOf(variablesBytes + 1));
  const fromFile = timed(['render', dir, '--variables-file', file('all-over.json', over)]);
  assert.is(fromFile.status, 2, fromFile.stderr);
  assert.match(errorLines(fromFile.stderr)[0], /^vidkit: error: --variables-file \S+all-over\.json is over 16777216 bytes \(16 MiB\), the limit for all of a render's variables/);
  const fromStdin = timed(['render', dir, '--variables-file', '-'], over);
  assert.is(fromStdin.status, 2, fromStdin.stderr);
  assert.match(errorLines(fromStdin.stderr)[0], "vidkit: error: --variables-file - (stdin) is over 16777216 bytes (16 MiB), the limit for all of a render's variables");
  // The argument list caps one argument at 128 KiB: the limit is lowered to be reached there.
  const inline = timed(['render', dir, '--max-variables-bytes', '1000', '--variables', JSON.stringify(variablesOf(1001))]);
  assert.is(inline.status, 2, inline.stderr);
  assert.match(errorLines(inline.stderr)[0], `vidkit: error: --variables is 1001 bytes, over the limit of 1000 bytes for all of a render's variables`);
});

test('all variables: with --max-variables-bytes, one byte under renders from stdin; over, the variables together are named', () => {
  const output = path.join(out, 'all-under.mp4');
  assertRendered(timed(['render', dir, '--max-variables-bytes', '2000', '--variables-file', '-', '--output', output], JSON.stringify(variablesOf(2000))), output);
  // Two variables each within the limit of one, over the limit of all together once parsed.
  const two = JSON.stringify({ title: text(1500), more: text(1500) });
  const over = timed(['render', dir, '--max-variables-bytes', '3010', '--max-variable-bytes', '1500', '--variables', two]);
  assert.is(over.status, 2, over.stderr);
  assert.match(errorLines(over.stderr)[0], `vidkit: error: --variables is ${two.length} bytes, over the limit of 3010 bytes`);
});

test(`JSON nesting: ${MAX_JSON_DEPTH} levels render, one more is refused`, () => {
  const output = path.join(out, 'deep.mp4');
  // The variables object is the first level.
  const under = `{"deep":${nested(MAX_JSON_DEPTH - 1)}}`;
  assertRendered(timed(['render', dir, '--variables', under, '--output', output]), output);
  const over = timed(['render', dir, '--variables', `{"deep":${nested(MAX_JSON_DEPTH)}}`]);
  assert.is(over.status, 2, over.stderr);
  assert.equal(errorLines(over.stderr), [`vidkit: error: --variables nests arrays and objects deeper than the limit of ${MAX_JSON_DEPTH} levels`]);
  // Far deeper than any stack: still the same answer, not a crash.
  const far = timed(['render', dir, '--variables-file', file('far.json', `{"deep":${nested(1_000_000)}}`)]);
  assert.is(far.status, 2, far.stderr);
  assert.match(errorLines(far.stderr)[0], `deeper than the limit of ${MAX_JSON_DEPTH} levels`);
});

test('a batch line over the limit is a failed row naming its line and the limit; the line under renders', () => {
  const batch = file('lines.jsonl', [JSON.stringify({ outputKey: 'under.mp4', variables: variablesOf(1000) }), JSON.stringify({ outputKey: 'over.mp4', variables: variablesOf(1001) })].join('\n'));
  const outputDir = path.join(out, 'batch-lines');
  const run = timed(['render', dir, '--batch', batch, '--output-dir', outputDir, '--max-variables-bytes', '1000', '--json']);
  assert.is(run.status, 1, run.stderr);
  const rows = JSON.parse(run.stdout) as { line: number; status: string; error?: string }[];
  assert.equal(rows.map((r) => [r.line, r.status]), [
    [1, 'rendered'],
    [2, 'failed'],
  ]);
  assert.is(rows[1].error, `line 2: "variables" is 1001 bytes, over the limit of 1000 bytes for all of a render's variables; raise it with --max-variables-bytes (render() and the SDK: maxVariablesBytes; servers: VIDKIT_MAX_VARIABLES_BYTES)`);
  assertRendered({ status: 0, stdout: '', stderr: '' }, path.join(outputDir, 'under.mp4'));
  assert.not.ok(fs.existsSync(path.join(outputDir, 'over.mp4')));
});

test('a batch file over --max-batch-bytes is refused before any line is read; at the limit it renders', () => {
  const line = `${JSON.stringify({ outputKey: 'one.mp4', variables: { title: 'x' } })}\n`;
  const batch = file('whole.jsonl', line);
  const bytes = Buffer.byteLength(line);
  const refused = timed(['render', dir, '--batch', batch, '--output-dir', path.join(out, 'batch-file'), '--max-batch-bytes', String(bytes - 1)]);
  assert.is(refused.status, 2, refused.stderr);
  assert.equal(errorLines(refused.stderr), [`vidkit: error: batch file ${batch} is ${bytes} bytes, over the limit of ${bytes - 1} bytes; split it, or raise the limit with --max-batch-bytes`]);
  assert.not.ok(fs.existsSync(path.join(out, 'batch-file')));
  const rendered = timed(['render', dir, '--batch', batch, '--output-dir', path.join(out, 'batch-file'), '--max-batch-bytes', String(bytes)]);
  assertRendered(rendered, path.join(out, 'batch-file', 'one.mp4'));
  const without = timed(['render', dir, '--max-batch-bytes', '10']);
  assert.equal(errorLines(without.stderr), ['vidkit: error: --max-batch-bytes goes with --batch: it bounds the batch file']);
});

test('render() refuses a variable over options.maxVariableBytes with exit code 2, naming it', async () => {
  const err = await render({ projectDir: dir, variables: { title: text(101) }, maxVariableBytes: 100, output: path.join(out, 'api.mp4') }).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.instance(err, VidkitError);
  assert.is((err as VidkitError).exitCode, 2);
  assert.match((err as VidkitError).message, 'variable "title" is 101 bytes, over the limit of 100 bytes for one variable');
  const bad = await render({ projectDir: dir, maxVariableBytes: 0 }).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.match((bad as Error).message, 'options.maxVariableBytes must be a whole number of bytes above 0, got 0');
});

test('the cloud SDK and cloudfn render refuse before any request: config.variables, --variables-file, a batch line', () => {
  assert.throws(
    () => resolveConfig({ variables: { title: text(variableBytes + 1) } }),
    (e: Error) => e.message.startsWith(`[validateConfig] config.variables: variable "title" is ${variableBytes + 1} bytes, over the limit of ${variableBytes} bytes (8 MiB)`),
  );
  assert.is(resolveConfig({ variables: { title: text(101) }, maxVariableBytes: 101 }).maxVariableBytes, 101);
  // No AWS endpoint is reachable: a refusal that made a request would fail differently.
  const env = { AWS_ENDPOINT_URL: 'http://127.0.0.1:9', AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'x', VIDKIT_BUCKET: 'b', VIDKIT_SFN_ARN: 'arn:aws:states:us-east-1:000000000000:stateMachine:m' };
  const refused = timed(['cloudfn', 'render', dir, '--variables-file', file('cloud-over.json', JSON.stringify({ title: text(1001) })), '--max-variable-bytes', '1000'], undefined, env);
  assert.is(refused.status, 2, refused.stderr);
  assert.match(errorLines(refused.stderr)[0], '[validateConfig] config.variables: variable "title" is 1001 bytes, over the limit of 1000 bytes for one variable');
  const batch = file('cloud-lines.jsonl', `${JSON.stringify({ outputKey: 'a.mp4', variables: variablesOf(1000) })}\n${JSON.stringify({ outputKey: 'b.mp4', variables: variablesOf(1001) })}\n`);
  const dry = vidkit(['cloudfn', 'render-batch', dir, '--batch', batch, '--max-variables-bytes', '1000', '--dry-run', '--json', '--manifest', path.join(out, 'cloud.manifest.jsonl')], { env });
  const rows = JSON.parse(dry.stdout) as { line: number; status: string; error?: string }[];
  assert.equal(rows.map((r) => [r.line, r.status]), [
    [1, 'would-invoke'],
    [2, 'failed-to-start'],
  ], dry.stderr);
  assert.match(rows[1].error!, `line 2: "variables" is 1001 bytes, over the limit of 1000 bytes for all of a render's variables`);
});

test('the web templates answer a body nested past the limit with their 400, and the render server a line', () => {
  const composition = loadComposition(dir);
  // The body and its variables are two levels.
  const body = (levels: number) => new TextEncoder().encode(`{"variables":{"deep":${nested(levels - 2)}}}`);
  assert.throws(() => parseRenderRequest(body(MAX_JSON_DEPTH), composition), (e: Error & { status?: number }) => e.status === 400 && e.message === 'variable "deep": expected string, got array');
  assert.throws(
    () => parseRenderRequest(body(MAX_JSON_DEPTH + 1), composition),
    (e: Error & { status?: number }) => e.status === 400 && e.message === `request body nests arrays and objects deeper than the limit of ${MAX_JSON_DEPTH} levels`,
  );
  const line = (vars: unknown) => JSON.stringify({ id: 1, projectDir: dir, variables: vars, output: path.join(out, 'server.mp4'), timeoutSeconds: 10 });
  assert.is(parseRenderServerRequest(line({ title: text(100) }), 1, { variableBytes: 100, variablesBytes: 1000 }).variables.title, text(100));
  assert.throws(
    () => parseRenderServerRequest(line({ title: text(101) }), 1, { variableBytes: 100, variablesBytes: 1000 }),
    (e: Error) => e instanceof VidkitError && e.message.startsWith('stdin line 1: "variables": variable "title" is 101 bytes, over the limit of 100 bytes for one variable'),
  );
  assert.throws(() => parseRenderServerRequest(`{"id":1,"variables":{"deep":${nested(5000)}}}`, 2), (e: Error) => e.message === `stdin line 2 nests arrays and objects deeper than the limit of ${MAX_JSON_DEPTH} levels`);
});

test('the studio answers a body over its limit 413, too deep or with a variable over the limit 400, and still serves', async () => {
  // The preview reads its variable limits from its environment, as the servers do; vidkitServe passes this process's.
  process.env.VIDKIT_MAX_VARIABLE_BYTES = '100';
  const server: ServingCli = await vidkitServe(['preview', dir, '--port', '0']).finally(() => delete process.env.VIDKIT_MAX_VARIABLE_BYTES);
  try {
    const base = new URL(server.url);
    const post = (body: string) => httpRequest(server.url, '/__vidkit/studio/jobs', { method: 'POST', headers: { origin: base.origin, 'content-type': 'application/json' }, body });
    const started = Date.now();
    const big = await post(JSON.stringify({ composition: 'index.html', format: 'mp4', variables: { title: text(8 * 1024 * 1024) } }));
    assert.is(big.status, 413, big.body);
    assert.equal(JSON.parse(big.body), { error: 'the request body is over the limit of 8388608 bytes (8 MiB)' });
    const deep = await post(`{"composition":"index.html","format":"mp4","variables":{"deep":${nested(MAX_JSON_DEPTH)}}}`);
    assert.is(deep.status, 400, deep.body);
    assert.equal(JSON.parse(deep.body), { error: `the request body nests arrays and objects deeper than the limit of ${MAX_JSON_DEPTH} levels` });
    const variable = await post(JSON.stringify({ composition: 'index.html', format: 'mp4', variables: { title: text(101) } }));
    assert.is(variable.status, 400, variable.body);
    assert.match(JSON.parse(variable.body).error, '"variables": variable "title" is 101 bytes, over the limit of 100 bytes for one variable');
    assert.ok(Date.now() - started < 5000);
    const jobs = await httpRequest(server.url, '/__vidkit/studio/jobs');
    assert.is(jobs.status, 200);
    assert.equal(JSON.parse(jobs.body), [], 'nothing was queued');
  } finally {
    await server.stop();
  }
});

test.run();
