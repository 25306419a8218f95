/**
 * The sync benchmark side by side (`BENCH_BEFORE=<checkout>[,<checkout>...]`): this checkout and
 * each one named, in `BENCH_ROUNDS` rounds (3), each run a process of its own with a fresh
 * database server (its checkout's `bench/sync/run.ts`, memory skipped), the order of the trees
 * rotated from round to round so that none always runs first on a machine that warms up or gets
 * busier. On a shared machine neighbouring runs can differ by 2x, so what compares trees is the
 * ratio of each run to its neighbours of the same round, by wall time and by CPU time (PostgreSQL's
 * and the engine's together). A checkout must share this one's `node_modules` (a link will do)
 * and hold a sync benchmark that prints the same table.
 */
import { execFileSync } from "node:child_process"
import { basename, join, resolve } from "node:path"

interface Run {
  readonly first: number
  readonly resync: number
  readonly fair: number
  readonly bare: number
  readonly firstCpu: number
  readonly resyncCpu: number
}

interface Tree {
  readonly name: string
  readonly dir: string
}

// The table's row that starts with `label`, as numbers: seconds, and the CPU columns when given.
const rowOf = (table: string, label: string) => {
  const line = table.split("\n").find((row) => row.startsWith(`| ${label}`))
  if (line === undefined) throw new Error(`the sync benchmark printed no "${label}" row:\n${table}`)
  const cells = line.split("|").map((cell) => cell.trim())
  const seconds = Number(cells[3])
  const cpu = Number(cells[7]) + Number(cells[8])
  return { seconds, cpu }
}

const runIn = (tree: Tree): Run => {
  const table = execFileSync(process.execPath, [...process.execArgv, join(tree.dir, "bench", "sync", "run.ts")], {
    cwd: tree.dir,
    env: { ...process.env, BENCH_BEFORE: "", BENCH_SKIP_MEMORY: "1" },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"]
  })
  const first = rowOf(table, "first sync")
  const resync = rowOf(table, "resync")
  return {
    first: first.seconds,
    resync: resync.seconds,
    fair: rowOf(table, "fair floor").seconds,
    bare: rowOf(table, "bare floor").seconds,
    firstCpu: first.cpu,
    resyncCpu: resync.cpu
  }
}

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}
const spread = (values: ReadonlyArray<number>, digits = 2) =>
  values.length === 1
    ? values[0]!.toFixed(digits)
    : `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)} to ${Math.max(...values).toFixed(digits)})`
const ratios = (values: ReadonlyArray<number>) =>
  `${median(values).toFixed(2)}x (${values.map((value) => value.toFixed(2)).join(", ")})`

/** Runs every tree `rounds` times, rotating their order; answers the tables in Markdown. */
export const sideBySide = (ours: string, befores: ReadonlyArray<string>, rounds: number): string => {
  const trees: ReadonlyArray<Tree> = [
    { name: "this checkout", dir: resolve(ours) },
    ...befores.map((dir) => ({ name: basename(resolve(dir)), dir: resolve(dir) }))
  ]
  const runs = new Map<string, Array<Run>>(trees.map((tree) => [tree.name, []]))
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < trees.length; i++) {
      const tree = trees[(i + round) % trees.length]!
      process.stderr.write(`round ${round + 1} of ${rounds}: ${tree.name}\n`)
      runs.get(tree.name)!.push(runIn(tree))
    }
  }
  const ofTree = (tree: Tree) => runs.get(tree.name)!
  const perTree = trees.map((tree) => {
    const r = ofTree(tree)
    const pick = (f: (run: Run) => number) => r.map(f)
    return `| ${tree.name} | ${r.length} | ${spread(pick((x) => x.first))} | ${spread(pick((x) => x.resync))} | ${spread(pick((x) => x.fair))} | ${spread(pick((x) => x.bare))} | ${spread(pick((x) => x.fair / x.first))}x | ${spread(pick((x) => x.bare / x.resync))}x | ${spread(
      pick((x) => x.firstCpu),
      1
    )} | ${spread(
      pick((x) => x.resyncCpu),
      1
    )} |`
  })
  const [us, ...others] = trees
  const paired = others.map((other) => {
    const mine = ofTree(us!)
    const theirs = ofTree(other)
    const by = (f: (run: Run) => number) => ratios(mine.map((run, i) => f(run) / f(theirs[i]!)))
    return `| this checkout / ${other.name} | ${by((x) => x.first)} | ${by((x) => x.resync)} | ${by((x) => x.firstCpu)} | ${by((x) => x.resyncCpu)} |`
  })
  return [
    "| tree | runs | first sync s (median, range) | resync s | fair floor s | bare floor s | first sync vs the fair floor | resync vs the bare floor | CPU s, first sync | CPU s, resync |",
    "|---|---|---|---|---|---|---|---|---|---|",
    ...perTree,
    "",
    "| trees | first sync, wall | resync, wall | first sync, CPU | resync, CPU |",
    "|---|---|---|---|---|",
    ...paired
  ].join("\n")
}
