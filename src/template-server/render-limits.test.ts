// tier: unit
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderLimits } from './render-limits';

test('defaults: 8 waiting, a 600 s timeout, or the template default', () => {
  assert.equal(renderLimits({}), { maxWaiting: 8, timeoutSeconds: 600 });
  assert.equal(renderLimits({}, { timeoutSeconds: 270 }), { maxWaiting: 8, timeoutSeconds: 270 });
  assert.equal(renderLimits({ RENDER_MAX_WAITING: '0', RENDER_TIMEOUT_SECONDS: '2' }, { timeoutSeconds: 270 }), { maxWaiting: 0, timeoutSeconds: 2 });
});

test('anything but a whole number in range is refused, naming the variable', () => {
  assert.throws(() => renderLimits({ RENDER_MAX_WAITING: '-1' }), /^RENDER_MAX_WAITING must be a whole number of at least 0, got "-1"$/);
  assert.throws(() => renderLimits({ RENDER_TIMEOUT_SECONDS: '0' }), /^RENDER_TIMEOUT_SECONDS must be a whole number of at least 1, got "0"$/);
  assert.throws(() => renderLimits({ RENDER_TIMEOUT_SECONDS: '1.5' }), /RENDER_TIMEOUT_SECONDS must be a whole number/);
});

test.run();
