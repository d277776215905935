import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir, vidkit } from '../test-support/cli';
import { decodeRgbFrame, ffprobe, rgbAt } from '../test-support/media';
import { LintFinding, lintHtml } from './lint';

const project = tempDir('vidkit-lint-');
fs.writeFileSync(path.join(project, 'here.png'), '');
fs.writeFileSync(path.join(project, 'card.html'), '<template><div data-composition-id="card" data-width="320" data-height="180"></div></template>');
fs.writeFileSync(path.join(project, 'loop.html'), '<template><div data-composition-id="loop"><div data-composition-src="loop.html"></div></div></template>');

const page = (body: string, htmlAttrs = '') =>
  `<!doctype html>\n<html ${htmlAttrs}>\n<body>\n${body}\n</body>\n</html>\n`;
const root = (inner: string, attrs = 'data-duration="2"') =>
  `<div id="root" data-composition-id="main" data-width="320" data-height="180" ${attrs}>\n${inner}\n</div>`;
const lint = (html: string): LintFinding[] => lintHtml(html, project);
/** `severity rule@line` of every finding. */
const found = (html: string): string[] => lint(html).map((f) => `${f.severity} ${f.rule}@${f.line}`);

test('a clean composition has no findings', () => {
  const html = page(
    root(
      [
        '<div id="a" data-start="0" data-duration="1"></div>',
        '<div id="b" data-start="a + 0.5" data-end="1.8"></div>',
        '<img id="c" src="here.png" data-start="b">',
        '<video id="v" src="here.png" data-start="0" data-duration="1" data-playback-rate="2" data-volume="0.5" data-media-start="1"></video>',
        '<h1 data-var-text="title">x</h1>',
      ].join('\n'),
    ),
    `data-composition-variables='[{"id":"title","type":"string","default":"Hi"},{"id":"face","type":"font","default":"Inter"}]'`,
  );
  assert.equal(lint(html), []);
});

test('root: what a render refuses, with its line', () => {
  assert.equal(found(page('<p>no root</p>')), ['error root@undefined']);
  const odd = lint(page(root('', 'data-duration="2" data-width="321"').replace('data-width="320" ', '')));
  assert.equal(odd.map((f) => `${f.rule}@${f.line}`), ['root@4']);
  assert.match(odd[0].message, /data-width must be even/);
  assert.equal(found(page(root('', 'data-duration="-1"'))), ['error root@4']);
});

test('root: a second composition with the same id (hosts of sub-compositions get their own)', () => {
  const html = page(root('<div data-composition-id="main" data-start="0" data-duration="1"></div>\n<div data-composition-id="main" data-composition-src="card.html" data-start="0" data-duration="1"></div>'));
  assert.equal(found(html), ['error composition-id-duplicate@5']);
});

test('sub-compositions: a file not in the project, one that includes itself, host values that are not JSON', () => {
  const host = (attrs: string) => page(root(`<div id="card-host" data-composition-src="card.html" data-start="0" data-duration="1"></div>\n<div ${attrs} data-start="0" data-duration="1"></div>`));
  assert.equal(lint(host('data-composition-id="x" data-composition-src="card.html"')), []);
  const missing = lint(host('data-composition-src="compositions/gone.html"'));
  assert.equal(missing.map((f) => `${f.severity} ${f.rule}@${f.line}`), ['error sub-composition@6']);
  assert.match(missing[0].message, /data-composition-src="compositions\/gone\.html" names no file in the project/);
  assert.equal(found(host('data-composition-src="loop.html"')), ['error sub-composition@6']);
  assert.equal(found(host(`data-composition-src="card.html" data-variable-values='{"title":'`)), ['error sub-composition@6']);
});

