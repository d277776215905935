import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadComposition } from './composition/composition';
import { renderRequestSchema } from './composition/render-request';
import { FIXTURES, REPO_ROOT, built, tempDir } from './test-support/cli';
import { fontsStylesheet } from './fonts/bundled-fonts';
import { PEER_FAMILIES, staticFolder } from './fonts/static-fonts';
import { installTemplateAssets } from './template-assets';

const files = (dir: string): string[] => fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => fs.statSync(path.join(dir, f)).isFile()).sort();

test('installTemplateAssets copies the built player, the bundled fonts and examples/ui-3d-reveal, replacing a stale copy', () => {
  const app = tempDir('vidkit-template-assets-');
  try {
    const stale = path.join(app, 'public', 'compositions', 'ui-3d-reveal');
    fs.mkdirSync(stale, { recursive: true });
    fs.writeFileSync(path.join(stale, 'old.html'), 'stale');
    const other = path.join(app, 'public', 'compositions', 'mine');
    fs.mkdirSync(other);
    const userComposition = fs.readFileSync(path.join(FIXTURES, 'color-var', 'index.html'), 'utf8');
    fs.writeFileSync(path.join(other, 'index.html'), userComposition);

    installTemplateAssets({ playerFile: path.join(app, 'public', 'vidkit-player.js'), compositionsDir: path.join(app, 'public', 'compositions') });

    assert.ok(fs.readFileSync(path.join(app, 'public', 'vidkit-player.js')).equals(fs.readFileSync(built('player', 'vidkit-player.js'))));
    const fonts = path.join(app, 'public', '__vidkit-fonts');
    assert.is(fs.readFileSync(path.join(fonts, 'fonts.css'), 'utf8'), fontsStylesheet());
    const named = [...fontsStylesheet().matchAll(/url\(([^)]+)\)/g)].map((m) => m[1]);
    for (const f of named) assert.ok(fs.statSync(path.join(fonts, f)).size > 1000, f);
    assert.match(fs.readFileSync(path.join(fonts, 'inter', 'LICENSE'), 'utf8'), /SIL Open Font License/);
    // HyperFrames' static faces: each family declared, each face the @fontsource package's file byte for byte.
    for (const { family, pkg } of PEER_FAMILIES) {
      assert.ok(fontsStylesheet().includes(`font-family: ${JSON.stringify(family)};`), family);
      const faces = named.filter((f) => f.startsWith(`${staticFolder(pkg)}/`));
      assert.ok(faces.length > 0, `${family}: no static face exported`);
      const packaged = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), 'files');
      for (const f of faces) assert.ok(fs.readFileSync(path.join(fonts, f)).equals(fs.readFileSync(path.join(packaged, path.basename(f)))), f);
    }
    const example = path.join(REPO_ROOT, 'examples', 'ui-3d-reveal');
    assert.equal(files(stale), files(example));
    for (const f of files(example)) assert.ok(fs.readFileSync(path.join(stale, f)).equals(fs.readFileSync(path.join(example, f))), f);
    assert.is(fs.readFileSync(path.join(other, 'index.html'), 'utf8'), userComposition, 'other compositions are left alone');
    // Each composition's request contract, beside it: what the Python template validates requests with.
    const compositions = path.join(app, 'public', 'compositions');
    assert.equal(fs.readdirSync(compositions).filter((f) => f.endsWith('.json')).sort(), ['mine.request.schema.json', 'ui-3d-reveal.request.schema.json']);
    const mine = JSON.parse(fs.readFileSync(path.join(compositions, 'mine.request.schema.json'), 'utf8'));
    assert.equal(mine, renderRequestSchema(loadComposition(other)));
  } finally {
    fs.rmSync(app, { recursive: true, force: true });
  }
});

test.run();
