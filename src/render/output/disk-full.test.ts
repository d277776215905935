import * as fs from 'node:fs';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { OUTPUT_FORMATS } from '../../values/constants';
import { errorLines, tempDir } from '../../test-support/cli';
import { NOISE, withSmallDisks } from '../../test-support/small-disk';
import { OutputFormat, formatExtension } from '../../values/formats';

// docs/guide/render.md: a disk that fills during a render is exit 4 naming it (TMPDIR, or the
// output's folder), in every format and at every write, and nothing half-written is left. Each
// case runs in a mount namespace of its own with small tmpfs disks (test-support/small-disk.ts).
const work = tempDir('vidkit-disk-full-test-');

/**
 * 160x90 of new random pixels every frame for `seconds`: frames no encoder can compress, so every
 * write of the render (frames, segments, the joined file) has bytes to write.
 */
function noiseProject(name: string, seconds: number): string {
  const dir = path.join(work, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    `<!doctype html><html data-composition-variables='[]'><head><style>html,body{margin:0;background:#000}</style></head><body>
<div data-composition-id="${name}" data-width="160" data-height="90" data-duration="${seconds}" style="position:relative">${NOISE}</div></body></html>
`,
  );
  return dir;
}

const long = noiseProject('noise-long', 3);
/** The frames of `long`, at 30 fps. */
const FRAMES = 90;
const short = noiseProject('noise-short', 1);

/** A shell test that passes once `find <where> -name <name> <test>` finds something. */
function found(where: string, name: string, test: string): string {
  return `[ -n "$(find ${where} -name '${name}' ${test} 2>/dev/null | head -n 1)" ]`;
}

/**
 * What shows that frames are being drawn and more are still to be written, by format: a segment
 * or frame file in the render's directory under TMPDIR past 4 KiB, or, for png-sequence, a frame in
 * the output's partial folder. A WebM segment is written in clusters of seconds, so there the
 * segment's being there is the sign. An HEVC segment is written whole as it closes, so there one
 * segment written and another still open (no bytes past its header) is the sign: the last segment
 * may close within a poll of the others, leaving nothing to write once the disk fills.
 */
function drawing(format: OutputFormat, outputDir: string): string {
  if (format === 'gif') return found('"$T"', 'frame_*.png', '-size +4k');
  if (format === 'png-sequence') return found(outputDir, 'frame_*.png', '-size +4k');
  if (format === 'webm') return found('"$T"', 'part-*', '-type f');
  const written = found('"$T"', 'part-*', '-size +4k');
  if (format === 'hdr-pq' || format === 'hdr-hlg') return `${written} && ${found('"$T"', 'part-*', '-size -5k')}`;
  return written;
}

/**
 * The shell lines that wait (at most 30 s) until `ready` passes, and leave the render stopped
 * (SIGSTOP) from the test that passed until `fill` has run, so nothing it saw changes first.
 */
function fillOnce(ready: string, fill: string): string {
  return `i=0; while [ $i -lt 600 ]; do kill -STOP $pid 2>/dev/null; if ${ready}; then break; fi; kill -CONT $pid 2>/dev/null; sleep 0.05; i=$((i+1)); done
${fill}
kill -CONT $pid 2>/dev/null`;
}

/**
 * Renders `project` in `format` with TMPDIR on a 40 MiB tmpfs that something else fills (64 MiB
 * written beside the render) once the shell test `fillWhen` gives passes; prints the exit status
 * and what is left in TMPDIR once the filler is gone.
 */
function renderFillingTmp(format: OutputFormat, label: string, fillWhen: (outputDir: string) => string) {
  const outputDir = path.join(work, `${format}-${label}`);
  fs.mkdirSync(outputDir, { recursive: true });
  const output = path.join(outputDir, `clip${formatExtension(format)}`);
  const run = withSmallDisks(
    { T: '40m' },
    `TMPDIR="$T" $VIDKIT render ${long} --output ${output} --format ${format} --workers 1 & pid=$!
${fillOnce(fillWhen(outputDir), 'dd if=/dev/zero of="$T/filler" bs=1M count=64 2>/dev/null')}
wait $pid; echo "exit $?"; rm -f "$T/filler"; ls -A "$T"`,
  );
  return { run, outputDir };
}

