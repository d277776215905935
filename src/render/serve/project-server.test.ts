// tier: unit
import * as fs from 'node:fs';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from '../../test-support/cli';
import { httpGet, httpRequest } from '../../test-support/http';
import { ProjectServer, serveProject } from './project-server';

const outside = tempDir('vidkit-outside-');
fs.writeFileSync(path.join(outside, 'secret.txt'), 'outside the project');
const dir = tempDir('vidkit-served-');
fs.writeFileSync(path.join(dir, 'index.html'), 'the composition');
fs.mkdirSync(path.join(dir, 'sub'));
fs.writeFileSync(path.join(dir, 'sub', 'index.html'), 'sub index');
fs.writeFileSync(path.join(dir, 'scripted.html'), '<!doctype html><head></head><body><script>go()</script></body>');
fs.writeFileSync(path.join(dir, 'sub', 'a b.txt'), 'spaced');
fs.writeFileSync(path.join(dir, 'sub', '.secret'), 'hidden');
fs.writeFileSync(path.join(dir, '.env'), 'TOKEN=1');
fs.mkdirSync(path.join(dir, '.git'));
fs.writeFileSync(path.join(dir, '.git', 'config'), '[core]');
fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(dir, 'escape.txt'));
fs.symlinkSync(outside, path.join(dir, 'escape-dir'));
fs.symlinkSync('../outside.txt', path.join(dir, 'sub', 'relative-escape.txt'));
fs.writeFileSync(path.join(path.dirname(dir), 'outside.txt'), 'beside the project');
fs.symlinkSync('index.html', path.join(dir, 'inner-link.html'));
fs.symlinkSync('sub', path.join(dir, 'inner-dir'));
// A link inside a linked folder that leads further out: not the project's own.
const further = tempDir('vidkit-further-');
fs.writeFileSync(path.join(further, 'far.txt'), 'further out');
fs.symlinkSync(path.join(further, 'far.txt'), path.join(outside, 'far-link.txt'));
// Links straight to hidden files and folders outside the project, and one through a link with a plain name.
fs.writeFileSync(path.join(outside, '.env'), 'TOKEN=outside');
fs.mkdirSync(path.join(outside, '.config'));
fs.writeFileSync(path.join(outside, '.config', 'settings.txt'), 'hidden folder');
fs.symlinkSync(path.join(outside, '.env'), path.join(outside, 'plain-name.txt'));
fs.symlinkSync(path.relative(dir, path.join(outside, '.env')), path.join(dir, 'e.txt'));
fs.symlinkSync(path.join(outside, '.config', 'settings.txt'), path.join(dir, 'settings.txt'));
fs.symlinkSync(path.join(outside, '.config'), path.join(dir, 'config-dir'));
fs.symlinkSync(path.join(outside, 'plain-name.txt'), path.join(dir, 'via-plain.txt'));

const confined = suite('project server: confinement');
let server: ProjectServer;

confined.before(async () => {
  server = await serveProject(dir);
});
confined.after(() => server.close());

confined('serves project files, directory index pages and symlinks that stay inside the project', async () => {
  for (const [urlPath, body] of [
    ['/index.html', 'the composition'],
    ['/sub/', 'sub index'],
    ['/sub/a%20b.txt', 'spaced'],
    ['/inner-link.html', 'the composition'],
    ['/inner-dir/index.html', 'sub index'],
  ]) {
    const res = await httpGet(server.url, urlPath);
    assert.equal([urlPath, res.status, res.body], [urlPath, 200, body]);
  }
});

confined('a page\'s body scripts are marked to run once its fonts are in; a frame\'s document is sent as written', async () => {
  const page = await httpRequest(server.url, '/scripted.html', { headers: { 'sec-fetch-dest': 'document' } });
  assert.match(page.body, '<body><script type="text/vidkit-after-fonts">go()</script>');
  const framed = await httpRequest(server.url, '/scripted.html', { headers: { 'sec-fetch-dest': 'iframe' } });
  assert.is(framed.body, '<!doctype html><head></head><body><script>go()</script></body>');
});

