import { HTMLElement, parse } from 'node-html-parser';
import { VidkitError } from '../errors';
import { ENTRY_FILE, findRoot, readEntry, readRoot } from './composition';
import { lintClips } from './lint-clips';
import { LintContext, LintFinding, LintReport, lineAt } from './lint-finding';
import { lintScripts } from './lint-scripts';
import { lintVariables } from './lint-variables';

export type { LintFinding, LintReport, Severity } from './lint-finding';

/** Lints `<projectDir>/index.html`; a missing directory or entry file is bad input (exit 2). */
export function lintProject(projectDir: string): LintReport {
  const { dir, html } = readEntry(projectDir);
  const findings = lintHtml(html, dir);
  return {
    projectDir: dir,
    errors: findings.filter((f) => f.severity === 'error').length,
    warnings: findings.filter((f) => f.severity === 'warning').length,
    findings,
  };
}

/** The findings of one composition's HTML, sorted by file and line, errors first on a line. */
export function lintHtml(html: string, projectDir: string, file = ENTRY_FILE): LintFinding[] {
  const doc = parse(html);
  const findings: LintFinding[] = [];
  const ctx: LintContext = {
    projectDir,
    file,
    html,
    doc,
    root: findRoot(doc),
    report: ({ at, file: otherFile, line, ...rest }) => {
      const where = at === undefined ? line : lineAt(html, at.range[0]);
      findings.push({ ...rest, file: otherFile ?? file, ...(where === undefined ? {} : { line: where }) });
    },
  };
  lintRoot(ctx);
  lintVariables(ctx);
  lintClips(ctx);
  lintScripts(ctx);
  const rank = (f: LintFinding) => (f.severity === 'error' ? 0 : 1);
  return findings.sort((a, b) => (a.file === b.file ? (a.line ?? 0) - (b.line ?? 0) || rank(a) - rank(b) : a.file < b.file ? -1 : 1));
}

/**
 * The root as a render reads it (the same checks, so a clean lint means the render accepts the
 * root), ids that name two compositions, and nested compositions loaded from files.
 */
function lintRoot(ctx: LintContext): void {
  try {
    ctx.durationSeconds = readRoot(ctx.doc, ctx.file).durationSeconds;
  } catch (err) {
    if (!(err instanceof VidkitError)) throw err;
    const message = err.message.startsWith(`${ctx.file}: `) ? err.message.slice(ctx.file.length + 2) : err.message;
    ctx.report({ severity: 'error', rule: 'root', message, at: ctx.root ?? undefined });
  }
  const seen = new Map<string, HTMLElement>();
  for (const el of ctx.doc.querySelectorAll('[data-composition-id]')) {
    const id = el.getAttribute('data-composition-id')!;
    const first = seen.get(id);
    if (first) {
      ctx.report({
        severity: 'error',
        rule: 'composition-id-duplicate',
        message: `data-composition-id="${id}" names a composition already (line ${lineAt(ctx.html, first.range[0])}): timelines and relative starts find the first only; give each composition its own id`,
        at: el,
      });
    } else {
      seen.set(id, el);
    }
    if (el.hasAttribute('data-composition-src')) {
      ctx.report({
        severity: 'error',
        rule: 'composition-src-unsupported',
        message: `data-composition-src="${el.getAttribute('data-composition-src')}": nested compositions loaded from other files are not supported yet, so this one renders empty; put its markup and script inline`,
        at: el,
      });
    }
  }
}
