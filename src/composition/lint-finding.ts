import type { HTMLElement } from 'node-html-parser';

export type Severity = 'error' | 'warning';

/** One thing in a composition that will not render as its author expects (README, `vidkit lint`). */
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

