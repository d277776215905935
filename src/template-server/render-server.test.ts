import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FIXTURES, built, errorLines, tempDir } from '../test-support/cli';
import { decodeRgbFrame, ffprobe, rgbAt } from '../test-support/media';
import { markedProcesses, processMarker, renderProcesses } from '../test-support/templates';

// `vidkit render-server` as its caller (the Python template) runs it: a child process fed one JSON
// line per request, answering one JSON line each.
const CLI = built('cli', 'main.js');
const out = tempDir('vidkit-render-server-out-');
const projectDir = path.join(FIXTURES, 'color-var');

function startServer(env: Record<string, string>) {
  const child = spawn(process.execPath, [CLI, 'render-server'], {
    env: { ...process.env, RENDER_WIDTH: '320', RENDER_HEIGHT: '180', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const answers = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return {
    pid: child.pid!,
    stderr: () => stderr,
    async send(line: string): Promise<Record<string, unknown>> {
      child.stdin.write(line + '\n');
      const next = await answers.next();
      assert.not.ok(next.done, `render-server ended without answering:\n${stderr}`);
      return JSON.parse(next.value as string) as Record<string, unknown>;
    },
    end(): Promise<number | null> {
      child.stdin.end();
      return exited;
    },
  };
}

/** The browsers `pid` launched (their leaders), among the processes carrying `marker`. */
const browsersOf = (pid: number, marker: string) => markedProcesses(marker).filter((p) => p.ppid === pid && /chrom/.test(p.cmdline)).map((p) => p.pid);

const request = (id: unknown, fill: string, output: string) => JSON.stringify({ id, projectDir, variables: { fill }, output, timeoutSeconds: 60 });

const colourOf = (file: string) => {
  assert.is(ffprobe(file).streams[0].nb_read_frames, '15');
  return rgbAt(decodeRgbFrame(file, 14, 320, 180), 320, 160, 90);
};

test('answers each request line on one warm browser, a malformed line with a bad-input error; the end of stdin exits 0 and leaves no browser', async () => {
  const marker = processMarker();
  const tmp = tempDir('vidkit-render-server-tmp-');
  const server = startServer({ ...marker.env, TMPDIR: tmp });
  const red = path.join(out, 'red.mp4');
  assert.equal(await server.send(request(1, '#ff0000', red)), { id: 1, ok: true }, server.stderr());
  const browsers = browsersOf(server.pid, marker.entry);
  assert.is(browsers.length, 1, 'one browser launched');

  const refused = await server.send('{"id": 2, "projectDir": ');
  assert.equal([refused.id, refused.ok, refused.kind], [null, false, 'bad-input']);
  assert.match(String(refused.error), /^stdin line 2 is not JSON/);
  const wrongShape = await server.send(JSON.stringify({ id: 'x', projectDir: 'relative', variables: {}, output: path.join(out, 'x.mp4'), timeoutSeconds: 60 }));
  assert.equal(wrongShape, { id: 'x', ok: false, error: 'stdin line 3: "projectDir" must be an absolute path', kind: 'bad-input' });

  const green = path.join(out, 'green.mp4');
  assert.equal(await server.send(request('two', '#00ff00', green)), { id: 'two', ok: true }, server.stderr());
  assert.equal(browsersOf(server.pid, marker.entry), browsers, 'the second request launched a browser');
  const undeclared = await server.send(request(4, '#0000ff', path.join(out, 'undeclared.mp4')).replace('"fill"', '"nope"'));
  assert.equal([undeclared.ok, undeclared.kind], [false, 'failed']);
  assert.match(String(undeclared.error), /^render failed \(exit 2\): vidkit: error: .*variable "nope" is not declared/);

  assert.is(await server.end(), 0, server.stderr());
  const [r, g] = [colourOf(red), colourOf(green)];
  assert.ok(r[0] > 230 && r[1] < 25 && r[2] < 25, `first render ${r}`);
  assert.ok(g[0] < 25 && g[1] > 230 && g[2] < 25, `second render ${g}`);
  assert.equal(fs.readdirSync(out).sort(), ['green.mp4', 'red.mp4'], 'a failed render or a partial file was left');
  assert.equal(renderProcesses(marker.entry), [], 'a browser outlived the server');
  assert.equal(fs.readdirSync(tmp), [], 'the pool left its files');
});

test('a render past its timeoutSeconds is answered kind "timeout" and the server goes on', async () => {
  const marker = processMarker();
  const server = startServer(marker.env);
  const endless = JSON.stringify({ id: 1, projectDir: path.join(FIXTURES, 'endless-frame'), variables: {}, output: path.join(out, 'endless.mp4'), timeoutSeconds: 2 });
  const answer = await server.send(endless);
  assert.equal([answer.id, answer.ok, answer.kind], [1, false, 'timeout']);
  assert.match(String(answer.error), /^render timed out after 2 s \(RENDER_TIMEOUT_SECONDS\)/);
  assert.equal(renderProcesses(marker.entry), [], 'the timed-out browser still runs');
  assert.not.ok(fs.existsSync(path.join(out, 'endless.mp4')));
  assert.equal(await server.send(request(2, '#ff0000', path.join(out, 'after.mp4'))), { id: 2, ok: true }, server.stderr());
  assert.is(await server.end(), 0, server.stderr());
  fs.rmSync(path.join(out, 'after.mp4'));
});

test('RENDER_FPS that is not a positive whole number: exit 2 before any request', async () => {
  const server = startServer({ RENDER_FPS: '0' });
  assert.is(await server.end(), 2);
  assert.equal(errorLines(server.stderr()), ['vidkit: error: RENDER_FPS must be a positive whole number, got "0"']);
});

test.run();
