import { getJson } from './api';
import { byId, h } from './dom';
import { icon } from './icons';
import type { Studio } from './studio-state';

/** The source view: a project file, read-only, with line numbers, the lint findings on their lines and one line marked. */
export function sourceView(studio: Studio, showTab: () => void): void {
  const title = byId('source-file');
  const body = byId('source');
  let shown: { file: string; line?: number; text: string } | null = null;

  const draw = () => {
    if (!shown) return;
    const { file, line, text } = shown;
    title.textContent = line === undefined ? file : `${file}:${line}`;
    const findings = studio.findings.filter((f) => f.file === file);
    const rows = text.split('\n').map((content, i) => {
      const n = i + 1;
      const here = findings.filter((f) => f.line === n);
      const severity = here.some((f) => f.severity === 'error') ? 'error' : here.length > 0 ? 'warning' : '';
      return h(
        'div',
        { class: `source-line${n === line ? ' current' : ''}${severity ? ` has-${severity}` : ''}`, attrs: { 'data-line': n } },
        h('span', { class: 'gutter' }, severity ? icon(severity === 'error' ? 'error' : 'warning') : null, String(n)),
        h('span', { class: 'code' }, content || ' '),
        here.length > 0 && h('span', { class: `source-finding ${severity}` }, here.map((f) => f.message).join(' · ')),
      );
    });
    body.replaceChildren(...rows);
    body.querySelector('.current')?.scrollIntoView({ block: 'center' });
  };

  studio.on('source', async ({ file, line }) => {
    try {
      const { text } = await getJson<{ text: string }>('source', { file });
      shown = { file, line, text };
    } catch (err) {
      shown = null;
      title.textContent = file;
      body.replaceChildren(h('p', { class: 'error' }, (err as Error).message));
    }
    showTab();
    draw();
  });
  studio.on('findings', draw);
}
