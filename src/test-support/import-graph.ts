import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

/** One import of a module by another, as paths relative to the source root. */
export interface ImportEdge {
  from: string;
  to: string;
}

/**
 * The unit a source file belongs to: its top-level folder (`sdk`), a root file by its name
 * (`errors.ts`), and inside the folders of `split` (`render`) a subfolder on its own
 * (`render/capture`), the files at that folder's root being the folder itself.
 */
export function unitOf(file: string, split: readonly string[]): string {
  const parts = file.split('/');
  if (parts.length === 1) return parts[0];
  if (split.includes(parts[0]) && parts.length > 2) return `${parts[0]}/${parts[1]}`;
  return parts[0];
}

const SOURCE = /\.(ts|mts|js|mjs)$/;
const RESOLVE = ['', '.ts', '.d.ts', '.mts', '.js', '.mjs', '/index.ts'];

function sourceFiles(root: string, dir = ''): string[] {
  const files: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'fixtures') files.push(...sourceFiles(root, rel));
    } else if (SOURCE.test(entry.name) && !/\.test\.ts$/.test(entry.name)) {
      files.push(rel);
    }
  }
  return files;
}

/**
 * Every relative import between the source files under `root` (type-only, dynamic and re-exports
 * included; tests left out, as they sit beside what they test and drive it from above).
 */
export function importEdges(root: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const from of sourceFiles(root)) {
    const info = ts.preProcessFile(fs.readFileSync(path.join(root, from), 'utf8'), true, true);
    for (const { fileName } of info.importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const base = path.join(path.dirname(path.join(root, from)), fileName);
      const hit = RESOLVE.map((ext) => base + ext).find((p) => fs.existsSync(p) && fs.statSync(p).isFile());
      const to = hit && path.relative(root, hit).split(path.sep).join('/');
      if (to && !to.startsWith('..')) edges.push({ from, to });
    }
  }
  return edges;
}

// The imports of `root` from one unit (`unit` of a file) to another, by `from -> to`.
function importsBetween(root: string, unit: (file: string) => string): Map<string, ImportEdge[]> {
  const between = new Map<string, ImportEdge[]>();
  for (const edge of importEdges(root)) {
    const a = unit(edge.from);
    const b = unit(edge.to);
    if (a === b) continue;
    const key = `${a} -> ${b}`;
    if (!between.has(key)) between.set(key, []);
    between.get(key)!.push(edge);
  }
  return between;
}

function filesOf(between: Map<string, ImportEdge[]>, key: string): string {
  return between.get(key)!.map((e) => `${e.from} imports ${e.to}`).join(', ');
}

// One cycle through each group of units that import each other, named with the files whose imports make it.
function cycleProblems(units: Set<string>, between: Map<string, ImportEdge[]>): string[] {
  return cycles(units, [...between.keys()].map((key) => key.split(' -> ') as [string, string])).map((cycle) => {
    const steps = cycle.map((unit, i) => `${unit} -> ${cycle[(i + 1) % cycle.length]}`);
    return `cycle ${[...cycle, cycle[0]].join(' -> ')}: ${steps.map((key) => filesOf(between, key)).join('; ')}`;
  });
}

/** Every cycle of imports between the source files under `root`, each named with the files whose imports make it. */
export function importCycles(root: string): string[] {
  return cycleProblems(new Set(sourceFiles(root)), importsBetween(root, (file) => file));
}

/**
 * What breaks the layering of `root`: a unit that `layers` (bottom first) does not place, an
 * import of a unit from a higher layer, and every cycle between units, each named with the files
 * whose imports make it.
 */
export function layerProblems(root: string, layers: readonly (readonly string[])[], split: readonly string[]): string[] {
  const rank = new Map<string, number>();
  layers.forEach((units, i) => units.forEach((unit) => rank.set(unit, i)));
  const problems: string[] = [];
  const between = importsBetween(root, (file) => unitOf(file, split));
  const units = new Set(sourceFiles(root).map((file) => unitOf(file, split)));
  for (const unit of [...units].sort()) {
    if (!rank.has(unit)) problems.push(`${unit} has no layer: place it in the layers`);
  }
  for (const key of [...between.keys()].sort()) {
    const [a, b] = key.split(' -> ');
    if (rank.has(a) && rank.has(b) && rank.get(b)! > rank.get(a)!) problems.push(`upward import ${key}: ${filesOf(between, key)}`);
  }
  return [...problems, ...cycleProblems(units, between)];
}

/** One cycle through each strongly connected group of two or more units (Tarjan). */
function cycles(nodes: Set<string>, edges: [string, string][]): string[][] {
  const out = new Map<string, string[]>();
  for (const [a, b] of edges) out.set(a, [...(out.get(a) ?? []), b]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    for (const next of out.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (stack.includes(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      group.push(member);
    } while (member !== node);
    if (group.length > 1) found.push(cycleWithin(new Set(group), out));
  };
  for (const node of [...nodes, ...out.keys()]) if (!index.has(node)) visit(node);
  return found;
}

/** A path that leaves the group's first unit and comes back to it, through the group only. */
function cycleWithin(group: Set<string>, out: Map<string, string[]>): string[] {
  const start = [...group].sort()[0];
  const from = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const next of out.get(node) ?? []) {
      if (!group.has(next)) continue;
      if (next === start) {
        const cycle = [node];
        while (cycle[0] !== start) cycle.unshift(from.get(cycle[0])!);
        return cycle;
      }
      if (!from.has(next)) {
        from.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start];
}
