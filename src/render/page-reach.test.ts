import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { errorLines, tempDir, vidkitAsync } from '../test-support/cli';
import { decodeRgbFrame, rgbAt } from '../test-support/media';

// What a rendered page can reach on the network (docs/explanation/security-model.md), through real renders.
const work = tempDir('vidkit-reach-test-');

/** A 320x180, 0.2 s project holding `body` (and `script`, run at load). */
function project(name: string, body: string, script = ''): string {
  const dir = path.join(work, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    `<!doctype html><html data-composition-variables='[]'><head><style>html,body{margin:0;background:#000}
.box{position:absolute;top:40px;width:80px;height:80px}</style></head>
<body><div data-composition-id="${name}" data-width="320" data-height="180" data-duration="0.2">${body}</div><script>${script}</script></body></html>`,
  );
  return dir;
}

/** A real HTTP server standing in for a remote origin; it can only listen on loopback here. */
async function startOrigin(handle: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<{ url: string; close: () => void }> {
  const server = http.createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

const RED_PNG = execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'color=c=red:s=8x8', '-frames:v', '1', '-f', 'image2', '-c:v', 'png', '-']);

const reach = suite('what a rendered page can reach');

reach('an image on http://127.0.0.1 fails the render naming the URL and the flag; with --allow-private-network it renders', async () => {
  let requests = 0;
  const cdn = await startOrigin((_req, res) => {
    requests += 1;
    res.writeHead(200, { 'content-type': 'image/png' }).end(RED_PNG);
  });
  try {
    const dir = project('loopback-image', `<img src="${cdn.url}/red.png" style="position:absolute;left:0;top:0;width:320px;height:180px">`);
    const output = path.join(work, 'loopback-image.mp4');
    const refused = await vidkitAsync(['render', dir, '--output', output, '--workers', '1']);
    assert.is(refused.status, 1, refused.stderr);
    assert.equal(errorLines(refused.stderr), [
      `vidkit: error: media ${cdn.url}/red.png could not be fetched: 127.0.0.1 is a loopback address, refused (a local render allows private networks with --allow-private-network)`,
    ]);
    assert.is(requests, 0);
    assert.not.ok(fs.existsSync(output));

    const allowed = await vidkitAsync(['render', dir, '--output', output, '--workers', '1', '--allow-private-network']);
    assert.is(allowed.status, 0, allowed.stderr);
    const [r, g, b] = rgbAt(decodeRgbFrame(output, 0, 320, 180), 320, 160, 90);
    assert.ok(r > 240 && g < 15 && b < 15, `the image drew: ${[r, g, b]}`);
  } finally {
    cdn.close();
  }
});

reach('--max-asset-bytes caps each remote asset; a value that is not a positive whole number is bad input', async () => {
  const cdn = await startOrigin((_req, res) => res.writeHead(200, { 'content-type': 'image/png', 'content-length': RED_PNG.length }).end(RED_PNG));
  try {
    const dir = project('capped-image', `<img src="${cdn.url}/red.png">`);
    const output = path.join(work, 'capped-image.mp4');
    // The stand-in origin is on loopback.
    const capped = await vidkitAsync(['render', dir, '--output', output, '--workers', '1', '--allow-private-network', '--max-asset-bytes', '16']);
    assert.is(capped.status, 1, capped.stderr);
    assert.equal(errorLines(capped.stderr), [
      `vidkit: error: media ${cdn.url}/red.png could not be fetched: it is ${RED_PNG.length} bytes (Content-Length), over the limit of 16 bytes per asset (--max-asset-bytes)`,
    ]);
    const bad = await vidkitAsync(['render', dir, '--output', output, '--max-asset-bytes', '1.5']);
    assert.is(bad.status, 2);
    assert.equal(errorLines(bad.stderr), ['vidkit: error: --max-asset-bytes must be a whole number of bytes above 0, got "1.5"']);
  } finally {
    cdn.close();
  }
});

reach('the page reads a remote copy only where the origin allows it: no CORS header of its own', async () => {
  const cdn = await startOrigin((req, res) => {
    const headers: http.OutgoingHttpHeaders = { 'content-type': 'text/plain' };
    if (req.url === '/open.txt') headers['access-control-allow-origin'] = '*';
    // As S3 and CloudFront do: CORS headers only for a request that carries an Origin.
    if (req.url === '/reflecting.txt' && req.headers.origin) headers['access-control-allow-origin'] = req.headers.origin;
    res.writeHead(200, headers).end('data');
  });
  try {
    // Each box turns green when the page's fetch() of its URL can be read, red when CORS forbids it.
    const dir = project(
      'cors',
      '<div id="closed" class="box" style="left:20px"></div><div id="open" class="box" style="left:120px"></div><div id="reflecting" class="box" style="left:220px"></div>',
      `window.__vidkit.waitFor(Promise.all(['closed', 'open', 'reflecting'].map(function (id) {
        return fetch('${cdn.url}/' + id + '.txt').then(function (r) { return r.text(); }).then(
          function () { return '#00ff00'; }, function () { return '#ff0000'; }
        ).then(function (colour) { document.getElementById(id).style.background = colour; });
      })));`,
    );
    const output = path.join(work, 'cors.mp4');
    // The stand-in origin is on loopback.
    const run = await vidkitAsync(['render', dir, '--output', output, '--workers', '1', '--allow-private-network']);
    assert.is(run.status, 0, run.stderr);
    const frame = decodeRgbFrame(output, 0, 320, 180);
    const green = (x: number) => {
      const [r, g, b] = rgbAt(frame, 320, x, 80);
      return g > 200 && r < 60 && b < 60 ? 'read' : r > 200 && g < 60 && b < 60 ? 'refused' : `unclear ${[r, g, b]}`;
    };
    assert.equal({ closed: green(60), open: green(160), reflecting: green(260) }, { closed: 'refused', open: 'read', reflecting: 'read' });
  } finally {
    cdn.close();
  }
});

reach.run();
