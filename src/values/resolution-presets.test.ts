// tier: unit
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { resolutionSize } from './resolution-presets';

const LANDSCAPE = { width: 1920, height: 1080 };
const PORTRAIT = { width: 1080, height: 1920 };

test('the presets and their aliases, as HyperFrames names them', () => {
  assert.equal(resolutionSize('720p', LANDSCAPE, '--resolution'), { width: 1280, height: 720 });
  assert.equal(resolutionSize('landscape-720p', LANDSCAPE, '--resolution'), { width: 1280, height: 720 });
  assert.equal(resolutionSize('4K', LANDSCAPE, '--resolution'), { width: 3840, height: 2160 });
  assert.equal(resolutionSize('uhd', LANDSCAPE, '--resolution'), { width: 3840, height: 2160 });
  assert.equal(resolutionSize('480p', LANDSCAPE, '--resolution'), { width: 854, height: 480 });
  assert.equal(resolutionSize('square-1080p', { width: 540, height: 540 }, '--resolution'), { width: 1080, height: 1080 });
});

test('an alias without an orientation follows the composition; a named one must fit it', () => {
  assert.equal(resolutionSize('720p', PORTRAIT, '--resolution'), { width: 720, height: 1280 });
  assert.equal(resolutionSize('1080p', { width: 720, height: 720 }, '--resolution'), { width: 1080, height: 1080 });
  assert.throws(() => resolutionSize('landscape-720p', PORTRAIT, '--resolution'), /does not keep the composition's 1080x1920 aspect ratio: use --resolution portrait-720p/);
  assert.throws(() => resolutionSize('720p', { width: 1000, height: 700 }, '--resolution'), /use --width or --height instead/);
});

test('an unknown name lists the presets', () => {
  assert.throws(() => resolutionSize('8k', LANDSCAPE, '--resolution'), /--resolution must be one of landscape, portrait, .*480p-square, got "8k"/);
});

test.run();
