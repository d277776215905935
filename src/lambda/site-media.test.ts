// tier: unit
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from '../test-support/cli';
import { siteAssets, timelineAssets } from './site-media';

// The cloud chunk and assemble steps reach media through these routers: the same confinement and
// remote fetch policy as a local render, with no option to widen it.
const site = tempDir('vidkit-site-');
fs.writeFileSync(path.join(site, 'tone.wav'), 'wav bytes');
fs.writeFileSync(path.join(site, '.env'), 'TOKEN=1');
const outside = path.join(tempDir('vidkit-outside-'), 'secret.wav');
fs.writeFileSync(outside, 'outside the site');
fs.symlinkSync(outside, path.join(site, 'escape.wav'));

const cloudMedia = suite('cloud site media');

cloudMedia('the soundtrack reads site files, never a dotfile or a file a symlink leads to outside the site', async () => {
  const assets = timelineAssets(site, tempDir('vidkit-assets-'));
  assert.is(await assets.localFile('http://site.vidkit.invalid/tone.wav'), path.join(site, 'tone.wav'));
  assert.is(await assets.localFile('http://site.vidkit.invalid/.env'), undefined);
  assert.is(await assets.localFile('http://site.vidkit.invalid/escape.wav'), undefined);
});

cloudMedia('a remote asset on a loopback address is refused before any request', async () => {
  let requests = 0;
  const server = http.createServer((_req, res) => {
    requests += 1;
    res.end('wav bytes');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/tone.wav`;
  try {
    const assets = siteAssets(site, tempDir('vidkit-assets-'), 'http://127.0.0.1:1/');
    const error = await assets.localFile(url).then(() => 'fetched', (err: Error) => err.message);
    assert.is(error, `media ${url} could not be fetched: 127.0.0.1 is a loopback address, refused (a local render allows private networks with --allow-private-network)`);
    assert.is(requests, 0);
  } finally {
    server.close();
  }
});

cloudMedia.run();
