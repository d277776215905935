// docs/reference/render-options.md, written from the render option table so the page cannot
// drift from the flags; `npm run docs:options` writes it and a test compares the committed page.
import { ApiValueTypes, RenderOptionSpec, Surface, renderOptionEntries } from './registry';
import { DEFAULT_CHUNK_SIZE, DEFAULT_MAX_PARALLEL_CHUNKS, FPS_CEILING, MAX_TIMEOUT_SECONDS, OUTPUT_FORMATS, QUALITIES } from '../values/constants';

/** Where the page lives, relative to the repository root. */
export const REFERENCE_PAGE = 'docs/reference/render-options.md';

const SURFACES: [Surface, string][] = [
  ['render', '`vidkit render`, `render()`'],
  ['still', '`vidkit still`'],
  ['batch', '`vidkit render --batch`'],
  ['cloudfn', '`vidkit cloudfn render`'],
  ['cloudfn-batch', '`vidkit cloudfn render-batch`'],
  ['sdk', "the cloud SDK's `config`"],
];

/** The API types as a caller writes them. */
const API_TYPES: Record<keyof ApiValueTypes, string> = {
  string: 'string',
  number: 'number',
  boolean: 'boolean',
  workers: "number \\| 'auto'",
  epoch: 'string \\| number',
  format: OUTPUT_FORMATS.map((f) => `'${f}'`).join(' \\| '),
  quality: QUALITIES.map((q) => `'${q}'`).join(' \\| '),
  capture: "'auto' \\| 'beginframe' \\| 'screenshot'",
  variables: 'object of variable values',
};

/** Text for a table cell: pipes escaped, and angle brackets so `<video>` is not read as HTML. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function flagCell(spec: RenderOptionSpec): string {
  const flag = spec.kind === 'boolean' && spec.cliDefault === true ? `--no-${spec.flag.slice(2)}` : spec.flag;
  const names = spec.short === undefined ? `\`${flag}\`` : `\`${flag}\`, \`${spec.short}\``;
  return spec.value === undefined ? names : `${names} \`${spec.value.replace(/\|/g, '\\|')}\``;
}

/** The page's Markdown, ending in one newline. */
export function renderOptionsPage(): string {
  const lines = [
    '# Render options',
    '',
    '<!-- Generated from src/options/registry.ts by `npm run docs:options`; edit the table there, not this page. -->',
    '',
    'Every option that shapes a render, with its flag, its name in `render()` (package `vidkit`) and in',
    "the cloud SDK's `config` (package `vidkit/cloud-sdk`), its default and where it applies. A flag",
    'takes text; `render()` and the SDK take the API type. An option without an API name is the',
    'command line\'s only.',
    '',
    'Shared limits: a frame rate above 0 and at most ' + FPS_CEILING + '; page deadlines of at most ' + MAX_TIMEOUT_SECONDS + ' seconds;',
    'cloud renders use chunks of ' + DEFAULT_CHUNK_SIZE + ' frames and ' + DEFAULT_MAX_PARALLEL_CHUNKS + ' chunks at once unless told otherwise.',
    '',
    'Applies to: ' + SURFACES.map(([s, what]) => `**${s}**: ${what}`).join('; ') + '.',
    '',
    '| flag | API name: type | default | applies to | description |',
    '|---|---|---|---|---|',
  ];
  for (const [name, spec] of renderOptionEntries()) {
    const api = spec.api === undefined ? '-' : `\`${name}\`: ${API_TYPES[spec.api]}`;
    const docs = `[more](../../${spec.doc})`;
    lines.push(`| ${flagCell(spec)} | ${api} | ${spec.default === undefined ? '-' : `\`${spec.default}\``} | ${spec.appliesTo.join(', ')} | ${cell(spec.description)} (${docs}) |`);
  }
  return `${lines.join('\n')}\n`;
}
