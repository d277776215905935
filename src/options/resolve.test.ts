// tier: unit
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ExitCode, VidkitError } from '../errors';
import { DEFAULT_MAX_VARIABLE_BYTES, DEFAULT_MAX_VARIABLES_BYTES } from '../values/constants';
import { QUALITY_SETTINGS } from '../values/quality';
import { RawOptions, SettingsSurface, resolveRenderSettings } from './resolve';

/** The refusal of `raw` as `surface` gives it: its message, after checking it is bad input. */
function refusal(surface: SettingsSurface, raw: RawOptions): string {
  try {
    resolveRenderSettings(surface, raw);
  } catch (err) {
    assert.instance(err, VidkitError);
    assert.is((err as VidkitError).exitCode, ExitCode.BadInput);
    return (err as VidkitError).message;
  }
  throw new Error(`${JSON.stringify(raw)} was accepted`);
}

test('one rule, named as each surface names the option', () => {
  const rule = 'must be a number above 0 and at most 240';
  assert.is(refusal('cli', { fps: '241' }), `--fps ${rule}, got "241"`);
  assert.is(refusal('api', { fps: 241 }), `options.fps ${rule}, got 241`);
  assert.is(refusal('sdk', { fps: 0 }), `[validateConfig] config.fps: ${rule}, got 0`);
  assert.is(refusal('studio', { quality: 'best' }), '"quality" must be one of draft, standard, high, got "best"');
});

test("a flag's text is read as the option's API type", () => {
  const { values, timeouts, workers, inputLimits } = resolveRenderSettings('cli', {
    fps: '29.97',
    width: '1280',
    epoch: '0',
    loadTimeout: '2.5',
    workers: '3',
    maxVariableBytes: '1024',
    chunkSize: '60',
  });
  assert.equal(values, { fps: 29.97, width: 1280, epoch: 0, loadTimeout: 2500, workers: 3, maxVariableBytes: 1024, chunkSize: 60 });
  assert.equal(timeouts, { loadMs: 2500 });
  assert.is(workers, 3);
  assert.equal(inputLimits, { variableBytes: 1024, variablesBytes: DEFAULT_MAX_VARIABLES_BYTES });
  assert.is(refusal('cli', { maxVariableBytes: '1e6' }), '--max-variable-bytes must be a whole number of bytes above 0, got "1e6"');
  assert.is(refusal('cli', { width: '321' }), '--width must be an even whole number of pixels from 2 to 16384, got "321"');
});

test('the defaults of the options a caller leaves out', () => {
  const settings = resolveRenderSettings('api', {});
  assert.equal(settings.values, {});
  assert.is(settings.format, 'mp4');
  assert.equal(settings.encode, QUALITY_SETTINGS.standard);
  assert.equal(settings.timeouts, {});
  assert.equal(settings.inputLimits, { variableBytes: DEFAULT_MAX_VARIABLE_BYTES, variablesBytes: DEFAULT_MAX_VARIABLES_BYTES });
  assert.is(settings.workers, 'auto');
  assert.is(settings.capture, 'auto');
  assert.is(settings.allowGpu, true);
});

test('--crf replaces the CRF of the quality chosen', () => {
  assert.equal(resolveRenderSettings('api', { quality: 'high', crf: 20 }).encode, { ...QUALITY_SETTINGS.high, crf: 20 });
  assert.is(refusal('cli', { crf: '52' }), '--crf must be a whole number from 0 to 51, got "52"');
});

test('options that shape one format are refused with another', () => {
  assert.is(resolveRenderSettings('cli', { format: 'gif', gifLoop: '2' }).gifLoop, 2);
  assert.is(refusal('cli', { format: 'mp4', gifLoop: '2' }), '--gif-loop applies to --format gif only, not mp4');
  assert.is(refusal('api', { hlsSegmentSeconds: 6 }), 'options.hlsSegmentSeconds applies to options.format hls only, not mp4');
});

test("render()'s and the SDK's page deadlines are milliseconds within the command line's range", () => {
  assert.equal(resolveRenderSettings('api', { timeouts: { frameMs: 5000 } }).timeouts, { frameMs: 5000 });
  assert.is(refusal('sdk', { timeouts: { loadMs: 0 } }), '[validateConfig] config.timeouts.loadMs: must be milliseconds: a number of seconds above 0 and at most 3600, times 1000, got 0');
  assert.is(refusal('api', { timeouts: { idleMs: 5 } }), 'options.timeouts has unknown field "idleMs"; it takes loadMs and frameMs');
});

test.run();