confined('a symlink the project contains is followed wherever it leads, as the author made it; a link inside its target leading further out is 404', async () => {
  for (const [urlPath, body] of [
    ['/escape.txt', 'outside the project'],
    ['/escape-dir/secret.txt', 'outside the project'],
  ]) {
    const res = await httpGet(server.url, urlPath);
    assert.equal([urlPath, res.status, res.body], [urlPath, 200, body]);
  }
  const res = await httpGet(server.url, '/escape-dir/far-link.txt');
  assert.equal(res.status, 404);
  assert.not.match(res.body, /further/);
});

confined('a link to a hidden file or into a hidden folder outside the project is 404, at any segment of its target, written or resolved', async () => {
  for (const urlPath of ['/e.txt', '/settings.txt', '/config-dir/settings.txt', '/via-plain.txt', '/escape-dir/plain-name.txt']) {
    const res = await httpGet(server.url, urlPath);
    assert.equal([urlPath, res.status], [urlPath, 404]);
    assert.not.match(res.body, /TOKEN|hidden folder/);
  }
  assert.is((await httpGet(server.url, '/escape-dir/secret.txt')).status, 200, 'a plain file beside them is still served');
});

confined('with links kept inside (a cloud site), a symlink that leads out of the project is 404, file or directory, absolute or relative', async () => {
  const inside = await serveProject(dir, { links: 'inside' });
  try {
    for (const urlPath of ['/escape.txt', '/escape-dir/secret.txt', '/sub/relative-escape.txt']) {
      const res = await httpGet(inside.url, urlPath);
      assert.equal([urlPath, res.status], [urlPath, 404]);
      assert.not.match(res.body, /outside|beside/);
    }
    assert.is((await httpGet(inside.url, '/inner-dir/index.html')).status, 200);
  } finally {
    await inside.close();
  }
});

confined('dotfiles and everything under a dot-directory are 404, however the path is spelled', async () => {
  for (const urlPath of ['/.env', '/.git/config', '/sub/.secret', '/%2eenv', '/%2Egit/config', '/sub/%2esecret', '/sub/../.env']) {
    const res = await httpGet(server.url, urlPath);
    assert.equal([urlPath, res.status], [urlPath, 404]);
    assert.not.match(res.body, /TOKEN|core|hidden/);
  }
});

const hosts = suite('project server: Host header');
let hostServer: ProjectServer;

hosts.before(async () => {
  hostServer = await serveProject(dir);
});
hosts.after(() => hostServer.close());

hosts('answers loopback names with its port; any other name or port is 403 (DNS rebinding)', async () => {
  const port = new URL(hostServer.url).port;
  for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`, `preview.localhost:${port}`]) {
    assert.equal([host, (await httpGet(hostServer.url, '/index.html', host)).status], [host, 200]);
  }
  for (const host of [`evil.example:${port}`, `127.0.0.1.evil.example:${port}`, 'localhost', `localhost:${Number(port) + 1}`, `192.168.1.20:${port}`, `localhost:${port}@evil.example`]) {
    const res = await httpGet(hostServer.url, '/index.html', host);
    assert.equal([host, res.status], [host, 403]);
    assert.not.match(res.body, /composition/);
  }
});

hosts('bound to another address, an IP address with the port is answered too, a name still is not', async () => {
  const wide = await serveProject(dir, { host: '0.0.0.0' });
  try {
    const port = new URL(wide.url).port;
    assert.is((await httpGet(wide.url, '/index.html', `192.168.1.20:${port}`)).status, 200);
    assert.is((await httpGet(wide.url, '/index.html', `localhost:${port}`)).status, 200);
    assert.is((await httpGet(wide.url, '/index.html', `evil.example:${port}`)).status, 403);
  } finally {
    await wide.close();
  }
});

confined.run();
hosts.run();
