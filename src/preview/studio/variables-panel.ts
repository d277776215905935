import type { VariableDeclaration } from '../../composition/variables';
import { byId, h } from './dom';
import type { Studio } from './studio-state';
import { fits, variableControl } from './variable-controls';

/**
 * The variables panel: one typed control per declaration of the composition shown. Its values
 * are the panel's own, or those of the row picked in the rows table (edits then go to the row).
 * Shows the matching `vidkit render` line.
 */
export function variablesPanel(studio: Studio): void {
  const form = byId<HTMLFormElement>('variables');
  const problem = byId('problem');
  const command = byId('command');
  const bound = byId('bound-row');
  const boundBar = byId('bound-row-bar');
  /** The panel's own values, kept while a row is bound and across reloads while they still fit. */
  let own: Record<string, unknown> = {};
  let declarations: VariableDeclaration[] = [];

  const draw = () => {
    const { values, row } = studio.values;
    bound.replaceChildren(...(row ? [h('span', {}, `Editing row ${row.index + 1}: `), h('code', {}, row.name)] : []));
    boundBar.hidden = row === null;
    form.replaceChildren(
      ...declarations.map((d) => {
        const set = (v: unknown) => {
          const next = { ...studio.values.values };
          if (v === undefined) delete next[d.id];
          else next[d.id] = v;
          if (studio.values.row === null) own = next;
          studio.setValues({ values: next, row: studio.values.row, from: 'panel' });
          showCommand();
        };
        const control = variableControl(d, values[d.id], set);
        const caption = h('span', {}, d.label ? `${d.label} ` : '', h('small', {}, d.id));
        return d.type === 'boolean' ? h('label', { class: 'check' }, control, caption) : h('label', {}, caption, control);
      }),
    );
    if (declarations.length === 0) form.replaceChildren(h('p', { class: 'muted' }, 'This composition declares no variables.'));
    showCommand();
  };

  const showCommand = () => {
    const json = JSON.stringify(studio.values.values);
    const page = studio.page === 'index.html' ? '' : ` --composition ${studio.page}`;
    const args = Object.keys(studio.values.values).length > 0 ? ` --variables '${json.replace(/'/g, "'\\''")}'` : '';
    command.textContent = `vidkit render .${page}${args}`;
  };

  studio.on('composition', (info) => {
    problem.textContent = info.error ?? '';
    if (!info.declarations) return;
    declarations = info.declarations;
    const kept: Record<string, unknown> = {};
    for (const d of declarations) if (d.id in own && fits(d, own[d.id])) kept[d.id] = own[d.id];
    own = kept;
    if (studio.values.row === null) studio.setValues({ values: own, row: null, from: 'panel' });
    draw();
  });
  studio.on('values', (v) => {
    if (v.from !== 'panel') draw();
  });
  // Leaving a row brings the panel's own values back.
  const unbind = () => {
    studio.setValues({ values: own, row: null, from: 'panel' });
    draw();
  };
  byId('unbind-row').addEventListener('click', unbind);
  studio.on('unbind', unbind);
}
