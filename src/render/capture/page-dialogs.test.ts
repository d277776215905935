import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'puppeteer-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runtimeBoot } from '../../runtime/boot';
import { bootScript } from '../../runtime/runtime';
import { findBrowser, launchBrowser } from '../browser/browser';
import { PageDialog, answerDialogs } from './page-dialogs';

// The whole renders with dialogs are in misbehaving-pages.test.ts; here the two ways a dialog is
// answered, on a bare page of a real browser.
const dialogs = suite('dialogs answered without anyone');

let browser: Browser;
let server: http.Server;
let pageUrl: string;

dialogs.before(async () => {
  browser = await launchBrowser({ executablePath: findBrowser(), capture: 'screenshot', gl: 'software' });
  server = http.createServer((_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>blank</title><body>page</body>'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  pageUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

dialogs.after(async () => {
  await browser?.close();
  server?.close();
});

dialogs('without the page runtime, the browser\'s own dialogs are dismissed at once: alert, confirm false, prompt null', async () => {
  const page = await browser.newPage();
  const seen: PageDialog[] = [];
  await answerDialogs(page, (d) => seen.push(d));
  await page.goto(pageUrl);
  const answers = await page.evaluate(() => [String(alert('a')), confirm('c'), prompt('p', 'default')]);
  assert.equal(answers, ['undefined', false, null]);
  assert.equal(seen, [
    { kind: 'alert', text: 'a', answer: 'dismissed' },
    { kind: 'confirm', text: 'c', answer: 'dismissed' },
    { kind: 'prompt', text: 'p', answer: 'dismissed' },
  ]);
  await page.close();
});

dialogs('with the page runtime, it answers them itself and reports the frame of their time', async () => {
  const page = await browser.newPage();
  const seen: PageDialog[] = [];
  await answerDialogs(page, (d) => seen.push(d));
  await page.evaluateOnNewDocument(bootScript(runtimeBoot({}, {}, 30, {})));
  await page.goto(pageUrl);
  // A timer at 0.5 s fires as the page steps to frame 15.
  const answer = await page.evaluate(() => {
    setTimeout(() => confirm('at half a second'), 500);
    (window as unknown as { __vidkit: { __seekFrame(f: number): unknown } }).__vidkit.__seekFrame(20);
    return prompt('now');
  });
  assert.is(answer, null);
  assert.equal(seen, [
    { kind: 'confirm', text: 'at half a second', frame: 15, answer: 'dismissed' },
    { kind: 'prompt', text: 'now', frame: 20, answer: 'dismissed' },
  ]);
  await page.close();
});

dialogs('a beforeunload prompt is answered "leave": the navigation it held goes on', async () => {
  const page = await browser.newPage();
  const seen: PageDialog[] = [];
  await answerDialogs(page, (d) => seen.push(d));
  await page.goto(pageUrl);
  await page.evaluate(() => window.addEventListener('beforeunload', (event) => event.preventDefault()));
  // The browser asks only on a page the user has touched.
  await page.click('body');
  await page.goto('about:blank', { timeout: 10_000 });
  assert.is(page.url(), 'about:blank');
  assert.equal(seen, [{ kind: 'beforeunload', text: '', answer: 'answered "leave"' }]);
  await page.close();
});

dialogs.run();
