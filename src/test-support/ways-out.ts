import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Every way a page can send something out of the browser, each tried by the composition
 * {@link networkWaysProject} writes when its `way` variable names it (`all`: every one at once).
 * Each reaches `<canary>/way/<name>` (a WebSocket at `ws:`, WebRTC and WebTransport at the UDP and
 * TCP of a second canary) and settles once it got an answer or failed, so a render that may reach
 * the canary sees every way arrive before its first frame.
 */
export const NETWORK_WAYS = [
  'fetch',
  'keepalive',
  'beacon',
  'iframe',
  'data-iframe',
  'blob-iframe',
  'dedicated-worker',
  'shared-worker',
  'service-worker',
  'websocket',
  'eventsource',
  'prefetch',
  'webrtc',
  'webtransport',
] as const;

export type NetworkWay = (typeof NETWORK_WAYS)[number];

/** The ways that never reach a canary, allowed or not: vidkit's browsers send no UDP (WebRTC's STUN, QUIC). */
export const UDP_WAYS: readonly NetworkWay[] = ['webrtc', 'webtransport'];

/** The canary path each way reaches when it may. */
export function wayPath(way: NetworkWay): string {
  return way === 'eventsource' ? '/way/eventsource/events' : `/way/${way}`;
}

const WAY_CODE: Record<NetworkWay, string> = {
  fetch: `() => fetch(C + '/way/fetch').then((r) => r.text())`,
  keepalive: `() => fetch(C + '/way/keepalive', { method: 'POST', body: 'x', keepalive: true, mode: 'no-cors' })`,
  beacon: `() => Promise.resolve(navigator.sendBeacon(C + '/way/beacon', 'x'))`,
  iframe: `() => frameLoaded(C + '/way/iframe')`,
  'data-iframe': `() => frameMessage('data:text/html,' + encodeURIComponent(reporter(C + '/way/data-iframe')))`,
  'blob-iframe': `() => frameMessage(URL.createObjectURL(new Blob([reporter(C + '/way/blob-iframe')], { type: 'text/html' })))`,
  'dedicated-worker': `() => new Promise((resolve, reject) => {
    const w = new Worker('reach.js');
    w.onmessage = (e) => (e.data === 'ok' ? resolve() : reject(e.data));
    w.onerror = () => reject('worker error');
    w.postMessage(C + '/way/dedicated-worker');
  })`,
  'shared-worker': `() => new Promise((resolve, reject) => {
    const w = new SharedWorker('shared.js');
    w.port.onmessage = (e) => (e.data === 'ok' ? resolve() : reject(e.data));
    w.onerror = () => reject('shared worker error');
    w.port.postMessage(C + '/way/shared-worker');
  })`,
  'service-worker': `() => navigator.serviceWorker.register('sw.js?' + encodeURIComponent(C + '/way/service-worker')).then((reg) => new Promise((resolve, reject) => {
    const sw = reg.installing || reg.waiting || reg.active;
    const settled = () => (sw.state === 'activated' ? resolve() : sw.state === 'redundant' ? reject('redundant') : undefined);
    sw.addEventListener('statechange', settled);
    settled();
  }))`,
  websocket: `() => new Promise((resolve, reject) => {
    const ws = new WebSocket(C.replace(/^http/, 'ws') + '/way/websocket');
    ws.onopen = () => { ws.close(); resolve(); };
    ws.onerror = () => reject('websocket error');
  })`,
  eventsource: `() => new Promise((resolve, reject) => {
    const es = new EventSource(C + '/way/eventsource/events');
    es.onmessage = () => { es.close(); resolve(); };
    es.onerror = () => { es.close(); reject('eventsource error'); };
  })`,
  prefetch: `() => new Promise((resolve, reject) => {
    const link = document.createElement('link');
    link.rel = 'prefetch';
    link.href = C + '/way/prefetch';
    link.onload = resolve;
    link.onerror = () => reject('prefetch error');
    document.head.append(link);
  })`,
  webrtc: `async () => {
    const pc = new RTCPeerConnection({ iceServers: [{ urls: 'stun:' + U }] });
    pc.createDataChannel('way');
    const gathered = new Promise((resolve) => (pc.onicegatheringstatechange = () => pc.iceGatheringState === 'complete' && resolve()));
    await pc.setLocalDescription(await pc.createOffer());
    await gathered;
    pc.close();
  }`,
  webtransport: `() => {
    if (typeof WebTransport === 'undefined') return Promise.resolve();
    const t = new WebTransport('https://' + U + '/way/webtransport');
    t.closed.catch(() => undefined);
    return t.ready;
  }`,
};

/**
 * Writes the network-ways composition into `dir` (320x180, 0.1 s): `canary` is the HTTP canary's
 * URL, `udp` the `host:port` of the one that counts datagrams.
 */
