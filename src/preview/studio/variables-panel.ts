import type { VariableDeclaration } from '../../composition/variables';
import { postJson } from './api';
import { byId, h } from './dom';
import { icon } from './icons';
import type { Studio } from './studio-state';
import { fits, variableControl } from './variable-controls';

/** How long after the last keystroke the glyph check runs: it opens a browser on the server. */
const GLYPH_CHECK_DELAY_MS = 600;

/**
 * The variables panel: one typed control per declaration of the composition shown. Its values
 * are the panel's own, or those of the row picked in the rows table (edits then go to the row).
 * Shows the matching `vidkit render` line, and warns under the fields when a text value typed
 * there has characters no font of the render can draw (the render's own glyph check, run by the
 * preview server a moment after the typing stops).
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
  const glyphWarnings = byId('glyph-warnings');
  let glyphTimer: ReturnType<typeof setTimeout> | undefined;
  /** Counts the checks asked for: an answer to an earlier one than the last is dropped. */
  let glyphChecks = 0;

  const checkGlyphs = () => {
    clearTimeout(glyphTimer);
    glyphTimer = setTimeout(async () => {
      const asked = ++glyphChecks;
      try {
        const { warnings } = await postJson<{ warnings: string[] }>('glyphs', { composition: studio.page, variables: studio.values.values });
        if (asked === glyphChecks) glyphWarnings.replaceChildren(...warnings.map((w) => h('li', {}, icon('warning'), w)));
      } catch {
        // A page that does not load now says so in the player and the lint findings.
        if (asked === glyphChecks) glyphWarnings.replaceChildren();
      }
    }, GLYPH_CHECK_DELAY_MS);
  };

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
          if (d.type === 'string') checkGlyphs();
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
    // The page changed: its text is checked again with the values kept.
    if (declarations.some((d) => d.type === 'string' && d.id in own)) checkGlyphs();
    else {
      glyphChecks += 1;
      glyphWarnings.replaceChildren();
    }
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
