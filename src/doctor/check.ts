/** One line of `vidkit doctor`. */
export interface CheckResult {
  name: string;
  /** `warn`: works, or is needed only by some commands, and could be better; `skip`: an earlier check failed. */
  status: 'ok' | 'warn' | 'fail' | 'skip';
  /** A failed required check makes doctor exit 3; the others only warn. */
  required: boolean;
  detail: string;
  /** What to do about a warning or a failure. */
  fix?: string;
}

export const ok = (name: string, required: boolean, detail: string): CheckResult => ({ name, status: 'ok', required, detail });

export const problem = (name: string, required: boolean, detail: string, fix: string): CheckResult => ({
  name,
  status: required ? 'fail' : 'warn',
  required,
  detail,
  fix,
});

/** Works, and could work better. */
export const warning = (name: string, required: boolean, detail: string, fix: string): CheckResult => ({ name, status: 'warn', required, detail, fix });

export const skipped = (name: string, required: boolean, detail: string): CheckResult => ({ name, status: 'skip', required, detail });
