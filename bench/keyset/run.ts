/**
 * The keyset paging benchmark (`npm run bench:keyset`): on a fresh embedded PostgreSQL, one
 * organization with 100,000 receivables (`../support/OneOrganization.ts`), then, side by side in
 * one run, page 1 against page 1,000 (limit 100) reached with `starting_after`, and the same depth
 * reached with `page` (OFFSET) for reference; the same for a `status` filter. Two measures, interleaved round by round so that the
 * machine's drift touches every line alike: PostgreSQL's execution time of the list statement
 * (`EXPLAIN (ANALYZE)`, with the buffers it touched and the part spent counting `total_count`),
 * and the whole request over loopback to the app in its `serve` role, one at a time on a
 * kept-alive connection. Prints a Markdown table.
 *
 * Options (environment): BENCH_ROUNDS (default 200) requests per line, BENCH_PLANS (default 50)
 * EXPLAIN ANALYZE runs per line; BENCH_SMOKE=1 for a run of seconds on 2,000 receivables (limit 10).
 */
import { Effect, Exit, Option, Scope } from "effect"
import { SqlClient } from "effect/sql"
import { makeStatements } from "../../adapters/postgres/PgReceivableStore.ts"
import { makeApiKey, secretBytes } from "../../core/access/domain/ApiKey.ts"
import type { ReceivablesPageRequest } from "../../core/receivables/ports/ReceivableStore.ts"
import type { ReceivableId } from "../../core/shared/domain/Ids.ts"
import { freePort } from "../../test/support/ports.ts"
import { withFreshDatabase } from "../support/FreshDatabase.ts"
import { quantile, seedOrganization, startServer, timedRequest } from "../support/OneOrganization.ts"
import { option, sized } from "../support/Smoke.ts"

const rounds = option("BENCH_ROUNDS", 200, 3)
const plans = option("BENCH_PLANS", 50, 2)
const total = sized(100_000, 2_000)
const limit = sized(100, 10)
const key = makeApiKey("pr", new Uint8Array(secretBytes).fill(7))
const log = (line: string) => process.stderr.write(`${line}\n`)

interface Line {
  readonly name: string
  readonly path: string
  readonly request: ReceivablesPageRequest
}

/** Page 1, and page `depth` by cursor and by number, of the list the filter selects. */
const linesOf = (
  label: string,
  query: string,
  filter: ReceivablesPageRequest["filter"],
  depth: number,
  cursor: ReceivableId
): ReadonlyArray<Line> => {
  const base = { filter, history: Option.none(), metadata: false }
  return [
    {
      name: `${label}, page 1`,
      path: `/v1/receivables?${query}&limit=${limit}`,
      request: { ...base, window: { offset: 0, limit } }
    },
    {
      name: `${label}, page ${depth.toLocaleString("en")} by starting_after`,
      path: `/v1/receivables?${query}&limit=${limit}&starting_after=${cursor}`,
      request: { ...base, window: { offset: 0, limit }, startingAfter: cursor }
    },
    {
      name: `${label}, page ${depth.toLocaleString("en")} by page (OFFSET)`,
      path: `/v1/receivables?${query}&limit=${limit}&page=${depth}`,
      request: { ...base, window: { offset: (depth - 1) * limit, limit } }
    }
  ]
}

interface PlanNode {
  readonly "Node Type": string
  readonly "Actual Total Time"?: number
  readonly "Relation Name"?: string
  readonly "Index Name"?: string
  readonly "Index Cond"?: string
  readonly Plans?: ReadonlyArray<PlanNode>
}
const nodes = (node: PlanNode): ReadonlyArray<PlanNode> => [node, ...(node.Plans ?? []).flatMap(nodes)]

