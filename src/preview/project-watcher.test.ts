// tier: unit
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import writeFileAtomic from 'write-file-atomic';
import { tempDir } from '../test-support/cli';
import { watchProject } from './project-watcher';

const settle = () => new Promise((resolve) => setTimeout(resolve, 400));

test('every save is seen, also after one that renamed a new file over the old (as editors and the studio save); not those in dot-folders or out/', async () => {
  const dir = tempDir('vidkit-watch-');
  fs.mkdirSync(path.join(dir, 'compositions'));
  fs.writeFileSync(path.join(dir, 'index.html'), 'a');
  const seen: string[] = [];
  const stop = watchProject(dir, (file) => seen.push(path.relative(dir, file)));
  try {
    await settle();
    writeFileAtomic.sync(path.join(dir, 'index.html'), 'b');
    await settle();
    writeFileAtomic.sync(path.join(dir, 'index.html'), 'c');
    await settle();
    fs.writeFileSync(path.join(dir, 'index.html'), 'd');
    await settle();
    fs.writeFileSync(path.join(dir, 'compositions', 'scene.html'), 'e');
    await settle();
    fs.mkdirSync(path.join(dir, 'new'));
    await settle();
    fs.writeFileSync(path.join(dir, 'new', 'card.html'), 'f');
    await settle();
    fs.mkdirSync(path.join(dir, '.vidkit'));
    fs.writeFileSync(path.join(dir, '.vidkit', 'studio-history.json'), '{}');
    fs.mkdirSync(path.join(dir, 'out'));
    fs.writeFileSync(path.join(dir, 'out', 'video.mp4'), '');
    await settle();
  } finally {
    stop();
  }
  assert.equal(seen, ['index.html', 'index.html', 'index.html', path.join('compositions', 'scene.html'), 'new', path.join('new', 'card.html')]);
});

test.run();
