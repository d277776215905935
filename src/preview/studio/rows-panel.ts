import type { VariableDeclaration } from '../../composition/variables';
import type { FileRow, Row, RowProblem, RowsFile } from '../rows-file';
import type { RowProgress, StudioJob } from '../studio-jobs';
import { getJson, postJson } from './api';
import { byId, h } from './dom';
import { icon } from './icons';
import type { Studio } from './studio-state';
import { variableControl } from './variable-controls';

/**
 * The rows table: a rows file of the project as `vidkit render --batch` reads it (JSONL, one
 * `{"outputKey", "variables"}` a line, or a CSV or TSV table whose cells the composition's
 * declarations type) as a table whose columns are the declared variables, each cell a typed input
 * (empty: the default). Picking a row previews it and binds the variables panel to
 * it; rows are added, duplicated and deleted here, saved back to the file, and rendered on warm
 * browsers with each row's progress. A row whose outputKey the batch parser refuses is marked
 * with its reason until its key is changed; the server refuses to save such a key.
 */
export function rowsPanel(studio: Studio, showTab: () => void): void {
  const picker = byId<HTMLSelectElement>('rows-file');
  const newName = byId<HTMLInputElement>('rows-new-name');
  const newType = byId<HTMLSelectElement>('rows-new-type');
  const table = byId<HTMLTableElement>('rows-table');
  const status = byId('rows-status');
  const problemsList = byId('rows-problems');
  const saveButton = byId<HTMLButtonElement>('rows-save');
  const renderButton = byId<HTMLButtonElement>('rows-render');
  const editButtons = ['rows-add', 'rows-duplicate', 'rows-delete'].map((id) => byId<HTMLButtonElement>(id));
  const format = byId<HTMLSelectElement>('format');
  const quality = byId<HTMLSelectElement>('quality');

  let file: string | null = null;
  let rows: (Row & Pick<FileRow, 'refused'>)[] = [];
  /** The line each row starts on in the file as read: what a render's progress names it by (a table's header is line 1). */
  let lines: number[] = [];
  let problems: RowProblem[] = [];
  let dirty = false;
  let selected: number | null = null;
  let declarations: VariableDeclaration[] = [];
  let progress: RowProgress[] = [];

  const listFiles = async () => {
    const files = await getJson<string[]>('rows-files');
    picker.replaceChildren(new Option('Open a rows file', '', true, file === null), ...files.map((f) => new Option(f, f, false, f === file)));
    picker.options[0].disabled = true;
  };

  /** Shows a file read or saved; a row picked stays picked when the file is the same one saved. */
  const opened = (result: RowsFile, keep: number | null = null) => {
    const same = result.file === file;
    file = result.file;
    rows = result.rows.map(({ outputKey, variables, refused }) => ({ outputKey, variables, refused }));
    lines = result.rows.map((r) => r.line);
    problems = result.problems;
    dirty = false;
    if (!same) progress = [];
    selected = same && keep !== null && keep < rows.length ? keep : null;
    if (selected === null && studio.values.row !== null) studio.emit('unbind', undefined);
    void listFiles();
    draw();
  };

  const say = (message: string, error = false) => {
    status.textContent = message;
    status.classList.toggle('error', error);
  };

  const draw = () => {
    const ready = file !== null;
    saveButton.disabled = !ready || problems.length > 0;
    saveButton.classList.toggle('dirty', dirty);
    renderButton.disabled = !ready || rows.length === 0 || problems.length > 0 || rows.some((r) => r.refused);
    editButtons.forEach((b, i) => (b.disabled = !ready || problems.length > 0 || (i > 0 && selected === null)));
    if (ready) say(`${file}: ${rows.length} row${rows.length === 1 ? '' : 's'}${dirty ? ', not saved' : ''}`);
    problemsList.replaceChildren(
      ...problems.map((p) => h('li', { class: 'error' }, icon('error'), `line ${p.line}: ${p.reason}`)),
      ...rows.flatMap((r, i) => (r.refused ? [h('li', { class: 'error' }, icon('error'), `row ${i + 1}: ${r.refused}; change its outputKey, then save`)] : [])),
    );
    const head = h(
      'tr',
      {},
      h('th', { class: 'num' }, '#'),
      h('th', {}, 'outputKey'),
      ...declarations.map((d) => h('th', { attrs: { title: `${d.id}: ${d.type}` } }, d.label ?? d.id, h('small', {}, d.type))),
      h('th', {}, 'render'),
    );
    table.tHead!.replaceChildren(head);
    table.tBodies[0].replaceChildren(...rows.map((_r, i) => rowElement(i)));
    table.classList.toggle('empty', !ready);
  };

  const rowElement = (i: number): HTMLTableRowElement => {
    const row = rows[i];
    const edited = () => {
      dirty = true;
      if (selected === i) studio.setValues({ values: row.variables, row: { index: i, name: row.outputKey }, from: 'rows' });
      saveButton.classList.add('dirty');
      if (file) say(`${file}: ${rows.length} rows, not saved`);
    };
    const key = h('input', {
      attrs: { type: 'text', name: 'outputKey', spellcheck: 'false', 'aria-label': `Row ${i + 1} outputKey`, 'aria-invalid': row.refused !== undefined, title: row.refused },
    });
    key.value = row.outputKey;
    key.addEventListener('input', () => {
      row.outputKey = key.value;
      // Checked again when saved.
      row.refused = undefined;
      key.removeAttribute('aria-invalid');
      edited();
    });
    const cells = declarations.map((d) =>
      h(
        'td',
        {},
        variableControl(
          d,
          row.variables[d.id],
          (v) => {
            if (v === undefined) delete row.variables[d.id];
            else row.variables[d.id] = v;
            edited();
          },
          { cell: true },
        ),
      ),
    );
    const tr = h(
      'tr',
      { class: selected === i ? 'selected' : '', attrs: { 'data-row': i }, on: { focusin: () => select(i), pointerdown: () => select(i) } },
      h('td', { class: 'num' }, String(i + 1)),
      h('td', {}, key),
      ...cells,
      h('td', { class: 'row-render' }, rowStatus(i)),
    );
    return tr;
  };

  /** A row's state in the latest render of this file, by its line in the file; none while the rows are edited. */
  const rowStatus = (i: number): HTMLElement | string => {
    const p = dirty ? undefined : progress.find((r) => r.line === lines[i]);
    if (!p) return '';
    const share = p.totalFrames ? Math.min(1, p.frames / p.totalFrames) : p.state === 'rendered' || p.state === 'skipped' ? 1 : 0;
    const url = p.output ? `/${p.output.split('/').map(encodeURIComponent).join('/')}` : null;
    return h(
      'span',
      { class: `row-progress row-state-${p.state}`, attrs: { title: p.error ?? '' } },
      h('span', { class: 'progress small' }, h('span', { attrs: { style: `width: ${share * 100}%` } })),
      url ? h('a', { attrs: { href: url, target: '_blank', rel: 'noopener' } }, p.state) : p.state,
    );
  };

  const highlight = (i: number | null) => {
    selected = i;
    table.querySelectorAll('tr.selected').forEach((tr) => tr.classList.remove('selected'));
    if (i !== null) table.querySelector(`tr[data-row="${i}"]`)?.classList.add('selected');
    editButtons.forEach((b, n) => n > 0 && (b.disabled = file === null || problems.length > 0 || i === null));
  };
  /** Picks a row to preview (the variables panel then edits it); null gives the panel its own values back. */
  const select = (i: number | null) => {
    if (selected === i) return;
    highlight(i);
    if (i !== null) studio.setValues({ values: rows[i].variables, row: { index: i, name: rows[i].outputKey }, from: 'rows' });
    else if (studio.values.row !== null) studio.emit('unbind', undefined);
  };

  const freshKey = (wanted: string): string => {
    const taken = new Set(rows.map((r) => r.outputKey));
    const dot = wanted.lastIndexOf('.');
    const [stem, ext] = dot > 0 ? [wanted.slice(0, dot), wanted.slice(dot)] : [wanted, ''];
    let key = wanted;
    for (let n = 2; taken.has(key); n++) key = `${stem}-${n}${ext}`;
    return key;
  };

  const insert = (at: number, row: Row) => {
    rows.splice(at, 0, row);
    dirty = true;
    selected = null;
    draw();
    select(at);
    table.querySelector<HTMLInputElement>(`tr[data-row="${at}"] input[name="outputKey"]`)?.focus();
  };

  byId('rows-open').addEventListener('click', () => void open());
  picker.addEventListener('change', () => void open());
  const open = async () => {
    if (!picker.value) return;
    if (dirty && !confirm(`${file} has changes that are not saved. Open ${picker.value} and lose them?`)) return;
    try {
      opened(await getJson<RowsFile>('rows', { file: picker.value, composition: studio.page }));
    } catch (err) {
      say((err as Error).message, true);
    }
  };
  byId('rows-new').addEventListener('click', async () => {
    // A name typed with a rows file's extension has that type; else the type picked beside it.
    const typed = [...newType.options].find((o) => newName.value.trim().toLowerCase().endsWith(o.value));
    const name = newName.value.trim().slice(0, typed ? -typed.value.length : undefined);
    if (!name) {
      newName.focus();
      return;
    }
    try {
      opened(await postJson<RowsFile>('rows/new', { file: `${name}${typed?.value ?? newType.value}`, composition: studio.page }));
      newName.value = '';
    } catch (err) {
      say((err as Error).message, true);
    }
  });
  // A new row's video is named for the format picked (the option carries its extension).
  editButtons[0].addEventListener('click', () =>
    insert(rows.length, { outputKey: freshKey(`row-${rows.length + 1}${format.selectedOptions[0]?.dataset.extension ?? '.mp4'}`), variables: {} }),
  );
  editButtons[1].addEventListener('click', () => {
    if (selected === null) return;
    const source = rows[selected];
    insert(selected + 1, { outputKey: freshKey(source.outputKey), variables: structuredClone(source.variables) });
  });
  editButtons[2].addEventListener('click', () => {
    if (selected === null) return;
    rows.splice(selected, 1);
    dirty = true;
    const next = Math.min(selected, rows.length - 1);
    selected = null;
    draw();
    select(next >= 0 ? next : null);
    if (next < 0 && studio.values.row !== null) studio.emit('unbind', undefined);
  });

  const save = async (): Promise<boolean> => {
    if (file === null) return false;
    try {
      const saved = await postJson<RowsFile>('rows/save', { file, composition: studio.page, rows });
      opened(saved, selected);
      say(`${file}: ${rows.length} row${rows.length === 1 ? '' : 's'}, saved`);
      return saved.problems.length === 0;
    } catch (err) {
      say((err as Error).message, true);
      return false;
    }
  };
  saveButton.addEventListener('click', () => void save());
  renderButton.addEventListener('click', async () => {
    if (file === null || (dirty && !(await save()))) return;
    try {
      await postJson<StudioJob>('jobs', { kind: 'rows', composition: studio.page, rowsFile: file, format: format.value, quality: quality.value });
      showTab();
    } catch (err) {
      say((err as Error).message, true);
    }
  });

  studio.on('job', (job) => {
    if (job.kind !== 'rows' || job.rowsFile !== file || !job.rows) return;
    progress = job.rows;
    table.querySelectorAll<HTMLTableRowElement>('tbody tr').forEach((tr, i) => tr.lastElementChild!.replaceChildren(rowStatus(i)));
  });
  studio.on('composition', (info) => {
    if (!info.declarations) return;
    declarations = info.declarations;
    draw();
    // A table's cells are typed by the declarations: read it again with these, unless it has edits.
    if (file !== null && !dirty && !file.toLowerCase().endsWith('.jsonl')) void reread(file);
  });
  const reread = async (name: string) => {
    try {
      const result = await getJson<RowsFile>('rows', { file: name, composition: studio.page });
      if (name !== file || dirty) return;
      opened(result, selected);
      if (selected !== null) studio.setValues({ values: rows[selected].variables, row: { index: selected, name: rows[selected].outputKey }, from: 'rows' });
    } catch (err) {
      say((err as Error).message, true);
    }
  };
  studio.on('values', (v) => {
    if (v.row === null) highlight(null);
    // The panel edits the bound row.
    if (v.from === 'rows' || v.row === null || !rows[v.row.index]) return;
    rows[v.row.index].variables = { ...v.values };
    dirty = true;
    const tr = table.querySelector(`tr[data-row="${v.row.index}"]`);
    tr?.replaceWith(rowElement(v.row.index));
    saveButton.classList.add('dirty');
    if (file) say(`${file}: ${rows.length} rows, not saved`);
  });
  window.addEventListener('beforeunload', (e) => {
    if (dirty) e.preventDefault();
  });
  void listFiles();
  draw();
}
