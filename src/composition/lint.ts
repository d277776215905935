import { HTMLElement, parse } from 'node-html-parser';
import { VidkitError } from '../errors';
import { projectReader } from './project-page';
import { ENTRY_FILE, findRoot, readEntry, readRoot } from './composition';
import { lintClips } from './lint-clips';
import { LintContext, LintFinding, LintReport, lineAt } from './lint-finding';
import { lintScripts } from './lint-scripts';
import { lintVariables } from './lint-variables';
import { insideTemplate, isHost, mountSubCompositions } from './sub-compositions';

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
  lintSubCompositions(ctx);
  lintVariables(ctx);
  lintClips(ctx);
  lintScripts(ctx);
  const rank = (f: LintFinding) => (f.severity === 'error' ? 0 : 1);
  return findings.sort((a, b) => (a.file === b.file ? (a.line ?? 0) - (b.line ?? 0) || rank(a) - rank(b) : a.file < b.file ? -1 : 1));
}

/**
 * The root as a render reads it (the same checks, so a clean lint means the render accepts the
 * root), and ids that name two compositions of the page (a sub-composition's host gets an id of
 * its own when mounted, and markup inside a `<template>` is not yet part of the page).
 */
function lintRoot(ctx: LintContext): void {
  try {
    ctx.durationSeconds = readRoot(ctx.doc, ctx.file).durationSeconds;
  } catch (err) {
    if (!(err instanceof VidkitError)) throw err;
    ctx.report({ severity: 'error', rule: 'root', message: withoutFile(ctx, err.message), at: ctx.root ?? undefined });
  }
  const seen = new Map<string, HTMLElement>();
  for (const el of ctx.doc.querySelectorAll('[data-composition-id]')) {
    if (isHost(el, ctx.doc) || insideTemplate(el)) continue;
    const id = el.getAttribute('data-composition-id')!;
    const first = seen.get(id);
    if (!first) {
      seen.set(id, el);
      continue;
    }
    ctx.report({
      severity: 'error',
      rule: 'composition-id-duplicate',
      message: `data-composition-id="${id}" names a composition already (line ${lineAt(ctx.html, first.range[0])}): timelines and relative starts find the first only; give each composition its own id`,
      at: el,
    });
  }
}

/**
 * Sub-compositions mounted as the project server mounts them (the same transform): a file that
 * is not in the project, one that includes itself, `data-variable-values` that is not a JSON
 * object. The first problem stops the mount, so it is the one reported.
 */
function lintSubCompositions(ctx: LintContext): void {
  try {
    mountSubCompositions(ctx.html, ctx.file, projectReader(ctx.projectDir));
  } catch (err) {
    if (!(err instanceof VidkitError)) throw err;
    // The host the message is about: the one whose file or values it quotes.
    const quoted = (el: HTMLElement, attr: string) => el.hasAttribute(attr) && err.message.includes(el.getAttribute(attr)!);
    const host = ctx.doc.querySelectorAll('[data-composition-src], [data-variable-values]').find((el) => quoted(el, 'data-composition-src') || quoted(el, 'data-variable-values'));
    ctx.report({ severity: 'error', rule: 'sub-composition', message: withoutFile(ctx, err.message), at: host ?? ctx.root ?? undefined });
  }
}

/** A message of the render's own, without the `index.html: ` its checks begin with. */
function withoutFile(ctx: LintContext, message: string): string {
  return message.startsWith(`${ctx.file}: `) ? message.slice(ctx.file.length + 2) : message;
}
