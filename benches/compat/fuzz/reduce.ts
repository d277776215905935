/**
 * Reduces a failing set of parts to a smallest one that still fails: delta debugging (ddmin) over
 * the parts, then each remaining numeric option set to its simplest value where the failure stays. The
 * oracle is any async predicate ("these parts still differ"); each distinct candidate is asked once.
 */
import { Part, simplestOptions } from './parts';

export type Oracle = (parts: Part[]) => Promise<boolean>;

export interface Reduction {
  parts: Part[];
  /** Distinct candidates the oracle was asked about. */
  tests: number;
}

/** `parts` must fail; the result fails too, and no single part or numeric option can be simplified further without it passing (within `maxTests`). */
export async function reduce(parts: Part[], oracle: Oracle, maxTests = Infinity): Promise<Reduction> {
  const seen = new Map<string, boolean>();
  const fails = async (candidate: Part[]): Promise<boolean> => {
    const key = JSON.stringify(candidate);
    const known = seen.get(key);
    if (known !== undefined) return known;
    if (seen.size - 1 >= maxTests) return false;
    const result = await oracle(candidate);
    seen.set(key, result);
    return result;
  };
  seen.set(JSON.stringify(parts), true);
  const fewer = await ddmin(parts, fails);
  const simpler = await simplifyOptions(fewer, fails);
  return { parts: simpler, tests: seen.size - 1 };
}

/** Zeller's ddmin: tries subsets, then complements, at finer and finer granularity. */
async function ddmin<T>(items: T[], fails: (c: T[]) => Promise<boolean>): Promise<T[]> {
  let current = items;
  let n = 2;
  while (current.length >= 2) {
    const chunks = split(current, n);
    let reduced = false;
    for (const chunk of chunks) {
      if (await fails(chunk)) {
        current = chunk;
        n = 2;
        reduced = true;
        break;
      }
    }
    if (!reduced && n > 2) {
      for (let i = 0; i < chunks.length; i++) {
        const complement = chunks.filter((_, j) => j !== i).flat();
        if (await fails(complement)) {
          current = complement;
          n = Math.max(n - 1, 2);
          reduced = true;
          break;
        }
      }
    }
    if (!reduced) {
      if (n >= current.length) break;
      n = Math.min(current.length, n * 2);
    }
  }
  return current;
}

function split<T>(items: T[], n: number): T[][] {
  const chunks: T[][] = [];
  let start = 0;
  for (let i = 0; i < n; i++) {
    const end = start + Math.floor((items.length - start) / (n - i));
    chunks.push(items.slice(start, end));
    start = end;
  }
  return chunks.filter((c) => c.length > 0);
}

/**
 * Sets each numeric option (a time, a length, a track) of each part to its simplest value, one at a
 * time, keeping what still fails. Named and yes/no options choose what the part exercises (the
 * trigger, the effect, the mount) and stay as found: changing them let a reduction slip from one
 * difference to another (a transition set by the timeline became one set by a timer, which differs
 * for another reason).
 */
async function simplifyOptions(parts: Part[], fails: (c: Part[]) => Promise<boolean>): Promise<Part[]> {
  let current = parts;
  for (let i = 0; i < current.length; i++) {
    const simplest = simplestOptions(current[i].kind);
    for (const key of Object.keys(current[i].options)) {
      if (typeof current[i].options[key] !== 'number' || current[i].options[key] === simplest[key]) continue;
      const candidate = current.map((p, j) => (j === i ? { ...p, options: { ...p.options, [key]: simplest[key] } } : p));
      if (await fails(candidate)) current = candidate;
    }
  }
  return current;
}
