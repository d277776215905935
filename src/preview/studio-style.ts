import { FALLBACK_FAMILY } from '../fonts/fallback-fonts';

/**
 * The page's fonts: the bundled Inter for text and JetBrains Mono for code, then the bundled
 * fallback faces, so the values an author types in any script (a Japanese caption in a rows cell)
 * are drawn too; never the machine's fonts.
 */
const TEXT_FONT = `"Inter", ${JSON.stringify(FALLBACK_FAMILY)}, sans-serif`;
const CODE_FONT = `"JetBrains Mono", ${JSON.stringify(FALLBACK_FAMILY)}, monospace`;

/**
 * The studio page's style sheet (inlined in the page, preview-page.ts): a grid of panels that
 * holds from 1024 px wide, light and dark themes, and only the bundled fonts, so every character
 * drawn is one those fonts have.
 */
export const STUDIO_STYLE: string = `
:root { color-scheme: dark; }
html[data-theme="dark"] {
  --bg: #0e1014; --panel: #15181e; --panel-2: #1b1f27; --raised: #222733; --line: #2a2f3a; --line-2: #353b48;
  --text: #e7e9ee; --muted: #9299a6; --faint: #6b7280; --accent: #8b6cff; --accent-2: #a48dff; --accent-text: #ffffff;
  --accent-soft: rgba(139, 108, 255, 0.16); --error: #ff7a7a; --error-soft: rgba(255, 122, 122, 0.12);
  --warning: #f5b94a; --warning-soft: rgba(245, 185, 74, 0.12); --ok: #4ad39a; --playhead: #ff5a7a;
  --clip-element: #3a4a6b; --clip-composition: #5b3f9e; --clip-video: #1f6f6a; --clip-audio: #2f5d2a; --clip-image: #7a5222;
  --shadow: 0 1px 2px rgba(0, 0, 0, 0.4);
  color-scheme: dark;
}
html[data-theme="light"] {
  --bg: #f3f4f7; --panel: #ffffff; --panel-2: #f7f8fa; --raised: #eef0f4; --line: #e2e5eb; --line-2: #d3d7df;
  --text: #1b1e25; --muted: #5c6472; --faint: #8a919d; --accent: #6d4aff; --accent-2: #5a36f0; --accent-text: #ffffff;
  --accent-soft: rgba(109, 74, 255, 0.1); --error: #c62f3a; --error-soft: rgba(198, 47, 58, 0.08);
  --warning: #a86400; --warning-soft: rgba(168, 100, 0, 0.09); --ok: #137a4f; --playhead: #e0245e;
  --clip-element: #c9d5ef; --clip-composition: #d9cdfb; --clip-video: #bfe6e2; --clip-audio: #cde8c6; --clip-image: #f3dcba;
  --shadow: 0 1px 2px rgba(16, 24, 40, 0.08);
  color-scheme: light;
}
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; }
body { min-width: 1024px; background: var(--bg); color: var(--text); font: 13px/1.45 ${TEXT_FONT};
  font-feature-settings: "cv11", "ss01"; -webkit-font-smoothing: antialiased; overflow: hidden; }
code, kbd, pre, .mono { font-family: ${CODE_FONT}; font-size: 12px; }
button, input, select { font: inherit; color: inherit; }
.muted { color: var(--muted); }
.error { color: var(--error); }
.error:empty { display: none; }
input[aria-invalid] { border-color: var(--error); }
.glyph-warnings li { color: var(--warning); background: var(--warning-soft); border-radius: 6px; padding: 6px 8px; margin-top: 6px; font-size: 12px; }
.glyph-warnings .icon { margin-right: 4px; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.spacer { flex: 1; }
.icon { display: inline-flex; width: 16px; height: 16px; flex: none; }
.icon svg { width: 100%; height: 100%; }
ul.plain, ol.plain { list-style: none; margin: 0; padding: 0; }
[hidden] { display: none !important; }

.app { height: 100vh; display: grid; grid-template-columns: 232px minmax(0, 1fr) 308px;
  grid-template-rows: 48px minmax(180px, 1fr) minmax(230px, 36vh);
  grid-template-areas: "top top top" "side stage inspector" "dock dock dock"; }
@media (max-width: 1200px) { .app { grid-template-columns: 204px minmax(0, 1fr) 276px; } }

button { cursor: pointer; border: 1px solid var(--line-2); background: var(--panel-2); border-radius: 7px; padding: 5px 10px;
  display: inline-flex; align-items: center; gap: 6px; white-space: nowrap; }
button:hover:not(:disabled) { background: var(--raised); }
button:disabled { opacity: 0.45; cursor: default; }
button:focus-visible, input:focus-visible, select:focus-visible, a:focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
button.primary, a.button.primary { background: var(--accent); border-color: var(--accent); color: var(--accent-text); font-weight: 600; }
button.primary:hover:not(:disabled) { background: var(--accent-2); }
button.icon-button { padding: 5px; border-color: transparent; background: transparent; border-radius: 6px; }
button.icon-button:hover:not(:disabled) { background: var(--raised); }
button.link { border: 0; background: none; padding: 0; color: var(--accent-2); }
button.link:hover:not(:disabled) { background: none; text-decoration: underline; }
a { color: var(--accent-2); }
a.button { display: inline-flex; align-items: center; gap: 6px; padding: 4px 10px; border: 1px solid var(--line-2); border-radius: 7px;
  text-decoration: none; color: var(--text); background: var(--panel-2); }
input[type=text], input[type=number], select { background: var(--bg); border: 1px solid var(--line-2); border-radius: 6px; padding: 5px 8px;
  min-width: 0; }
input::placeholder { color: var(--faint); }
input[type=color] { width: 30px; height: 30px; padding: 2px; border: 1px solid var(--line-2); border-radius: 6px; background: var(--bg); flex: none; }
input[type=checkbox] { accent-color: var(--accent); width: 15px; height: 15px; margin: 0; }
kbd { display: inline-flex; align-items: center; min-width: 18px; height: 18px; padding: 0 4px; border: 1px solid var(--line-2);
  border-bottom-width: 2px; border-radius: 4px; font-size: 10.5px; color: var(--text); background: var(--panel-2); }
kbd svg { width: 11px; height: 11px; }

.topbar { grid-area: top; display: flex; align-items: center; gap: 10px; padding: 0 12px; background: var(--panel);
  border-bottom: 1px solid var(--line); }
.brand { display: flex; align-items: center; gap: 8px; font-weight: 700; letter-spacing: -0.01em; font-size: 14px; width: 208px; }
.brand .muted { font-weight: 500; }
.logo { display: inline-flex; width: 22px; height: 22px; color: var(--accent); --logo-cut: var(--panel); }
.logo svg { width: 100%; height: 100%; }
.title { display: flex; align-items: baseline; gap: 8px; min-width: 0; overflow: hidden; white-space: nowrap; }
.title strong { font-size: 14px; }
.title code { color: var(--muted); }
.select select { height: 30px; }
#render { height: 32px; padding: 0 14px; }

.sidebar { grid-area: side; background: var(--panel); border-right: 1px solid var(--line); overflow: auto; padding: 10px 8px; }
.sidebar section + section { margin-top: 18px; }
h2 { display: flex; align-items: center; gap: 6px; margin: 0 6px 6px; font-size: 11px; font-weight: 600; text-transform: uppercase;
  letter-spacing: 0.06em; color: var(--muted); }
.count { font-size: 10.5px; padding: 0 6px; border-radius: 9px; background: var(--raised); color: var(--text); letter-spacing: 0; }
.count:empty { display: none; }
.count.error { background: var(--error-soft); color: var(--error); }
.count.warning { background: var(--warning-soft); color: var(--warning); }
button.composition { width: 100%; border: 0; background: transparent; padding: 6px 8px; border-radius: 7px; text-align: left; align-items: flex-start; }
button.composition .icon { margin-top: 2px; color: var(--muted); }
button.composition.current { background: var(--accent-soft); }
button.composition.current .icon { color: var(--accent-2); }
.composition-text { display: flex; flex-direction: column; min-width: 0; }
.composition-id { font-weight: 600; overflow: hidden; text-overflow: ellipsis; }
.composition-text small { color: var(--muted); font-size: 11px; overflow: hidden; text-overflow: ellipsis; }
button.finding-item { width: 100%; border: 0; background: transparent; padding: 6px 8px; border-radius: 7px; text-align: left;
  align-items: flex-start; white-space: normal; font-size: 12px; }
button.finding-item .icon { margin-top: 1px; }
button.finding-item.is-error .icon { color: var(--error); }
button.finding-item.is-warning .icon { color: var(--warning); }
button.finding-item code { font-size: 11px; color: var(--muted); }
button.finding-item small { color: var(--faint); }
#problems .clean { display: flex; gap: 6px; align-items: center; padding: 4px 8px; font-size: 12px; }
#problems .clean .icon { color: var(--ok); }

.stage { grid-area: stage; min-width: 0; min-height: 0; display: flex; align-items: center; justify-content: center; padding: 16px;
  background: radial-gradient(circle at 50% 40%, var(--panel-2), var(--bg) 70%); overflow: hidden; }
.stage vidkit-player { box-shadow: 0 8px 30px rgba(0, 0, 0, 0.35); }
.stage { position: relative; }
.canvas-layer { position: absolute; cursor: crosshair; }
.canvas-layer:focus-visible { outline: 2px dashed var(--accent); outline-offset: 2px; }
.selection { position: absolute; outline: 2px solid var(--accent-2); outline-offset: 0; cursor: move; box-shadow: 0 0 0 1px rgba(0, 0, 0, 0.5); }
.selection:focus-visible { outline: 3px solid var(--accent); box-shadow: 0 0 0 5px var(--accent-soft); }
.resize-handle { position: absolute; right: -6px; bottom: -6px; width: 11px; height: 11px; border-radius: 2px;
  background: var(--accent-2); border: 1px solid var(--panel); cursor: nwse-resize; }
.text-edit { position: absolute; z-index: 2; font-size: 14px; padding: 4px 6px; }
.selection-bar { position: absolute; left: 12px; right: 12px; bottom: 10px; display: flex; align-items: center; gap: 8px; flex-wrap: wrap;
  padding: 6px 10px; background: var(--panel); border: 1px solid var(--line); border-radius: 8px; font-size: 12px; }
.selection-bar[hidden] { display: none; }
.selection-bar .spacer { flex: 1; }
.selection-bar input { width: 9em; }
.edit-status { position: absolute; left: 12px; right: 12px; top: 8px; z-index: 3; padding: 6px 10px; border-radius: 6px; font-size: 12px;
  background: var(--panel); border: 1px solid var(--line); }
.edit-status[hidden] { display: none; }
.edit-status[data-kind=conflict], .edit-status[data-kind=error] { color: var(--error); background: var(--error-soft); border-color: var(--error); }
.tl-clip { cursor: grab; }
.tl-clip:focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
.tl-clip.dragging { cursor: grabbing; opacity: 0.85; z-index: 2; box-shadow: 0 4px 14px rgba(0, 0, 0, 0.4); }
.tl-edge { position: absolute; top: 0; bottom: 0; width: 6px; cursor: ew-resize; z-index: 1; }
.tl-edge.start { left: 0; }
.tl-edge.end { right: 0; }
.tl-edge:hover { background: rgba(255, 255, 255, 0.25); }
button:disabled .icon { opacity: 0.45; }

.inspector { grid-area: inspector; background: var(--panel); border-left: 1px solid var(--line); display: flex; flex-direction: column; min-height: 0; }
.tabs { display: flex; align-items: center; gap: 2px; padding: 0 8px; border-bottom: 1px solid var(--line); min-height: 38px; flex: none; }
.tabs [role=tab] { border: 0; background: none; border-radius: 0; padding: 10px 10px 9px; color: var(--muted); font-weight: 500;
  border-bottom: 2px solid transparent; margin-bottom: -1px; }
.tabs [role=tab]:hover { background: none; color: var(--text); }
.tabs [role=tab][aria-selected=true] { color: var(--text); border-bottom-color: var(--accent); }
.badge { font-size: 10.5px; min-width: 17px; padding: 0 5px; border-radius: 9px; background: var(--accent); color: var(--accent-text); }
.panel { padding: 12px; overflow: auto; flex: 1; min-height: 0; }
#variables label { display: block; margin: 0 0 12px; }
#variables label > span { display: flex; align-items: baseline; gap: 6px; font-size: 12px; font-weight: 500; margin-bottom: 5px; }
#variables label > span small { color: var(--faint); font-family: ${CODE_FONT}; font-size: 10.5px; font-weight: 400; }
#variables label.check { display: flex; align-items: center; gap: 8px; }
#variables label.check > span { margin: 0; }
#variables input[type=text], #variables input[type=number], #variables select { width: 100%; }
.color { display: flex; gap: 6px; align-items: center; }
.color input[type=text] { flex: 1; width: 0; }
.bound { display: flex; flex-wrap: wrap; gap: 4px 8px; align-items: baseline; padding: 8px 10px; margin-bottom: 12px; border-radius: 7px;
  background: var(--accent-soft); font-size: 12px; }
.command-box { margin-top: 16px; padding-top: 12px; border-top: 1px solid var(--line); font-size: 11px; }
.command-box code { display: block; margin-top: 4px; color: var(--muted); word-break: break-all; font-size: 11px; }

.jobs li.job { border: 1px solid var(--line); border-radius: 9px; padding: 10px; margin-bottom: 10px; background: var(--panel-2); }
.jobs.empty + .jobs-empty { display: block; }
.jobs-empty { display: none; margin: 0; }
.jobs:not(.empty) + .jobs-empty { display: none; }
.job-head { display: flex; align-items: center; gap: 6px; }
.job-head .icon { color: var(--accent-2); }
.job-title { font-weight: 600; flex: 1; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.tag { font-size: 11px; color: var(--muted); background: var(--raised); border-radius: 5px; padding: 1px 6px; white-space: nowrap; }
.job-status { font-size: 12px; color: var(--muted); margin-top: 6px; font-variant-numeric: tabular-nums; }
.job.state-done .job-status { color: var(--ok); }
.job pre.error { white-space: pre-wrap; word-break: break-word; margin: 8px 0 0; padding: 8px; border-radius: 6px; background: var(--error-soft); font-size: 11px; }
.progress { height: 6px; border-radius: 3px; background: var(--raised); overflow: hidden; margin-top: 8px; }
.progress > div, .progress > span { display: block; height: 100%; background: var(--accent); border-radius: 3px; transition: width 0.2s; }
.progress.small { display: inline-block; width: 56px; height: 4px; margin: 0; vertical-align: middle; }
.job-output { margin-top: 8px; }
.job-output video, .job-output img { display: block; width: 100%; border-radius: 6px; background: #000; }
.job-file { display: flex; align-items: center; flex-wrap: wrap; gap: 6px 8px; margin-top: 6px; font-size: 12px; }
.job-file code { flex: 1 1 100%; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; color: var(--muted); }
.job-rows { margin: 8px 0 0; padding-left: 0; list-style: none; font-size: 12px; }
.job-rows li { display: flex; align-items: center; gap: 8px; padding: 2px 0; }
.row-key { flex: 1; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; font-family: ${CODE_FONT}; font-size: 11px; }
.row-state-failed { color: var(--error); }

.dock { grid-area: dock; display: flex; flex-direction: column; min-height: 0; background: var(--panel); border-top: 1px solid var(--line); }
.dock .keys { display: flex; align-items: center; gap: 4px; font-size: 11px; white-space: nowrap; overflow: hidden; }
@media (max-width: 1180px) { .dock .keys { display: none; } }
.dock-panel { flex: 1; min-height: 0; display: flex; flex-direction: column; }
.timeline { flex: 1; min-height: 0; display: flex; flex-direction: column; }
.tl-toolbar { display: flex; align-items: center; gap: 4px; padding: 4px 8px; border-bottom: 1px solid var(--line); flex: none; }
.readout { font-family: ${CODE_FONT}; font-size: 12px; font-variant-numeric: tabular-nums; padding: 0 8px;
  white-space: pre; color: var(--text); min-width: 210px; }
.crumbs { display: flex; align-items: center; gap: 2px; min-width: 0; overflow: hidden; }
.crumbs .icon { color: var(--faint); width: 14px; height: 14px; }
.crumb { border: 0; background: none; padding: 3px 6px; border-radius: 5px; color: var(--muted); }
.crumb.current { color: var(--text); font-weight: 600; }
.tl-body { flex: 1; min-height: 0; display: grid; grid-template-columns: 168px minmax(0, 1fr); overflow-y: auto; overflow-x: hidden; }
.tl-heads { border-right: 1px solid var(--line); background: var(--panel); position: sticky; left: 0; z-index: 2; }
.tl-head-ruler { height: 26px; border-bottom: 1px solid var(--line); }
.tl-head { height: 34px; display: flex; align-items: center; gap: 6px; padding: 0 10px; border-bottom: 1px solid var(--line);
  font-size: 12px; color: var(--muted); white-space: nowrap; overflow: hidden; }
.tl-head span:last-child { overflow: hidden; text-overflow: ellipsis; }
.tl-scroll { overflow-x: auto; overflow-y: hidden; }
.tl-canvas { position: relative; width: 100%; min-width: 100%; cursor: text; user-select: none; touch-action: none; }
.tl-ruler { position: relative; height: 26px; border-bottom: 1px solid var(--line); background: var(--panel-2); }
.tick { position: absolute; top: 0; bottom: 0; border-left: 1px solid var(--line-2); }
.tick span { position: absolute; left: 4px; top: 5px; font-size: 10.5px; color: var(--muted); white-space: nowrap; font-variant-numeric: tabular-nums; }
.tl-lane { position: relative; height: 34px; border-bottom: 1px solid var(--line); }
.tl-clip { position: absolute; top: 4px; height: 26px; display: flex; align-items: center; gap: 5px; padding: 0 6px; overflow: hidden;
  border-radius: 6px; font-size: 11.5px; white-space: nowrap; cursor: pointer; color: var(--text); border: 1px solid rgba(255, 255, 255, 0.08);
  box-shadow: var(--shadow); }
.tl-clip .icon { width: 13px; height: 13px; opacity: 0.85; }
.tl-clip .name { font-weight: 600; overflow: hidden; text-overflow: ellipsis; }
.tl-clip .trim { color: var(--muted); font-size: 10.5px; font-variant-numeric: tabular-nums; }
.tl-clip.kind-element { background: var(--clip-element); }
.tl-clip.kind-composition { background: var(--clip-composition); }
.tl-clip.kind-video { background: var(--clip-video); }
.tl-clip.kind-audio { background: var(--clip-audio); }
.tl-clip.kind-image { background: var(--clip-image); }
.tl-clip.open-end { border-right-style: dashed; }
.tl-clip.selected { outline: 2px solid var(--accent-2); outline-offset: -1px; }
.tl-clip .finding { display: inline-flex; }
.tl-clip .finding.error { color: var(--error); }
.tl-clip .finding.warning { color: var(--warning); }
.tl-clip .enter { margin-left: auto; border: 0; background: rgba(0, 0, 0, 0.18); padding: 2px; border-radius: 4px; }
.tl-clip .trim-bar { position: absolute; bottom: 2px; height: 2px; background: currentColor; opacity: 0.5; border-radius: 1px; }
.tl-playhead { position: absolute; top: 0; bottom: 0; left: 0; width: 0; border-left: 2px solid var(--playhead); margin-left: -1px;
  pointer-events: none; z-index: 3; }
.tl-playhead::before { content: ""; position: absolute; top: 0; left: -6px; border: 5px solid transparent; border-top: 7px solid var(--playhead); }
.tl-empty { padding: 9px 12px; font-size: 12px; }
.tl-details { display: flex; align-items: center; gap: 10px; padding: 5px 12px; border-top: 1px solid var(--line); font-size: 12px;
  min-height: 30px; flex: none; overflow: hidden; white-space: nowrap; }
.tl-details .icon { color: var(--muted); }
.finding-text { display: inline-flex; align-items: center; gap: 4px; }
.finding-text.error { color: var(--error); }
.finding-text.warning { color: var(--warning); }

.rows-toolbar { display: flex; align-items: center; flex-wrap: wrap; gap: 6px; padding: 6px 8px; border-bottom: 1px solid var(--line); }
.rows-toolbar .sep { width: 1px; height: 20px; background: var(--line); margin: 0 2px; }
.rows-toolbar .status { margin-left: 4px; font-size: 12px; }
.rows-toolbar .status.error { color: var(--error); }
.new-rows { display: inline-flex; align-items: center; gap: 4px; }
.new-rows input { width: 130px; }
#rows-file { max-width: 220px; }
#rows-save.dirty { border-color: var(--accent); }
#rows-save.dirty::after { content: ""; width: 6px; height: 6px; border-radius: 3px; background: var(--accent); }
#rows-problems li { display: flex; gap: 6px; align-items: center; padding: 4px 12px; font-size: 12px; }
.table-scroll { flex: 1; min-height: 0; overflow: auto; }
table { border-collapse: separate; border-spacing: 0; min-width: 100%; }
th:last-child, td:last-child { width: 100%; }
table.empty { display: none; }
table:not(.empty) + .rows-empty { display: none; }
.rows-empty { padding: 10px 12px; margin: 0; }
th { position: sticky; top: 0; z-index: 1; background: var(--panel-2); text-align: left; font-weight: 600; font-size: 12px; padding: 6px 8px;
  border-bottom: 1px solid var(--line); white-space: nowrap; }
th small { margin-left: 6px; color: var(--faint); font-weight: 400; font-family: ${CODE_FONT}; font-size: 10px; }
td { padding: 4px 6px; border-bottom: 1px solid var(--line); vertical-align: middle; }
td.num, th.num { width: 36px; text-align: right; color: var(--muted); font-variant-numeric: tabular-nums; }
td input[type=text], td input[type=number], td select { width: 160px; }
td input[name=outputKey] { width: 180px; font-family: ${CODE_FONT}; font-size: 12px; }
td .color input[type=text] { width: 110px; flex: none; }
tbody tr { cursor: pointer; }
tbody tr:hover td { background: var(--panel-2); }
tbody tr.selected td { background: var(--accent-soft); }
tbody tr.selected td.num { color: var(--accent-2); font-weight: 600; }
.row-progress { display: inline-flex; align-items: center; gap: 6px; font-size: 12px; }

.source-head { display: flex; align-items: center; gap: 8px; padding: 6px 12px; border-bottom: 1px solid var(--line); color: var(--muted); }
.source { flex: 1; min-height: 0; overflow: auto; font-family: ${CODE_FONT}; font-size: 12px; line-height: 1.6; padding: 4px 0; }
.source-line { display: flex; white-space: pre; }
.source-line .gutter { flex: none; width: 64px; display: inline-flex; justify-content: flex-end; align-items: center; gap: 4px;
  padding-right: 12px; color: var(--faint); user-select: none; }
.source-line .gutter .icon { width: 12px; height: 12px; }
.source-line.current { background: var(--accent-soft); }
.source-line.current .gutter { color: var(--accent-2); }
.source-line.has-error .gutter { color: var(--error); }
.source-line.has-warning .gutter { color: var(--warning); }
.source-finding { margin-left: 16px; font-family: ${TEXT_FONT}; font-size: 11.5px; white-space: normal; }
.source-finding.error { color: var(--error); }
.source-finding.warning { color: var(--warning); }
`;