test('variables: malformed, dropped types, defaults of the wrong type, bindings to nothing', () => {
  assert.equal(found(page(root(''), `data-composition-variables='[{"id":`)), ['error variables-invalid@2']);
  const html = page(
    root('<h1 data-var-text="missing">x</h1>\n<img data-var-src="shape" src="here.png">\n<p data-var-text="n">1</p>'),
    `data-composition-variables='[{"id":"shape","type":"polygon","default":"a"},{"id":"n","type":"number","default":"ten"}]'`,
  );
  assert.equal(found(html), ['error variable-type-unsupported@2', 'warning variable-default-type@2', 'warning variable-binding-undeclared@5']);
  assert.match(lint(html)[0].message, /"polygon"/);
});

test('clips: unreadable and negative starts', () => {
  assert.equal(found(page(root('<div data-start="two seconds" data-duration="1"></div>\n<div data-start="a +" data-duration="1"></div>\n<div data-start="-1"></div>'))), [
    'error clip-start-invalid@5',
    'error clip-start-invalid@6',
    'error clip-start-invalid@7',
  ]);
});

test('clips: a reference to an unknown id, a cycle, a clip without an end', () => {
  const unknown = lint(page(root('<div id="a" data-start="intro + 0.5" data-duration="1"></div>')));
  assert.equal(unknown.map((f) => `${f.severity} ${f.rule}@${f.line}`), ['error clip-reference-unknown@5']);
  assert.match(unknown[0].message, /"intro"/);
  const cycle = lint(page(root('<div id="a" data-start="c" data-duration="1"></div>\n<div id="b" data-start="a" data-duration="1"></div>\n<div id="c" data-start="b - 0.2" data-duration="1"></div>')));
  assert.equal(cycle.map((f) => `${f.rule}@${f.line}`), ['clip-reference-cycle@5']);
  assert.match(cycle[0].message, /a → c → b → a/);
  assert.equal(found(page(root('<div id="a" data-start="a" data-duration="1"></div>'))), ['error clip-reference-cycle@5']);
  // Open-ended clips have no end to start from; media, images and compositions have one at run time.
  const ends = page(
    root(
      [
        '<div id="open" data-start="0"></div>',
        '<div data-start="open" data-duration="1"></div>',
        '<video id="v" src="here.png" data-start="0" data-duration="1"></video>',
        '<div data-start="v" data-duration="1"></div>',
        '<div id="scene" data-composition-id="scene" data-start="0"></div>',
        '<div data-start="scene" data-duration="1"></div>',
      ].join('\n'),
    ),
  );
  assert.equal(found(ends), ['error clip-reference-no-end@6']);
});

test('clips: data-end at or before the start, both ends, bad numbers, starts after the end', () => {
  const html = page(
    root(
      [
        '<div id="a" data-start="1" data-end="0.5"></div>',
        '<div id="b" data-start="a" data-end="1"></div>',
        '<div id="c" data-start="0" data-duration="1" data-end="3"></div>',
        '<div data-start="0" data-duration="zero"></div>',
        '<div data-start="0" data-end="later"></div>',
        '<div data-start="2.5" data-duration="1"></div>',
      ].join('\n'),
    ),
  );
  assert.equal(found(html), [
    'error clip-end-before-start@5',
    // "b" starts where "a" ends, and a's data-end is ignored: a has no end.
    'error clip-reference-no-end@6',
    'warning clip-duration-and-end@7',
    'error clip-duration-invalid@8',
    'error clip-end-invalid@9',
    'warning clip-after-end@10',
  ]);
  // A start resolved through a reference: 1 + 0.5 s, after which data-end 1.5 is no end.
  assert.equal(found(page(root('<div id="a" data-start="0" data-duration="1"></div>\n<div id="b" data-start="a + 0.5" data-end="1.5"></div>'))), ['error clip-end-before-start@6']);
});

test('clips: data-duration or data-end without data-start', () => {
  assert.equal(found(page(root('<div data-duration="1"></div>\n<span data-end="1"></span>'))), ['warning timing-without-start@5', 'warning timing-without-start@6']);
});