function assertTmpNamed(format: string, run: { status: number; stdout: string; stderr: string }): void {
  assert.is(run.status, 0, run.stderr);
  // Exit 4, and nothing of the render left in TMPDIR.
  assert.is(run.stdout, 'exit 4\n', `${format}: ${run.stderr}`);
  assert.equal(errorLines(run.stderr).length, 1, `${format}: ${run.stderr}`);
  assert.match(errorLines(run.stderr)[0], /^vidkit: error: TMPDIR \(\/\S+\) is full: .*set TMPDIR to a directory with room/, format);
  assert.not.match(run.stderr, /internal error|stopped answering|relaunching/, format);
}

const disks = suite('a disk filling during a render');

for (const format of OUTPUT_FORMATS) {
  disks(`${format}: TMPDIR filled as the render starts, then while the frames are drawn: exit 4 naming TMPDIR, nothing left there or beside the output`, () => {
    const started = renderFillingTmp(format, 'start', () => found('"$T"', 'vidkit-render-*', '-type d'));
    const midway = renderFillingTmp(format, 'frames', (outputDir) => drawing(format, outputDir));
    for (const [when, { run, outputDir }] of [
      ['at the start', started],
      ['mid-render', midway],
    ] as const) {
      if (format === 'png-sequence' && run.stdout.endsWith('exit 0\n')) {
        // Its frames go to the output's folder, not TMPDIR: only the browser may need TMPDIR then,
        // and a render it does not stop is whole, with nothing left in TMPDIR.
        assert.is(run.stdout, `${path.join(outputDir, 'clip')}\nexit 0\n`, run.stderr);
        assert.is(fs.readdirSync(path.join(outputDir, 'clip')).length, FRAMES, 'frames written');
      } else {
        assertTmpNamed(`${format}, filled ${when}`, run);
        assert.equal(fs.readdirSync(outputDir), [], `${format}: a partial output was left`);
      }
    }
  });

  disks(`${format}: the output's folder fills (a 64 KiB disk): exit 4 naming the output, nothing left there or in TMPDIR`, () => {
    const tmp = tempDir('vidkit-disk-full-tmp-');
    const output = `"$O"/clip${formatExtension(format)}`;
    const run = withSmallDisks({ O: '64k' }, `TMPDIR=${tmp} $VIDKIT render ${short} --output ${output} --format ${format} --workers 1; echo "exit $?"; ls -A "$O"`);
    assert.is(run.status, 0, run.stderr);
    assert.is(run.stdout, 'exit 4\n', `${format}: ${run.stderr}`);
    assert.equal(errorLines(run.stderr).length, 1, run.stderr);
    assert.match(errorLines(run.stderr)[0], new RegExp(`^vidkit: error: cannot write /\\S+/clip${formatExtension(format).replace('.', '\\.')}: the disk is full`), run.stderr);
    assert.not.match(run.stderr, /internal error/);
    assert.equal(fs.readdirSync(tmp), [], 'the render left files in TMPDIR');
  });
}

disks('a batch whose --output-dir is full: the manifest that cannot be written is exit 4 naming it, and no output is left', () => {
  const tmp = tempDir('vidkit-disk-full-tmp-');
  const batch = path.join(work, 'rows.jsonl');
  fs.writeFileSync(batch, `${JSON.stringify({ outputKey: 'a.mp4', variables: {} })}\n`);
  // Full but for empty files, which a tmpfs makes without a page: the output checks pass, the writes fail.
  const run = withSmallDisks(
    { O: '64k' },
    `dd if=/dev/zero of="$O/filler" bs=4k 2>/dev/null
TMPDIR=${tmp} $VIDKIT render ${short} --batch ${batch} --output-dir "$O/out"; echo "exit $?"; ls -A "$O/out"`,
  );
  assert.is(run.status, 0, run.stderr);
  assert.match(run.stdout, /^exit 4\n/, run.stderr);
  assert.match(errorLines(run.stderr).at(-1)!, /^vidkit: error: cannot write the batch manifest \/\S+\/out\/rows\.manifest\.jsonl: the disk is full/);
  assert.not.match(run.stderr, /internal error/);
  assert.not.match(run.stdout, /\.partial|a\.mp4/, 'a partial output was left');
  assert.equal(fs.readdirSync(tmp), [], 'the batch left files in TMPDIR');
});

disks.run();
