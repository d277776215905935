// --- sub-compositions a page script added ---------------------------------------------------------
// The project server mounts the hosts written in a page's markup (src/composition/sub-compositions.ts).
// A host a page script adds while the page loads arrives empty; HyperFrames mounts every host
// present when its runtime starts, whoever added it. So once the page has loaded, and before its
// timelines are read, the runtime has the project server mount each such host
// (src/render/serve/late-mount.ts), puts the filled host in its place and runs the instance's scripts,
// one host after another, so that each instance's id differs from those already in the page.
import { LATE_MOUNT_PATH } from '../late-mount-path';
import { real } from './clock';
import { noteFailedLoad } from './loads';

// A mounted composition's scripts may add hosts of their own: a few rounds cover any real page.
const MAX_ROUNDS = 8;

interface LateMount { html: string; scripts: string[] }

// Hosts whose mount failed (named in the failed loads): they stay empty, as in a page without them.
const failed = new WeakSet<Element>();

function takenIds(): string[] {
  const ids: string[] = [];
  document.querySelectorAll('[data-composition-id]').forEach(function (el) { ids.push(el.getAttribute('data-composition-id') || ''); });
  return ids;
}

function pagePath(): string {
  return decodeURIComponent(location.pathname.replace(/^\/+/, '')) || 'index.html';
}

function fromMarkup(markup: string): Element | null {
  const template = document.createElement('template');
  template.innerHTML = markup;
  return template.content.firstElementChild;
}

// A classic script with a URL some script of the page already has (GSAP, say) is not loaded again,
// as the project server leaves it out of the hosts it mounts (src/composition/sub-compositions.ts).
const CLASSIC: Record<string, number> = { '': 1, 'text/javascript': 1, 'application/javascript': 1 };
function loadedAlready(parsed: HTMLScriptElement): boolean {
  if (!parsed.hasAttribute('src') || !CLASSIC[(parsed.getAttribute('type') || '').trim().toLowerCase()]) return false;
  const url = new URL(parsed.getAttribute('src') || '', document.baseURI).href;
  const scripts = document.querySelectorAll<HTMLScriptElement>('script[src]');
  for (let i = 0; i < scripts.length; i++) if (scripts[i].src === url) return true;
  return false;
}

// A script parsed from markup does not run: a fresh one with its attributes and text does.
function runScript(markup: string): Promise<void> {
  const parsed = fromMarkup(markup);
  if (!(parsed instanceof HTMLScriptElement) || loadedAlready(parsed)) return Promise.resolve();
  const script = document.createElement('script');
  for (let i = 0; i < parsed.attributes.length; i++) script.setAttribute(parsed.attributes[i].name, parsed.attributes[i].value);
  script.text = parsed.text;
  const ran = script.src
    ? new Promise<void>(function (resolve) { script.onload = script.onerror = function () { resolve(); }; })
    : Promise.resolve();
  document.body.appendChild(script);
  return ran;
}

function mountHost(host: Element): Promise<void> {
  const src = host.getAttribute('data-composition-src');
  const request = { page: pagePath(), host: host.outerHTML, taken: takenIds() };
  return real.fetch(LATE_MOUNT_PATH, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) })
    .then(function (response) {
      return response.json().then(function (body: LateMount & { error?: string }) {
        if (!response.ok) throw new Error(body.error || 'HTTP ' + response.status);
        return body;
      });
    })
    .then(function (mounted) {
      const filled = fromMarkup(mounted.html);
      if (!filled) throw new Error('the project server mounted nothing');
      host.replaceWith(filled);
      return mounted.scripts.reduce(function (done: Promise<void>, script) { return done.then(function () { return runScript(script); }); }, Promise.resolve());
    })
    .catch(function (err: Error) {
      failed.add(host);
      noteFailedLoad('sub-composition ' + src + ' (' + err.message + ')');
    });
}

function emptyHosts(): Element[] {
  const hosts: Element[] = [];
  document.querySelectorAll('[data-composition-src]').forEach(function (el) { if (!failed.has(el)) hosts.push(el); });
  return hosts;
}

/** Mounts the hosts page scripts added; resolves once every one is mounted or named as failed. */
export function mountLateHosts(round = 0): Promise<void> {
  const hosts = emptyHosts();
  if (hosts.length === 0 || round >= MAX_ROUNDS) return Promise.resolve();
  return hosts
    .reduce(function (done: Promise<void>, host) { return done.then(function () { return mountHost(host); }); }, Promise.resolve())
    .then(function () { return mountLateHosts(round + 1); });
}