test('media: attributes out of range or unreadable, no duration', () => {
  const html = page(
    root(
      [
        '<video src="here.png" data-start="0" data-duration="1" data-media-start="-2" data-playback-start="x"></video>',
        '<audio src="here.png" data-start="0" data-duration="1" data-playback-rate="20" data-volume="5"></audio>',
        '<audio src="here.png" data-start="0" data-duration="1" data-playback-rate="fast" data-volume="loud"></audio>',
        '<audio src="here.png" data-start="0"></audio>',
      ].join('\n'),
    ),
  );
  assert.equal(found(html), [
    'error media-start-invalid@5',
    'error media-start-invalid@5',
    'warning media-rate-range@6',
    'warning media-volume-range@6',
    'error media-rate-invalid@7',
    'error media-volume-invalid@7',
    'warning media-no-duration@8',
  ]);
});

test('sources: files not in the project or outside it; remote and bound ones are left alone', () => {
  const html = page(
    root(
      [
        '<img src="gone.png">',
        '<video src="../elsewhere.mp4" data-start="0" data-duration="1"></video>',
        '<img src="here.png?v=2"><img src="https://example.com/a.png"><img src="data:image/png;base64,AA==">',
        '<img data-var-src="logo" src="placeholder.png">',
      ].join('\n'),
    ),
    `data-composition-variables='[{"id":"logo","type":"image","default":"here.png"}]'`,
  );
  assert.equal(found(html), ['error source-missing@5', 'error source-missing@6']);
});

test('scripts (heuristic): a timeline created but never registered, a nested composition without its timeline', () => {
  const unregistered = lint(page(root('<div id="a"></div>') + '\n<script>\nconst tl = gsap.timeline({ paused: true });\ntl.to("#a", { x: 10 });\n</script>'));
  assert.equal(unregistered.map((f) => `${f.severity} ${f.rule}@${f.line} ${f.heuristic}`), ['warning timeline-not-registered@8 true']);
  const registered = page(root('<div id="a"></div>') + '\n<script>\nconst tl = gsap.timeline({ paused: true });\nwindow.__timelines = window.__timelines || {};\nwindow.__timelines["main"] = tl;\n</script>');
  assert.equal(lint(registered), []);
  // Two timelines: one under the root's id, one under a key that names no composition.
  const nested = page(
    root('<div data-composition-id="scene" data-start="1" data-duration="1"></div>\n<div data-composition-id="still" data-start="0" data-duration="1" data-no-timeline></div>') +
      '\n<script>\nwindow.__timelines = { main: gsap.timeline({ paused: true }), scenes: gsap.timeline({ paused: true }) };\n</script>',
  );
  assert.equal(found(nested), ['warning timeline-missing@5']);
  assert.equal(lint(nested.replace('scenes:', 'scene:')), []);
  // A key computed at run time: nothing can be said.
  assert.equal(lint(nested.replace('window.__timelines = {', 'const id = "scene"; window.__timelines[id] = 1; ({')), []);
});

test('scripts: a root without data-duration and nothing to infer the length from', () => {
  const bare = page(root('<div id="a"></div>', ''));
  assert.equal(found(bare), ['error duration-unknown@4']);
  const scripted = lint(page(root('<div id="a"></div>', '') + '\n<script>document.title = "x";</script>'));
  assert.equal(scripted.map((f) => `${f.severity} ${f.rule} ${f.heuristic}`), ['warning duration-unknown true']);
  assert.equal(lint(page(root('<div data-start="0" data-duration="1"></div>', ''))), []);
  assert.equal(lint(page(root('', '') + '\n<script>window.__timelines = [gsap.timeline({ paused: true })];</script>')), []);
});