export function networkWaysProject(dir: string, canary: string, udp: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const declarations = JSON.stringify([{ id: 'way', type: 'enum', options: ['all', ...NETWORK_WAYS], default: 'all' }]);
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    `<!doctype html><html data-composition-variables='${declarations}'><head><style>html,body{margin:0;background:#000}</style></head>
<body><div data-composition-id="ways-out" data-width="320" data-height="180" data-duration="0.1"></div>
<script>
const C = ${JSON.stringify(canary)};
const U = ${JSON.stringify(udp)};
const frame = (src) => { const f = document.createElement('iframe'); f.src = src; document.body.append(f); return f; };
const frameLoaded = (src) => new Promise((resolve) => (frame(src).onload = resolve));
const reporter = (url) => '<script>fetch(' + JSON.stringify(url) + ').then(() => parent.postMessage("ok", "*"), (e) => parent.postMessage(String(e), "*"))<' + '/script>';
const frameMessage = (src) => new Promise((resolve, reject) => {
  const f = frame(src);
  addEventListener('message', (e) => e.source === f.contentWindow && (e.data === 'ok' ? resolve() : reject(e.data)));
});
const WAYS = {
${NETWORK_WAYS.map((way) => `  ${JSON.stringify(way)}: ${WAY_CODE[way]},`).join('\n')}
};
const way = window.__vidkit.getVariables().way;
// Whether a way got through is for the canary to say: the page goes on either way.
window.__vidkit.waitFor(Promise.all((way === 'all' ? Object.keys(WAYS) : [way]).map((name) => WAYS[name]().catch(() => undefined))));
</script></body></html>
`,
  );
  fs.writeFileSync(path.join(dir, 'reach.js'), `onmessage = (e) => fetch(e.data).then(() => postMessage('ok'), (err) => postMessage(String(err)));\n`);
  fs.writeFileSync(
    path.join(dir, 'shared.js'),
    `onconnect = (c) => { const port = c.ports[0]; port.onmessage = (e) => fetch(e.data).then(() => port.postMessage('ok'), (err) => port.postMessage(String(err))); };\n`,
  );
  fs.writeFileSync(
    path.join(dir, 'sw.js'),
    `const target = decodeURIComponent(location.search.slice(1));\nself.addEventListener('install', (e) => e.waitUntil(fetch(target)));\nself.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));\n`,
  );
  return dir;
}

