/**
 * The shape of `src/core` measured from its own imports (issue 38): each folder of `src/core` is a room, and so is
 * each file at its root; a room stands one floor above the highest room it imports (type-only imports count), so
 * the floors are the longest import chain between rooms. Loops between rooms (strongly connected components of the
 * room graph) have no floor of their own: a loop is measured as one room, and its imports that run against the
 * loop's majority direction are reported as imports back up.
 *
 *     npx tsx scripts/architecture/floors.ts [--json]    # on this checkout
 *
 * `test/architecture.test.ts` asserts the goals of issue 38 with {@link measureFloors}: at most 7 floors, no
 * loop, no import back up.
 */
import { resolve } from 'node:path';

/** One room and the floor it stands on (1 = imports no other room). */
export interface RoomFloor {
  room: string;
  floor: number;
}

/** What {@link measureFloors} finds. */
export interface FloorMeasure {
  /** The number of floors: the highest floor of any room. */
  floors: number;
  rooms: RoomFloor[];
  /** Each loop between rooms, as its rooms sorted by name. */
  loops: string[][];
  /** Imports inside a loop that run against its majority direction (`from → to`, `(type-only)` marked). */
  importsBackUp: string[];
  /** Every import between two rooms: `from room` → `to room` → the module imports behind it. */
  edges: Map<string, Map<string, string[]>>;
}

interface CruisedModule {
  source: string;
  dependencies: { resolved: string; dependencyTypes: string[] }[];
}

/** The room of a repository path under `src/core/`: its first folder, or the file itself at the root. */
export function roomOf(path: string): string | undefined {
  const m = /^src\/core\/([^/]+)(\/|$)/.exec(path);
  return m ? m[1] : undefined;
}

/**
 * Measures the rooms of `src/core` under `cwd` with dependency-cruiser (the project's own options, its TypeScript
 * resolution and pre-compilation dependencies, so type-only imports are seen).
 *
 * @param cwd - a checkout (or a scratch tree) holding `src/core/`
 * @throws when dependency-cruiser cannot read the tree
 */
export async function measureFloors(cwd: string): Promise<FloorMeasure> {
  const { cruise } = (await import('dependency-cruiser')) as unknown as {
    cruise: (files: string[], options: Record<string, unknown>) => Promise<{ output: { modules: CruisedModule[] } }>;
  };
  const previous = process.cwd();
  process.chdir(cwd);
  let modules: CruisedModule[];
  try {
    modules = (
      await cruise(['src/core'], {
        doNotFollow: { path: 'node_modules' },
        exclude: { path: '^(node_modules|dist|test|bench|scripts)/' },
        tsPreCompilationDeps: true,
        enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
      })
    ).output.modules;
  } finally {
    process.chdir(previous);
  }
  const edges = new Map<string, Map<string, string[]>>();
  const node = (room: string) => {
    let m = edges.get(room);
    if (!m) edges.set(room, (m = new Map()));
    return m;
  };
  for (const mod of modules) {
    const from = roomOf(mod.source);
    if (!from) continue;
    const out = node(from);
    for (const dep of mod.dependencies) {
      const to = roomOf(dep.resolved);
      if (!to || to === from) continue;
      node(to);
      const list = out.get(to) ?? [];
      list.push(`${mod.source} → ${dep.resolved}${dep.dependencyTypes.includes('type-only') ? ' (type-only)' : ''}`);
      out.set(to, list);
    }
  }
  // Strongly connected components (Tarjan 1972), then floors over the graph of components.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const strong = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v)!.keys()) {
      if (!index.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      components.push(component.sort());
    }
  };
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) strong(v);
  const componentOf = new Map<string, number>();
  components.forEach((c, i) => c.forEach((v) => componentOf.set(v, i)));
  const memo = new Map<number, number>();
  const floorOf = (c: number): number => {
    const known = memo.get(c);
    if (known !== undefined) return known;
    let f = 1;
    for (const v of components[c]) for (const w of edges.get(v)!.keys()) if (componentOf.get(w) !== c) f = Math.max(f, floorOf(componentOf.get(w)!) + 1);
    memo.set(c, f);
    return f;
  };
  const importsBackUp: string[] = [];
  for (const [from, targets] of edges) {
    for (const [to, list] of targets) {
      if (componentOf.get(from) !== componentOf.get(to)) continue;
      const reverse = edges.get(to)!.get(from)?.length ?? 0;
      if (list.length < reverse || (list.length === reverse && from > to)) importsBackUp.push(...list);
    }
  }
  const rooms = [...edges.keys()].sort().map((room) => ({ room, floor: floorOf(componentOf.get(room)!) }));
  return {
    floors: Math.max(0, ...rooms.map((r) => r.floor)),
    rooms,
    loops: components.filter((c) => c.length > 1),
    importsBackUp,
    edges,
  };
}

async function main(): Promise<void> {
  const m = await measureFloors(resolve(__dirname, '..', '..'));
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify({ floors: m.floors, rooms: m.rooms, loops: m.loops, importsBackUp: m.importsBackUp }, null, 2));
    return;
  }
  console.log(`floors in src/core: ${m.floors}`);
  for (let f = m.floors; f >= 1; f--) console.log(`  ${f}: ${m.rooms.filter((r) => r.floor === f).map((r) => r.room).join(', ')}`);
  console.log(`loops between folders: ${m.loops.length}${m.loops.map((l) => `\n  ${l.join(' ⇄ ')}`).join('')}`);
  console.log(`imports back up: ${m.importsBackUp.length}${m.importsBackUp.map((b) => `\n  ${b}`).join('')}`);
}

if (require.main === module) void main();
