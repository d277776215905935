import type { CompositionEntry } from '../../composition/list-compositions';
import type { LintFinding } from '../../composition/lint-finding';
import { getJson } from './api';
import { byId, h } from './dom';
import { icon } from './icons';
import type { Studio } from './studio-state';

/**
 * The sidebar: the project's compositions as `vidkit compositions` lists them (a click opens one),
 * and the lint findings of the one shown, as `vidkit lint` reports them (a click shows the line).
 */
export function compositionsPanel(studio: Studio, open: (file: string) => void): { refresh(): Promise<void> } {
  const list = byId('compositions');
  const problems = byId('problems');
  const count = byId('problems-count');

  const refresh = async () => {
    const entries = await getJson<CompositionEntry[]>('compositions').catch(() => []);
    list.replaceChildren(
      ...entries.map((c) => {
        const size = c.width !== null && c.height !== null ? `${c.width}×${c.height}` : 'host size';
        const length = c.durationSeconds !== null ? `${c.durationSeconds} s` : 'inferred length';
        const current = c.file === studio.page;
        return h(
          'li',
          {},
          h(
            'button',
            { class: current ? 'composition current' : 'composition', attrs: { 'aria-current': current ? 'true' : undefined, 'data-file': c.file, title: c.file }, on: { click: () => open(c.file) } },
            icon(c.file.includes('/') ? 'layers' : 'film'),
            h('span', { class: 'composition-text' }, h('span', { class: 'composition-id' }, c.id || c.file), h('small', {}, `${c.file} · ${size} · ${length}`)),
          ),
        );
      }),
    );
    const findings = await getJson<{ findings: LintFinding[] }>('lint', { file: studio.page }).then((r) => r.findings, () => []);
    studio.findings = findings;
    studio.emit('findings', findings);
  };

  studio.on('findings', (findings) => {
    const errors = findings.filter((f) => f.severity === 'error').length;
    count.textContent = findings.length === 0 ? '' : String(findings.length);
    count.className = `count${errors > 0 ? ' error' : findings.length > 0 ? ' warning' : ''}`;
    problems.replaceChildren(
      ...(findings.length === 0
        ? [h('li', { class: 'muted clean' }, icon('check'), 'No lint findings')]
        : findings.map((f) =>
            h(
              'li',
              {},
              h(
                'button',
                { class: `finding-item is-${f.severity}`, on: { click: () => studio.emit('source', { file: f.file, line: f.line }) } },
                icon(f.severity === 'error' ? 'error' : 'warning', f.severity),
                h('span', {}, h('code', {}, f.line === undefined ? f.file : `${f.file}:${f.line}`), ' ', f.message, h('small', {}, ` ${f.rule}${f.heuristic ? ', heuristic' : ''}`)),
              ),
            ),
          )),
    );
  });
  return { refresh };
}