const main = withFreshDatabase("keyset", (url) =>
  Effect.gen(function* () {
    const started = performance.now()
    const org = yield* seedOrganization({ name: "Keyset bench", receivables: total, key })
    log(`seeded ${total.toLocaleString("en")} receivables in ${((performance.now() - started) / 1000).toFixed(1)} s`)
    const sql = yield* SqlClient.SqlClient
    // The last item of the page before the one measured: what a client walking the list would pass.
    const cursorAt = (where: string, position: number) =>
      sql.unsafe<{ id: ReceivableId }>(
        `SELECT id FROM receivables WHERE org_id = $1 ${where} ORDER BY detected_at, id OFFSET $2 LIMIT 1`,
        [org, position - 1]
      )
    const deep = sized(1_000, 100)
    const [all] = yield* cursorAt("", (deep - 1) * limit)
    // A sixth of the receivables are PENDING: 16,667, so 167 pages; page 160 is as deep as it goes.
    const pendingDepth = sized(160, 30)
    const [pending] = yield* cursorAt("AND status = 'PENDING'", (pendingDepth - 1) * limit)
    const lines = [
      ...linesOf("all", "verified_since=all", {}, deep, all!.id),
      ...linesOf(
        "status=PENDING",
        "verified_since=all&status=PENDING",
        { status: "PENDING" },
        pendingDepth,
        pending!.id
      )
    ]

    // PostgreSQL: the statement's own execution time and the buffers it touched.
    const { listPage } = makeStatements(sql)
    const explain = (line: Line) =>
      Effect.gen(function* () {
        const [text, params] = listPage(org, line.request).compile()
        const [row] = yield* sql.unsafe<{
          "QUERY PLAN": ReadonlyArray<{ Plan: PlanNode & { "Shared Hit Blocks": number }; "Execution Time": number }>
        }>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, params)
        return row!["QUERY PLAN"][0]!
      })
    const executions = new Map(lines.map((line) => [line.name, [] as Array<number>]))
    // The statement's count of every match (`total_count`), which no way of paging can spare: the
    // aggregate over a scan of receivables.
    const counting = new Map(lines.map((line) => [line.name, [] as Array<number>]))
    const buffers = new Map<string, number>()
    for (const line of lines) {
      const plan = yield* explain(line)
      buffers.set(line.name, plan.Plan["Shared Hit Blocks"])
      const scans = nodes(plan.Plan).filter((node) => node["Relation Name"] === "receivables" && node["Index Cond"])
      log(
        `${line.name}: ${scans.map((node) => `${node["Node Type"]} ${node["Index Name"]} (${node["Index Cond"]})`).join("; ")}`
      )
    }
    for (let round = 0; round < plans; round++) {
      for (const line of lines) {
        const plan = yield* explain(line)
        executions.get(line.name)!.push(plan["Execution Time"])
        const total = nodes(plan.Plan).find(
          (node) =>
            node["Node Type"] === "Aggregate" &&
            (node.Plans ?? []).some((child) => child["Relation Name"] === "receivables")
        )
        counting.get(line.name)!.push(total?.["Actual Total Time"] ?? Number.NaN)
      }
    }

    // The whole request, one at a time, the lines interleaved.
    const port = yield* Effect.promise(freePort)
    yield* Effect.acquireRelease(
      Effect.promise(() => startServer(url, port)),
      (child) => Effect.sync(() => child.kill("SIGTERM"))
    )
    const requests = new Map(lines.map((line) => [line.name, [] as Array<number>]))
    for (let round = -sized(20, 1); round < rounds; round++) {
      for (const line of lines) {
        const answer = yield* Effect.promise(() =>
          timedRequest(port, line.path, { headers: { authorization: `Bearer ${key}` } }).then((answer) => ({
            ...answer,
            count: (JSON.parse(answer.body) as { data?: ReadonlyArray<unknown> }).data?.length ?? -1
          }))
        )
        if (answer.status !== 200 || answer.count !== limit) {
          return yield* Effect.die(new Error(`${line.path}: status ${answer.status}, ${answer.count} items`))
        }
        // The first rounds warm the server and the caches up.
        if (round >= 0) requests.get(line.name)!.push(answer.ms)
      }
    }

    const ms = (value: number) => value.toFixed(2)
    const firstOf = (name: string) => lines[Math.floor(lines.findIndex((line) => line.name === name) / 3) * 3]!.name
    const rows = lines.map((line) => {
      const execution = quantile(executions.get(line.name)!, 0.5)
      const request = quantile(requests.get(line.name)!, 0.5)
      const first = firstOf(line.name)
      const ratio = (mine: number, theirs: number) => `${(mine / theirs).toFixed(2)}x`
      return `| ${line.name} | ${ms(execution)} | ${ratio(execution, quantile(executions.get(first)!, 0.5))} | ${ms(quantile(counting.get(line.name)!, 0.5))} | ${buffers.get(line.name)!.toLocaleString("en")} | ${ms(request)} | ${ms(quantile(requests.get(line.name)!, 0.95))} | ${ratio(request, quantile(requests.get(first)!, 0.5))} |`
    })
    process.stdout.write(
      `${[
        `${total.toLocaleString("en")} receivables, limit ${limit}; PostgreSQL: median of ${plans} EXPLAIN ANALYZE runs; request: ${rounds} requests one at a time over loopback`,
        "",
        "| line | PostgreSQL execution ms (median) | vs page 1 | of which total_count ms | shared buffers hit | request ms p50 | request ms p95 | p50 vs page 1 |",
        "|---|---|---|---|---|---|---|---|",
        ...rows
      ].join("\n")}\n`
    )
  })
)

const scope = Effect.runSync(Scope.make())
Effect.runPromise(main.pipe(Scope.provide(scope))).finally(() => Effect.runPromise(Scope.close(scope, Exit.void)))
