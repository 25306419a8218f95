/**
 * The plans of the receivables list's statements (`node bench/api/plans.ts`): on a fresh embedded
 * PostgreSQL with the API benchmark's dataset (`dataset.ts`), `EXPLAIN (ANALYZE, BUFFERS)` of the
 * statements that the default list and the common filtered lists run, for one organization.
 * With BENCH_BEFORE=<directory of another checkout>, that checkout's statements (its
 * `makeStatements`, fed the same requests) are planned beside this one's, alternately round by
 * round, so that the machine's drift touches both alike. Prints each line's plans once (after a
 * warm-up), then a Markdown table: buffers touched (shared hit and read, which do not depend on
 * the machine's load), planning and execution time (medians), for each tree.
 *
 * A list with `expand[]` is read in chunks (`core/receivables/services/PageParts.ts`): its line
 * runs the statements of both chunks of a 100-item page, as the service asks for them.
 *
 * Options (environment): BENCH_PER_PAIR receivables per pair (default 200: 1,000,000 in all; 20
 * makes 100,000), BENCH_PLANS (default 30) EXPLAIN ANALYZE rounds per line and tree,
 * BENCH_PRINT_PLANS=0 to print only the table. BENCH_SMOKE=1: the smoke dataset, two rounds.
 */
import { DateTime, Effect, Exit, Option, Scope } from "effect"
import { SqlClient, type Statement } from "effect/sql"
import * as PgReceivableStore from "../../adapters/postgres/PgReceivableStore.ts"
import * as AnswerSize from "../../core/receivables/domain/AnswerSize.ts"
import type { ReceivablesPageRequest } from "../../core/receivables/ports/ReceivableStore.ts"
import type { DebtorId, OrgId, ReceivableId, VendorId } from "../../core/shared/domain/Ids.ts"
import { defaultVerifiedSince } from "../../core/shared/domain/ListQuery.ts"
import { historyLimitDefault, limitDefault, pageWindow } from "../../core/shared/domain/Pagination.ts"
import { withFreshDatabase } from "../support/FreshDatabase.ts"
import { option, sized } from "../support/Smoke.ts"
import { generate } from "./dataset.ts"

const plans = option("BENCH_PLANS", 30, 2)
const printPlans = process.env.BENCH_PRINT_PLANS !== "0"
const beforeTree = process.env.BENCH_BEFORE
const log = (line: string) => process.stderr.write(`${line}\n`)

type MakeStatements = typeof PgReceivableStore.makeStatements

interface Tree {
  readonly name: string
  readonly makeStatements: MakeStatements
}

/** A list request as the service puts it to the store: its first read, and the chunk after it if any. */
interface Line {
  readonly name: string
  readonly first: ReceivablesPageRequest
  /** An expanded page's second chunk continues after the first chunk's last item. */
  readonly expanded: boolean
}

interface Buffers {
  readonly "Shared Hit Blocks": number
  readonly "Shared Read Blocks": number
}
interface Explained {
  readonly Plan: Buffers
  readonly Planning: Buffers
  readonly "Planning Time": number
  readonly "Execution Time": number
}

