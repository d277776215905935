// tier: unit
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RenderQueueFullError, renderErrorAnswer } from './render-errors';
import { RenderQueue } from './render-queue';

/** What a promise is rejected with (undefined when it resolves). */
const rejection = (p: Promise<unknown>): Promise<unknown> => p.then(() => undefined, (err: unknown) => err);

/** A render that ends when the test says so. */
function gate(): { done: () => void; render: () => Promise<string>; started: boolean } {
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const g = {
    done: () => done(),
    started: false,
    render: async () => {
      g.started = true;
      await finished;
      return 'ok';
    },
  };
  return g;
}

test('one render runs, the waiting ones follow in arrival order, and one more than maxWaiting is refused at once', async () => {
  const queue = new RenderQueue(2);
  const [a, b, c] = [gate(), gate(), gate()];
  const runs = [queue.run(a.render), queue.run(b.render), queue.run(c.render)];
  assert.instance(await rejection(queue.run(async () => 'never')), RenderQueueFullError);
  assert.equal([a.started, b.started, c.started], [true, false, false]);
  a.done();
  await runs[0];
  await new Promise((r) => setImmediate(r));
  assert.equal([b.started, c.started], [true, false]);
  b.done();
  c.done();
  assert.equal(await Promise.all(runs), ['ok', 'ok', 'ok']);
});

test('a failed render frees its place; maxWaiting 0 refuses anything while one runs', async () => {
  const queue = new RenderQueue(0);
  assert.match(String(await rejection(queue.run(async () => Promise.reject(new Error('render failed (exit 1)'))))), /exit 1/);
  const a = gate();
  const running = queue.run(a.render);
  assert.instance(await rejection(queue.run(async () => 'never')), RenderQueueFullError);
  a.done();
  assert.is(await running, 'ok');
});

test('a full queue is a 429 with Retry-After in whole seconds (30 before any render has finished)', async () => {
  const queue = new RenderQueue(0);
  const a = gate();
  const running = queue.run(a.render);
  const refused = await rejection(queue.run(async () => 'never'));
  assert.equal(renderErrorAnswer(refused), {
    status: 429,
    headers: { 'retry-after': '30' },
    body: { error: 'the render queue is full (0 waiting, RENDER_MAX_WAITING); retry after 30 s' },
  });
  a.done();
  await running;
});

test('errors are answered by name: a second copy of a class (a bundled template beside the renderer Node loaded) answers the same', () => {
  const copy = (name: string) => Object.assign(new Error('m'), { name });
  assert.is(renderErrorAnswer(copy('RenderTimeoutError')).status, 504);
  assert.is(renderErrorAnswer(copy('RenderRequestError')).status, 400);
  assert.is(renderErrorAnswer(new Error('render failed (exit 1): vidkit: error: x')).status, 500);
});

test.run();
