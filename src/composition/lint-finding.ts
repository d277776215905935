import type { HTMLElement } from 'node-html-parser';
import { projectFile } from '../values/project-files';

export type Severity = 'error' | 'warning';

/** One thing in a composition that will not render as its author expects (docs/guide/lint.md). */
export interface LintFinding {
  severity: Severity;
  /** Stable id of the rule, e.g. `clip-reference-unknown`. */
  rule: string;
  message: string;
  /** Relative to the project directory. */
  file: string;
  /** 1-based; absent when the finding is about the file as a whole. */
  line?: number;
  /** Found by reading scripts as text: a guess that the page's code may prove wrong. */
  heuristic?: true;
}

export interface LintReport {
  projectDir: string;
  errors: number;
  warnings: number;
  findings: LintFinding[];
}

/** What every rule sees: the parsed entry file and a way to report. */
export interface LintContext {
  projectDir: string;
  file: string;
  html: string;
  doc: HTMLElement;
  root: HTMLElement | null;
  /** The root's data-duration in seconds, when it has a valid one. */
  durationSeconds?: number;
  /** Located `at` an element of the entry file, or at `file` and `line`. */
  report(finding: Omit<LintFinding, 'file' | 'line'> & { at?: HTMLElement; file?: string; line?: number }): void;
}

/** 1-based line of a character offset. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}


/**
 * The project file a relative URL in `page` names, as the browser resolves it against the page and
 * the project server looks it up; undefined when it is not one the server serves. Null for a URL
 * that is not the project's (a scheme such as `https:`, `data:`, `blob:`, or protocol-relative).
 */
export function pageFile(projectDir: string, page: string, url: string): string | undefined | null {
  const src = url.trim();
  if (/^([a-z][a-z0-9+.-]*:|\/\/)/i.test(src)) return null;
  return projectFile(projectDir, new URL(src, `http://project/${page}`).pathname);
}
