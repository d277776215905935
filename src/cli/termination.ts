import type { Writable } from 'node:stream';
import { ExitCode } from '../errors';
import { removeLeftovers } from '../render/browser/leftovers';

const EXIT_CODES = { SIGINT: ExitCode.Interrupted, SIGTERM: ExitCode.Terminated, SIGHUP: ExitCode.Hangup } as const;

/**
 * Ctrl-C, SIGTERM and SIGHUP end a render at once: every browser is killed and every segment,
 * partial output and browser profile removed (synchronously, so nothing outlives the process),
 * then vidkit exits 130, 143 or 129 (docs/reference/command-line.md). Returns a function that removes the handlers.
 */
export function exitOnTermination(stderr: Writable, beforeExit: () => void = () => undefined): () => void {
  const handlers = Object.entries(EXIT_CODES).map(([signal, code]) => {
    const handler = () => {
      beforeExit();
      removeLeftovers();
      stderr.write(`\nvidkit: interrupted (${signal}): render stopped, temporary files removed\n`);
      process.exit(code);
    };
    process.once(signal, handler);
    return () => process.removeListener(signal, handler);
  });
  return () => handlers.forEach((remove) => remove());
}