const median = (values: ReadonlyArray<number>) => {
  const sorted = values.toSorted((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

const main = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const started = performance.now()
  yield* generate
  log(`dataset generated in ${((performance.now() - started) / 1000).toFixed(1)} s`)
  const [counts] = yield* sql<{ receivables: bigint; history: bigint }>`
    SELECT (SELECT count(*) FROM receivables) AS receivables, (SELECT count(*) FROM receivable_history) AS history`

  // The first organization, its first vendor and a debtor of that vendor's.
  const [pick] = yield* sql<{ org: OrgId; vendor: VendorId; debtor: DebtorId }>`
    SELECT i.org_id AS org, i.vendor_id AS vendor, i.debtor_id AS debtor
    FROM integrations i WHERE i.org_id = (SELECT id FROM organizations ORDER BY id LIMIT 1)
    ORDER BY i.vendor_id, i.debtor_id LIMIT 1`
  const { org, vendor, debtor } = pick!
  const now = yield* DateTime.now
  const window = defaultVerifiedSince(now)
  const since = window._tag === "Since" ? window.at : undefined
  const monthAgo = DateTime.subtract(now, { days: 30 })
  const page = (
    filter: ReceivablesPageRequest["filter"],
    options: { readonly page?: number; readonly history?: boolean; readonly metadata?: boolean } = {}
  ): ReceivablesPageRequest => {
    const expanded = options.history === true || options.metadata === true
    const whole = pageWindow(options.page ?? 1, limitDefault)
    return {
      filter,
      // An expanded page's first read is its first chunk.
      window: expanded ? { offset: whole.offset, limit: AnswerSize.expandedChunk } : whole,
      history: options.history === true ? Option.some(historyLimitDefault) : Option.none(),
      metadata: options.metadata === true
    }
  }
  const lines: ReadonlyArray<Line> = [
    { name: "default (last 24 hours)", first: page({ updatedSince: since }), expanded: false },
    { name: "verified_since=all", first: page({}), expanded: false },
    { name: "verified_since=all&page=5", first: page({}, { page: 5 }), expanded: false },
    { name: "status=PENDING", first: page({ status: "PENDING", updatedSince: since }), expanded: false },
    { name: "status=PENDING&verified_since=all", first: page({ status: "PENDING" }), expanded: false },
    { name: "vendor_id&verified_since=all", first: page({ vendorId: vendor }), expanded: false },
    { name: "debtor_id&verified_since=all", first: page({ debtorId: debtor }), expanded: false },
    {
      name: "vendor_id&debtor_id&verified_since=all",
      first: page({ vendorId: vendor, debtorId: debtor }),
      expanded: false
    },
    { name: "verified_since=<30 days ago>", first: page({ updatedSince: monthAgo }), expanded: false },
    { name: "expand[]=history", first: page({ updatedSince: since }, { history: true }), expanded: true },
    { name: "expand[]=metadata", first: page({ updatedSince: since }, { metadata: true }), expanded: true },
    {
      name: "expand[]=history&expand[]=metadata&verified_since=all",
      first: page({}, { history: true, metadata: true }),
      expanded: true
    }
  ]

  const trees: ReadonlyArray<Tree> = [
    ...(beforeTree === undefined
      ? []
      : [
          {
            name: "before",
            makeStatements: (yield* Effect.promise(
              () => import(`${beforeTree}/adapters/postgres/PgReceivableStore.ts`)
            )).makeStatements as MakeStatements
          }
        ]),
    { name: beforeTree === undefined ? "this tree" : "after", makeStatements: PgReceivableStore.makeStatements }
  ]

  // The second chunk's cursor: the first chunk's last item, the same in every tree.
  const { listPage } = PgReceivableStore.makeStatements(sql)
  const requestsOf = Effect.fnUntraced(function* (line: Line) {
    if (!line.expanded) return [line.first]
    const rows = yield* listPage(org, line.first)
    const last = rows.filter((row) => row.id !== null).at(-1)
    if (last === undefined || rows.length < AnswerSize.expandedChunk) return [line.first]
    const next: ReceivablesPageRequest = {
      ...line.first,
      window: { offset: 0, limit: limitDefault - AnswerSize.expandedChunk },
      startingAfter: last.id as ReceivableId
    }
    return [line.first, next]
  })
  const requests = new Map<string, ReadonlyArray<ReceivablesPageRequest>>()
  for (const line of lines) requests.set(line.name, yield* requestsOf(line))

  // A later chunk is read with the tree's statement for one, if it has one (`continuedPage`).
  const compiled = (tree: Tree, request: ReceivablesPageRequest, index: number) => {
    const statements: Partial<ReturnType<MakeStatements>> & Pick<ReturnType<MakeStatements>, "listPage"> =
      tree.makeStatements(sql)
    const statement: Statement.Statement<unknown> =
      index > 0 && statements.continuedPage !== undefined
        ? statements.continuedPage(org, request)
        : statements.listPage(org, request)
    return statement.compile()
  }
  const explain = Effect.fnUntraced(function* (
    tree: Tree,
    request: ReceivablesPageRequest,
    index: number,
    format: "json" | "text"
  ) {
    const [text, params] = compiled(tree, request, index)
    return yield* sql.unsafe<Record<string, unknown>>(
      `EXPLAIN (ANALYZE, BUFFERS${format === "json" ? ", FORMAT JSON" : ""}) ${text}`,
      params
    )
  })

  // Warm the caches with every statement, then print each line's plans.
  for (const line of lines) {
    for (const tree of trees) {
      for (const [index, request] of requests.get(line.name)!.entries()) yield* explain(tree, request, index, "json")
    }
  }
  const out: Array<string> = [
    `${Number(counts!.receivables).toLocaleString("en")} receivables, ${Number(counts!.history).toLocaleString("en")} history entries; the first organization's lists, limit ${limitDefault}`,
    ""
  ]
  if (printPlans) {
    for (const line of lines) {
      out.push(`### ${line.name}`, "")
      for (const tree of trees) {
        for (const [index, request] of requests.get(line.name)!.entries()) {
          out.push(`${tree.name}${line.expanded ? `, chunk ${index + 1}` : ""}:`, "", "```")
          const rows = yield* explain(tree, request, index, "text")
          out.push(...rows.map((row) => String(row["QUERY PLAN"])), "```", "")
        }
      }
    }
  }

  interface Figures {
    readonly buffers: Array<number>
    readonly planning: Array<number>
    readonly execution: Array<number>
  }
  const figures = new Map<string, Figures>()
  const key = (line: Line, tree: Tree) => `${line.name}\u0000${tree.name}`
  for (const line of lines) {
    for (const tree of trees) figures.set(key(line, tree), { buffers: [], planning: [], execution: [] })
  }
  for (let round = 0; round < plans; round++) {
    for (const line of lines) {
      // Each round starts with the other tree, so neither always runs second.
      const ordered = round % 2 === 0 ? trees : trees.toReversed()
      for (const tree of ordered) {
        let buffers = 0
        let planning = 0
        let execution = 0
        for (const [index, request] of requests.get(line.name)!.entries()) {
          const [row] = yield* explain(tree, request, index, "json")
          const explained = (row!["QUERY PLAN"] as ReadonlyArray<Explained>)[0]!
          buffers +=
            explained.Plan["Shared Hit Blocks"] +
            explained.Plan["Shared Read Blocks"] +
            explained.Planning["Shared Hit Blocks"] +
            explained.Planning["Shared Read Blocks"]
          planning += explained["Planning Time"]
          execution += explained["Execution Time"]
        }
        const figure = figures.get(key(line, tree))!
        figure.buffers.push(buffers)
        figure.planning.push(planning)
        figure.execution.push(execution)
      }
    }
  }

  const ms = (value: number) => value.toFixed(3)
  const columns = trees.flatMap((tree) => [
    `${tree.name}: buffers`,
    `${tree.name}: planning ms`,
    `${tree.name}: execution ms`
  ])
  const ratios = beforeTree === undefined ? [] : ["buffers after / before", "execution after / before"]
  out.push(
    `Medians of ${plans} EXPLAIN (ANALYZE, BUFFERS) rounds per line and tree; buffers are shared hit and read, execution and planning.`,
    "",
    `| line | ${[...columns, ...ratios].join(" | ")} |`,
    `|---|${[...columns, ...ratios].map(() => "---").join("|")}|`,
    ...lines.map((line) => {
      const of = (tree: Tree) => figures.get(key(line, tree))!
      const cells = trees.flatMap((tree) => [
        median(of(tree).buffers).toLocaleString("en"),
        ms(median(of(tree).planning)),
        ms(median(of(tree).execution))
      ])
      const [before, after] = trees
      const ratio = (pick: (figure: Figures) => Array<number>) =>
        `${(median(pick(of(after!))) / median(pick(of(before!)))).toFixed(2)}x`
      const compared =
        beforeTree === undefined ? [] : [ratio((figure) => figure.buffers), ratio((figure) => figure.execution)]
      return `| ${line.name} | ${[...cells, ...compared].join(" | ")} |`
    })
  )
  process.stdout.write(`${out.join("\n")}\n`)
})

const scope = Effect.runSync(Scope.make())
Effect.runPromise(
  withFreshDatabase("plans", () => main, { shared_buffers: sized("2GB", "128MB") }).pipe(Scope.provide(scope))
).finally(() => Effect.runPromise(Scope.close(scope, Exit.void)))
