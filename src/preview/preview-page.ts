import { OUTPUT_FORMATS } from '../values/constants';
import { OutputFormat, formatExtension, isDirectoryFormat } from '../values/formats';
import { FONTS_PREFIX } from '../fonts/fonts-prefix';
import { ROWS_EXTENSIONS } from './rows-file';
import { STUDIO_STYLE } from './studio-style';

/** What the format menu calls each format. */
const FORMAT_NAMES: Record<OutputFormat, string> = {
  mp4: 'MP4 (H.264)',
  webm: 'WebM (VP9, alpha)',
  mov: 'MOV (ProRes 4444)',
  'hdr-pq': 'HDR PQ (HEVC)',
  'hdr-hlg': 'HDR HLG (HEVC)',
  gif: 'GIF',
  'png-sequence': 'PNG sequence',
  hls: 'HLS',
};

/**
 * The preview page, a studio: the compositions and lint findings on the left, the player in the
 * middle, the variables and the render queue on the right, and the timeline, the rows table and
 * the source view below. Scripts (src/preview/studio/) fill it in. It loads nothing but this
 * server's own files, fonts included (the bundled Inter, JetBrains Mono and fallback faces).
 */
export function previewPageHtml(title: string): string {
  const t = escapeHtml(title);
  // The formats that write one file (png-sequence and hls write folders), each with its extension for new rows' outputKeys.
  const options = OUTPUT_FORMATS.filter((f) => !isDirectoryFormat(f))
    .map((f) => `<option value="${f}" data-extension="${formatExtension(f)}">${FORMAT_NAMES[f]}</option>`)
    .join('');
  const rowsTypes = ROWS_EXTENSIONS.map((e) => `<option value="${e}">${e}</option>`).join('');
  return `<!DOCTYPE html>
<html lang="en" data-theme="dark">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="dark light">
<title>${t} · vidkit studio</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${FONTS_PREFIX}fonts.css">
<style>${STUDIO_STYLE}</style>
<script type="module" src="/__vidkit/player.js"></script>
<script type="module" src="/__vidkit/studio.js"></script>
</head>
<body>
<div class="app">
  <header class="topbar">
    <div class="brand"><span class="logo" data-icon="logo"></span>vidkit <span class="muted">studio</span></div>
    <div class="title"><strong id="title">${t}</strong><code id="title-file">index.html</code></div>
    <span class="spacer"></span>
    <button id="undo" class="icon-button" type="button" aria-label="Undo" title="Nothing to undo" disabled><span class="icon" data-icon="undo"></span></button>
    <button id="redo" class="icon-button" type="button" aria-label="Redo" title="Nothing to redo" disabled><span class="icon" data-icon="redo"></span></button>
    <button id="theme" class="icon-button" type="button"></button>
    <label class="select"><span class="sr-only">Format</span><select id="format" title="Format">${options}</select></label>
    <label class="select"><span class="sr-only">Quality</span><select id="quality" title="Quality">
      <option value="draft">Draft</option><option value="standard" selected>Standard</option><option value="high">High</option>
    </select></label>
    <button id="render" class="primary" type="button" title="Render the composition with the values shown"><span class="icon" data-icon="render"></span>Render</button>
  </header>

  <nav class="sidebar" aria-label="Project">
    <section>
      <h2>Compositions</h2>
      <ul id="compositions" class="plain"></ul>
    </section>
    <section>
      <h2>Problems <span id="problems-count" class="count"></span></h2>
      <ul id="problems" class="plain"></ul>
    </section>
  </nav>

  <main id="stage" class="stage">
    <div id="edit-status" class="edit-status" role="status" hidden></div>
    <vidkit-player id="player" src="/index.html" muted></vidkit-player>
    <div id="canvas-layer" class="canvas-layer" tabindex="0" aria-label="Canvas: click an element to select it, or press Enter to select the next one"></div>
    <div id="selection-bar" class="selection-bar" hidden></div>
  </main>

  <aside class="inspector">
    <div class="tabs" role="tablist" data-tabs="inspector">
      <button role="tab" data-tab="variables" aria-controls="variables-tab" type="button">Variables</button>
      <button role="tab" data-tab="renders" aria-controls="renders-tab" type="button">Renders <span id="jobs-badge" class="badge" hidden></span></button>
    </div>
    <section id="variables-tab" role="tabpanel" class="panel">
      <div id="bound-row-bar" class="bound" hidden><span id="bound-row"></span><button id="unbind-row" class="link" type="button">Use the panel's own values</button></div>
      <form id="variables" autocomplete="off"></form>
      <div id="problem" class="error"></div>
      <ul id="glyph-warnings" class="plain glyph-warnings"></ul>
      <div class="command-box"><span class="muted">Same render on the command line</span><code id="command"></code></div>
    </section>
    <section id="renders-tab" role="tabpanel" class="panel" hidden>
      <div id="render-problem" class="error"></div>
      <ul id="jobs" class="plain jobs empty"></ul>
      <p class="muted jobs-empty">Renders appear here: press Render. They are written to the project's <code>out/</code> folder.</p>
      <p id="queue-limit" class="muted"></p>
    </section>
  </aside>

  <section class="dock">
    <div class="tabs" role="tablist" data-tabs="dock">
      <button role="tab" data-tab="timeline" aria-controls="timeline-tab" type="button">Timeline</button>
      <button role="tab" data-tab="rows" aria-controls="rows-tab" type="button">Rows</button>
      <button role="tab" data-tab="source" aria-controls="source-tab" type="button">Source</button>
      <span class="spacer"></span>
      <span class="keys muted" title="Keyboard">
        <kbd>Space</kbd> play <kbd data-icon="arrowLeft" aria-label="Left"></kbd><kbd data-icon="arrowRight" aria-label="Right"></kbd> frame (Shift: second) <kbd>J</kbd><kbd>K</kbd><kbd>L</kbd> <kbd>Home</kbd><kbd>End</kbd>
      </span>
    </div>
    <div id="timeline-tab" role="tabpanel" class="dock-panel"><div id="timeline" class="timeline"></div></div>
    <div id="rows-tab" role="tabpanel" class="dock-panel rows" hidden>
      <div class="rows-toolbar">
        <label class="select"><span class="sr-only">Rows file</span><select id="rows-file"></select></label>
        <button id="rows-open" type="button" class="icon-button" title="Open the rows file" aria-label="Open the rows file"><span class="icon" data-icon="folder"></span></button>
        <span class="new-rows"><input id="rows-new-name" type="text" placeholder="new rows file" aria-label="Name of a new rows file" spellcheck="false">
        <label class="select"><span class="sr-only">Type of the new rows file</span><select id="rows-new-type" title="JSONL lines or a CSV / TSV table">${rowsTypes}</select></label>
        <button id="rows-new" type="button">New</button></span>
        <span class="sep"></span>
        <button id="rows-add" type="button" title="Add a row"><span class="icon" data-icon="plus"></span>Add</button>
        <button id="rows-duplicate" type="button" title="Duplicate the row picked"><span class="icon" data-icon="duplicate"></span>Duplicate</button>
        <button id="rows-delete" type="button" title="Delete the row picked"><span class="icon" data-icon="trash"></span>Delete</button>
        <span class="sep"></span>
        <button id="rows-save" type="button" title="Save the rows to their file"><span class="icon" data-icon="save"></span>Save</button>
        <button id="rows-render" type="button" class="primary" title="Render every row"><span class="icon" data-icon="render"></span>Render rows</button>
        <span id="rows-status" class="muted status"></span>
      </div>
      <ul id="rows-problems" class="plain"></ul>
      <div class="table-scroll"><table id="rows-table" class="empty"><thead></thead><tbody></tbody></table>
        <p class="muted rows-empty">Open a rows file of the project as <code>vidkit render --batch</code> reads it: JSONL, one <code>{"outputKey", "variables"}</code> a line, or a CSV or TSV table with an <code>outputKey</code> column and a column per variable. Or start a new one.</p></div>
    </div>
    <div id="source-tab" role="tabpanel" class="dock-panel" hidden>
      <div class="source-head"><span class="icon" data-icon="code"></span><code id="source-file">Pick a lint finding or a clip's line to see its source.</code></div>
      <div id="source" class="source"></div>
    </div>
  </section>
</div>
</body>
</html>
`;
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
