import { readdirSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const sourceRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../src');

/**
 * The turn's flow, top to bottom: a file may import from its own folder or from a folder on a
 * lower floor, never from one above it. Folders on one floor do not import each other.
 * `provider/` orchestrates the steps below it (resolve → authorize → fetch → convert → budget →
 * render → trace); what wraps the provider or plugs into it (tools, prompts, replicas, integrations,
 * config, the entries,
 * the CLI) stands above it; shared ground (options, types, errors, Writable) stands below everything.
 */
const floors: readonly (readonly string[])[] = [
  ['cli'],
  // `mcp-context serve`: the library over HTTP, built on the entries alone (the CLI loads it lazily).
  ['service'],
  [
    'index.ts',
    'servers.ts',
    'credentials.ts',
    'cache.ts',
    'budget.ts',
    'convert.ts',
    'render.ts',
    'prompts.ts',
    'tools.ts',
    'config.ts',
    'audit.ts',
    'sqlite.ts',
    'postgres.ts',
    'redis.ts',
    'inspector.ts',
    'opentelemetry.ts',
  ],
  ['config'],
  ['integrations'],
  ['provider'],
  ['tools', 'prompts', 'replicas'],
  // Steps 3–4 of the turn: reads through the caches, then conversion.
  ['fetch'],
  ['attachments', 'links'],
  ['policy', 'skills'],
  ['cache'],
  ['mcp'],
  ['audit', 'credentials'],
  ['convert'],
  ['budget'],
  ['render'],
  ['trace'],
  ['options'],
  ['types.ts', 'errors.ts', 'writable.ts', 'version.ts'],
];

// Static imports and re-exports, and `import('…')` with a literal specifier.
const importPattern =
  /(?:^\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"])|(?:\bimport\(\s*['"]([^'"]+)['"]\s*\))/gm;

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = resolve(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Each source file (relative to src/) with the source files it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(sourceRoot)) {
    const imports: string[] = [];
    for (const match of readFileSync(file, 'utf8').matchAll(importPattern)) {
      const specifier = match[1] ?? match[2] ?? '';
      if (!specifier.startsWith('.')) continue;
      const target = resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
      // Outside src/ (package.json, fixtures) is not part of the flow.
      if (target.startsWith(`${sourceRoot}/`)) imports.push(relative(sourceRoot, target));
    }
    graph.set(relative(sourceRoot, file), imports);
  }
  return graph;
}

/** The folder (or root file) a source path belongs to. */
function roomOf(path: string): string {
  return path.split('/')[0] ?? path;
}

function floorOf(room: string): number {
  const floor = floors.findIndex((names) => names.includes(room));
  if (floor === -1) throw new Error(`${room} is on no floor: place it in test/import-structure.test.ts`);
  return floor;
}

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop();
        if (member === undefined) break;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('the source tree', () => {
  const graph = importGraph();

  it('has no import cycle between files', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('has every folder on a floor of the flow', () => {
    const unplaced = [...new Set([...graph.keys()].map(roomOf))].filter(
      (room) => !floors.some((names) => names.includes(room)),
    );
    expect(unplaced).toEqual([]);
  });

  it('imports only downwards: no file imports from a folder above it or beside it on its floor', () => {
    const upward = [...graph].flatMap(([file, imports]) =>
      imports
        .filter((target) => {
          const from = roomOf(file);
          const to = roomOf(target);
          return from !== to && floorOf(to) <= floorOf(from);
        })
        .map((target) => `${file} -> ${target}`),
    );
    expect(upward).toEqual([]);
  });

  it('finds cycles and upward imports when they are there (the checks are not vacuous)', () => {
    expect(
      cycles(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', ['a.ts']],
        ]),
      ),
    ).toEqual([['a.ts', 'b.ts']]);
    expect(floorOf('trace')).toBeGreaterThan(floorOf('attachments'));
    expect(graph.size).toBeGreaterThan(100);
  });
});
