import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PACKAGE_ROOT } from './package-info';

// The addon built by `npm run build:native`, with libav linked in (docs/explanation/video-pipeline.md).
const ADDON = path.join(PACKAGE_ROOT, 'native', `vidkit.linux-${process.arch}-gnu.node`);

function tool(name: string, args: string[]): string {
  return execFileSync(name, [...args, ADDON], { encoding: 'utf8', maxBuffer: 64 << 20 });
}

test('the addon depends on no shared library but glibc and libgcc: libav and the codecs are inside', () => {
  const needed = [...tool('readelf', ['-d']).matchAll(/\(NEEDED\)\s+Shared library: \[(.+)\]/g)].map((m) => m[1]);
  assert.ok(needed.includes('libc.so.6'), needed.join(' '));
  const foreign = needed.filter((name) => !/^(libc|libm|libmvec|libgcc_s|ld-linux[\w.-]*)\.so\.\d+$/.test(name));
  assert.equal(foreign, []);
});

test('every symbol the addon imports is versioned by glibc or libgcc, so none waits for a missing library', () => {
  const imports = tool('objdump', ['-T'])
    .split('\n')
    .filter((line) => line.includes('*UND*') && !/\sw\s/.test(line));
  assert.ok(imports.length > 0);
  const unversioned = imports.filter((line) => !/\((GLIBC|GCC)_[\d.]+\)/.test(line));
  assert.equal(unversioned, []);
});

test('the newest glibc symbol it needs is at most 2.34, so it loads on Amazon Linux 2023', () => {
  const versions = [...tool('objdump', ['-T']).matchAll(/\(GLIBC_(\d+)\.(\d+)(?:\.\d+)?\)/g)].map((m) => [
    Number(m[1]),
    Number(m[2]),
  ]);
  const newest = versions.reduce((a, b) => (b[0] > a[0] || (b[0] === a[0] && b[1] > a[1]) ? b : a));
  assert.ok(newest[0] === 2 && newest[1] <= 34, `GLIBC_${newest.join('.')}`);
});

test.run();
