import type { Protocol } from 'puppeteer-core';
import type { VidkitRuntime } from '../../runtime/protocol';

/** The methods of `window.__vidkit` (../runtime/protocol.ts). */
type RuntimeMethod = { [K in keyof VidkitRuntime]: VidkitRuntime[K] extends (...args: never[]) => unknown ? K : never }[keyof VidkitRuntime];

/** A call of the page runtime as DevTools' Runtime.evaluate takes it, with the type of what it returns (awaited). */
export interface RuntimeCall<R> {
  readonly expression: string;
  /** Never set: carries the result's type to {@link callResult}. */
  readonly result?: R;
}

/**
 * `window.__vidkit.<name>(...args)` with the arguments written as JSON: the expression the
 * renderer evaluates in a page or frame (by context id, which puppeteer's evaluate cannot name),
 * checked against the protocol the runtime implements.
 */
export function runtimeCall<K extends RuntimeMethod>(name: K, ...args: Parameters<VidkitRuntime[K]>): RuntimeCall<Awaited<ReturnType<VidkitRuntime[K]>>> {
  return { expression: `window.__vidkit.${name}(${args.map((arg) => JSON.stringify(arg)).join(', ')})` };
}

/** What an evaluated call returned by value. */
export function callResult<R>(_call: RuntimeCall<R>, response: Protocol.Runtime.EvaluateResponse): R {
  return response.result.value as R;
}