/** `value` as a JavaScript literal that can stand inside an inline `<script>`. */
function inline(value: string): string {
  return JSON.stringify(value).replace(/<\//g, '<\\/');
}

/** A red PNG of `size` square pixels, made with ffmpeg. */
export function redPng(size: number): Buffer {
  return execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', `color=c=red:s=${size}x${size}`, '-frames:v', '1', '-f', 'image2', '-c:v', 'png', '-']);
}

/**
 * Every way a page can try to read a file it should not have. Each draws its cell of a 4x4 grid
 * (80x45 CSS pixels each, in this order, row by row) red when it got the file: a frame with no
 * red in those cells holds none of them. The last three are controls that must turn red: a project
 * file read by fetch(), a project page in a frame, and a file under a folder the project links to
 * (the author's link, followed): the same mechanisms on what the page may have.
 */
export const FILE_WAYS = [
  'file-img',
  'file-iframe',
  'file-fetch',
  'symlink-out',
  'symlink-to-dotfile',
  'symlink-to-hidden-outside',
  'dotfile',
  'dot-dir',
  'parent-dir',
  'encoded-parent',
  'data-iframe-file',
  'blob-iframe-file',
  'double-encoded-parent',
  'control-fetch',
  'control-iframe',
  'control-link',
] as const;

export type FileWay = (typeof FILE_WAYS)[number];

/**
 * Writes the file-ways composition into `dir` (320x180, 0.1 s), with `outside` beside it holding
 * the red files a page must never reach: `outside/red.png`, `outside/red.html`. Inside the project,
 * `.hidden.png` and `.git/red.png` (hidden), `shared` (the author's link to a folder beside the
 * project holding `visible.png` and `escape.png`, a link from there on to outside/red.png, which
 * a link inside a link's target may not follow), `public.png` (a link to .hidden.png), `env.png`
 * (the author's own link straight to `outside/.env.png`, a hidden file outside), and the controls'
 * `visible.png` and `visible.html`.
 */
export function fileWaysProject(dir: string, outside: string): string {
  fs.mkdirSync(dir, { recursive: true });
  fs.mkdirSync(outside, { recursive: true });
  const red = redPng(8);
  fs.writeFileSync(path.join(outside, 'red.png'), red);
  fs.writeFileSync(path.join(outside, 'red.html'), '<body style="margin:0;background:#f00"><script>parent.postMessage("read", "*")</script></body>');
  fs.writeFileSync(path.join(dir, '.hidden.png'), red);
  fs.mkdirSync(path.join(dir, '.git'), { recursive: true });
  fs.writeFileSync(path.join(dir, '.git', 'red.png'), red);
  const shared = path.join(path.dirname(dir), 'shared');
  fs.mkdirSync(shared, { recursive: true });
  fs.writeFileSync(path.join(shared, 'visible.png'), red);
  fs.symlinkSync(path.join(outside, 'red.png'), path.join(shared, 'escape.png'));
  fs.symlinkSync(shared, path.join(dir, 'shared'));
  fs.symlinkSync('.hidden.png', path.join(dir, 'public.png'));
  fs.writeFileSync(path.join(outside, '.env.png'), red);
  fs.symlinkSync(path.relative(dir, path.join(outside, '.env.png')), path.join(dir, 'env.png'));
  fs.writeFileSync(path.join(dir, 'visible.png'), red);
  fs.writeFileSync(path.join(dir, 'visible.html'), '<body style="margin:0;background:#f00"><script>parent.postMessage("read", "*")</script></body>');
  const file = (name: string) => `file://${path.join(outside, name)}`;
  const relative = path.relative(dir, path.join(outside, 'red.png')).split(path.sep).join('/');
  const beside = relative.replace(/^(\.\.\/)+/, '');
  // What each way asks for with fetch(); the iframe ways load a page that tries, and report.
  const fetched: Partial<Record<FileWay, string>> = {
    'file-fetch': file('red.png'),
    'symlink-out': 'shared/escape.png',
    'symlink-to-dotfile': 'public.png',
    'symlink-to-hidden-outside': 'env.png',
    dotfile: '.hidden.png',
    'dot-dir': '.git/red.png',
    'parent-dir': relative,
    'encoded-parent': `/%2e%2e/${beside}`,
    'double-encoded-parent': `/%252e%252e/${beside}`,
    'control-fetch': 'visible.png',
    'control-link': 'shared/visible.png',
  };
  const cells = FILE_WAYS.map(
    (way, i) => `<div id="${way}" style="position:absolute;left:${(i % 4) * 80}px;top:${Math.floor(i / 4) * 45}px;width:80px;height:45px"></div>`,
  ).join('\n');
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    `<!doctype html><html data-composition-variables='[]'><head><style>html,body{margin:0;background:#000;overflow:hidden}</style></head>
<body><div data-composition-id="file-ways" data-width="320" data-height="180" data-duration="0.1">
${cells}
</div>
<script>
const paint = (id) => (document.getElementById(id).style.background = '#f00');
const tries = Object.entries(${JSON.stringify(fetched)}).map(([id, url]) =>
  fetch(url).then((r) => (r.ok ? r.blob() : null)).then((b) => b && b.size > 0 && paint(id), () => undefined),
);
// An image the page never shows (a shown one that fails would fail the render first).
tries.push(new Promise((resolve) => {
  const image = new Image();
  image.onload = () => resolve(paint('file-img'));
  image.onerror = resolve;
  image.src = ${JSON.stringify(file('red.png'))};
}));
const reader = ${inline(`<script>fetch(${JSON.stringify(file('red.png'))}).then((r) => r.blob()).then((b) => parent.postMessage(b.size > 0 ? "read" : "empty", "*"), () => parent.postMessage("refused", "*"))</` + 'script>')};
const frame = (id, src) => {
  const f = document.createElement('iframe');
  f.src = src;
  f.style.cssText = 'position:absolute;left:0;top:0;width:100%;height:100%;border:0';
  document.getElementById(id).append(f);
  addEventListener('message', (e) => e.source === f.contentWindow && e.data === 'read' && paint(id));
  return f;
};
// A file: page would say it loaded; a refused one leaves the frame on its blank page, which fires nothing.
const fileFrame = frame('file-iframe', ${JSON.stringify(file('red.html'))});
const control = frame('control-iframe', 'visible.html');
tries.push(new Promise((resolve) => addEventListener('message', (e) => e.source === control.contentWindow && resolve())));
for (const [id, src] of [
  ['data-iframe-file', 'data:text/html,' + encodeURIComponent(reader)],
  ['blob-iframe-file', URL.createObjectURL(new Blob([reader], { type: 'text/html' }))],
]) {
  const f = frame(id, src);
  tries.push(new Promise((resolve) => addEventListener('message', (e) => e.source === f.contentWindow && resolve())));
}
window.__vidkit.waitFor(Promise.all(tries).then(() => {
  // Still the blank page of its own origin, or another document the page cannot read.
  if (fileFrame.contentDocument === null) paint('file-iframe');
}));
</script></body></html>
`,
  );
  return dir;
}