test('vidkit lint: human lines, --json, exit 0 with warnings only, 1 with errors, 2 for bad input', () => {
  const dir = tempDir('vidkit-lint-cli-');
  const write = (html: string) => fs.writeFileSync(path.join(dir, 'index.html'), html);
  write(page(root('<div id="a" data-start="nope" data-duration="1"></div>\n<div data-duration="1"></div>')));
  // The static rules alone here; the glyph rule has its own tests (src/fonts/world-scripts.test.ts).
  const human = vidkit(['lint', dir, '--no-glyphs']);
  assert.is(human.status, 1, human.stderr);
  assert.equal(human.stdout.split('\n'), [
    'index.html:5: error [clip-reference-unknown] data-start="nope" names "nope", but no element has that id or data-composition-id: the clip starts with its composition',
    'index.html:6: warning [timing-without-start] <div> has data-duration but no data-start: only an element with data-start is a clip, so it shows all the time',
    '1 error, 1 warning',
    '',
  ]);
  const json = vidkit(['lint', dir, '--json', '--no-glyphs']);
  assert.is(json.status, 1);
  const report = JSON.parse(json.stdout);
  assert.equal(Object.keys(report).sort(), ['errors', 'findings', 'projectDir', 'warnings']);
  assert.equal([report.projectDir, report.errors, report.warnings], [fs.realpathSync(dir), 1, 1]);
  assert.equal(report.findings[0], {
    severity: 'error',
    rule: 'clip-reference-unknown',
    message: 'data-start="nope" names "nope", but no element has that id or data-composition-id: the clip starts with its composition',
    file: 'index.html',
    line: 5,
  });
  write(page(root('<div data-duration="1"></div>')));
  assert.is(vidkit(['lint', dir, '--no-glyphs']).status, 0);
  write(page(root('')));
  const clean = vidkit(['lint', dir]);
  assert.equal([clean.status, clean.stdout], [0, 'no findings\n']);
  const missing = vidkit(['lint', path.join(dir, 'nope')]);
  assert.equal([missing.status, missing.stdout], [2, '']);
  assert.match(missing.stderr, /vidkit: error: project directory not found/);
  const usage = vidkit(['lint', dir, '--bogus']);
  assert.equal([usage.status, usage.stdout, usage.stderr.includes('Unsupported option name ("--bogus")')], [2, '', true]);
});

test('vidkit render --strict: stops with exit 2 on a lint error, before any browser; renders when clean', () => {
  const dir = tempDir('vidkit-lint-strict-');
  const out = path.join(dir, 'out.mp4');
  const body = (start: string) =>
    page(
      `<div id="root" data-composition-id="strict" data-width="320" data-height="180" data-duration="0.5" style="background:#204080">\n` +
        `<div id="box" style="position:absolute;left:0;top:0;width:160px;height:180px;background:#e04020" data-start="${start}" data-duration="0.3"></div>\n</div>`,
    );
  fs.writeFileSync(path.join(dir, 'index.html'), body('intro'));
  const failed = vidkit(['render', dir, '--output', out, '--strict', '--workers', '1']);
  assert.is(failed.status, 2, failed.stderr);
  assert.match(failed.stderr, /vidkit: lint: index\.html:5: error \[clip-reference-unknown\]/);
  assert.match(failed.stderr, /vidkit: error: --strict: 1 lint error in /);
  assert.not.ok(fs.existsSync(out));
  // Once the reference is a time, the same page renders with --strict: the box shows from 0 to 0.3 s.
  fs.writeFileSync(path.join(dir, 'index.html'), body('0'));
  const rendered = vidkit(['render', dir, '--output', out, '--strict', '--workers', '1']);
  assert.is(rendered.status, 0, rendered.stderr);
  assert.is(Number(ffprobe(out).streams[0].nb_read_frames), 15);
  const [r0] = rgbAt(decodeRgbFrame(out, 0, 320, 180), 320, 80, 90);
  const [r12] = rgbAt(decodeRgbFrame(out, 12, 320, 180), 320, 80, 90);
  assert.ok(r0 > 180 && r12 < 80, `box red at frame 0 (${r0}), gone at frame 12 (${r12})`);
});

test.run();
