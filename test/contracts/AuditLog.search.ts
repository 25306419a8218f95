/**
 * The `AuditLog` contract's searches, part of `describeAuditLog`: a model (a plain filter over
 * what was recorded, newest first) says what every search must answer, and walking the pages
 * after each page's last position must yield exactly that, never another organization's entry.
 */
import { randomUUID } from "node:crypto"
import { assert, type Vitest } from "@effect/vitest"
import { DateTime, Effect } from "effect"
import fc from "fast-check"
import { type AuditEntry, AuditLog, type AuditSearch, type StoredAuditEntry } from "../../core/access/ports/AuditLog.ts"
import type { ApiKeyId, OrgId } from "../../core/shared/domain/Ids.ts"
import { forAll, nextCase, plain } from "./AuditLog.contract.ts"

const paths = ["/v1/receivables", "/v1/receivables/rcv_1", "/v1/events", "/dashboard/keys"] as const

const entryPlan = fc.record({
  second: fc.boolean(),
  key: fc.constantFrom(0, 1, null),
  offsetMs: fc.integer({ min: 0, max: 6 }),
  status: fc.constantFrom(200, 204, 304, 400, 404, 429, 500, 503),
  path: fc.constantFrom(...paths)
})

const searchPlan = fc.record({
  key: fc.option(fc.constantFrom(0, 1), { nil: undefined }),
  statusClass: fc.option(fc.constantFrom(2 as const, 3 as const, 4 as const, 5 as const), { nil: undefined }),
  path: fc.option(
    fc.record({
      value: fc.constantFrom("/v1/receivables", "/v1/", "/v1/events", "/dashboard", "/v2"),
      match: fc.constantFrom("exact" as const, "prefix" as const)
    }),
    { nil: undefined }
  ),
  /** An index into the recorded entries, or an id nobody was given. */
  requestId: fc.option(fc.oneof(fc.nat({ max: 11 }), fc.constant(-1)), { nil: undefined }),
  sinceMs: fc.integer({ min: 0, max: 7 }),
  windowMs: fc.integer({ min: 0, max: 8 }),
  limit: fc.integer({ min: 1, max: 5 })
})

type EntryPlan = typeof entryPlan extends fc.Arbitrary<infer A> ? A : never

/** The model: what was recorded, filtered as the search says, newest first, later recorded first. */
const expectedOf = (recorded: ReadonlyArray<AuditEntry>, query: AuditSearch) => {
  const at = (entry: AuditEntry) => DateTime.toEpochMillis(entry.at)
  return recorded
    .map((entry, order) => ({ entry, order }))
    .filter(
      ({ entry }) =>
        entry.orgId === query.orgId &&
        at(entry) >= DateTime.toEpochMillis(query.since) &&
        at(entry) < DateTime.toEpochMillis(query.until) &&
        (query.keyId === undefined || entry.keyId === query.keyId) &&
        (query.statusClass === undefined || `${entry.status}`.startsWith(`${query.statusClass}`)) &&
        (query.path === undefined ||
          (query.path.match === "exact"
            ? entry.path === query.path.value
            : entry.path.slice(0, query.path.value.length) === query.path.value)) &&
        (query.requestId === undefined || entry.requestId === query.requestId)
    )
    .sort((a, b) => at(b.entry) - at(a.entry) || b.order - a.order)
    .map(({ entry }) => entry)
}

/** Every page of the search, each asked for after the previous page's last position. */
const allPages = (audit: AuditLog["Service"], query: AuditSearch) =>
  Effect.gen(function* () {
    const pages: Array<ReadonlyArray<StoredAuditEntry>> = []
    let page = yield* audit.search(query)
    pages.push(page)
    while (page.length === query.limit) {
      page = yield* audit.search({ ...query, before: page.at(-1)!.position })
      pages.push(page)
    }
    return pages
  })

/**
 * Every page back to the newest, from after the oldest entry: each page the `limit` entries next
 * newer, newest first. Bounded by the entries there are: each page but the last is full.
 */
const pagesBack = (audit: AuditLog["Service"], query: AuditSearch, oldest: StoredAuditEntry, entries: number) =>
  Effect.gen(function* () {
    const pages: Array<ReadonlyArray<StoredAuditEntry>> = []
    let after = oldest.position
    while (pages.length <= entries) {
      const page = yield* audit.search({ ...query, after })
      pages.push(page)
      if (page.length < query.limit) break
      after = page[0]!.position
    }
    return pages
  })

export const describeSearch = <R>(
  it: Vitest.MethodsNonLive<AuditLog | R>,
  storedKeys: Effect.Effect<readonly [ApiKeyId, ApiKeyId], never, R>
) => {
  it.effect(
    "a search answers the organization's entries that pass every filter, newest first, page after page (older and back to newer), never another organization's",
    () =>
      Effect.gen(function* () {
        const keys = yield* storedKeys
        yield* forAll(
          fc.tuple(fc.array(entryPlan, { maxLength: 12 }), searchPlan),
          ([plans, search]: [ReadonlyArray<EntryPlan>, typeof searchPlan extends fc.Arbitrary<infer A> ? A : never]) =>
            Effect.gen(function* () {
              const audit = yield* AuditLog
              const start = nextCase()
              const orgs = [randomUUID() as OrgId, randomUUID() as OrgId] as const
              const recorded = plans.map(
                (plan, index): AuditEntry => ({
                  at: DateTime.makeUnsafe(start + plan.offsetMs),
                  requestId: `req_${randomUUID()}_${index}`,
                  keyId: plan.key === null ? null : keys[plan.key],
                  orgId: orgs[plan.second ? 1 : 0],
                  method: "GET",
                  path: plan.path,
                  query: "",
                  status: plan.status,
                  durationMs: 2,
                  clientAddress: null
                })
              )
              for (const entry of recorded) yield* audit.record(entry)
              const requestId =
                search.requestId === undefined
                  ? undefined
                  : (recorded[search.requestId]?.requestId ?? `req_${randomUUID()}`)
              const query: AuditSearch = {
                orgId: orgs[0],
                since: DateTime.makeUnsafe(start + search.sinceMs),
                until: DateTime.makeUnsafe(start + search.sinceMs + search.windowMs),
                keyId: search.key === undefined ? undefined : keys[search.key],
                statusClass: search.statusClass,
                path: search.path,
                requestId,
                limit: search.limit
              }
              const pages = yield* allPages(audit, query)
              assert.isTrue(pages.every((page) => page.length <= query.limit))
              assert.deepStrictEqual(
                pages.flat().map(({ entry }) => plain(entry)),
                expectedOf(recorded, query).map(plain)
              )
              const found = pages.flat()
              const oldest = found.at(-1)
              if (oldest !== undefined) {
                const back = yield* pagesBack(audit, query, oldest, found.length)
                assert.isTrue(back.every((page) => page.length <= query.limit))
                assert.deepStrictEqual(
                  [...back.toReversed().flat(), oldest].map(({ entry }) => plain(entry)),
                  found.map(({ entry }) => plain(entry)),
                  "paging back to newer entries passes the same ones"
                )
              }
            })
        )
      })
  )
}
