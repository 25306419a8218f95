/**
 * The Integrations page of an organization with 100 pairs, over a real socket (issue 46 item 12):
 * 25 pairs a page, the page links reaching every pair once; a part of a vendor's or a debtor's
 * name, in any letter case, or a state narrows the list, and the page links keep the filter;
 * a filter that is not one is refused with the reason (400); another organization's pairs never show.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { AccountsLive } from "../../app/Layers.ts"
import { run, signedIn } from "../support/DashboardClient.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { BaseUrl, serverLayer } from "../support/TestServer.ts"

const TestLayer = Layer.mergeAll(serverLayer({ dashboard: true }), AccountsLive).pipe(
  Layer.provideMerge(TestDatabase.layer)
)

/**
 * 100 pairs: vendors "Vendor 00" to "Vendor 99" each selling to one of four debtors, every tenth
 * pair paused; and another organization's pair whose names match every filter used here.
 */
const seed = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [org] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Many pairs') RETURNING id`
  const [other] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Other') RETURNING id`
  yield* sql`INSERT INTO debtors (name) SELECT 'Debtor ' || chr(64 + g) FROM generate_series(1, 4) g`
  yield* sql`
    INSERT INTO vendors (org_id, name) SELECT ${org!.id}, 'Vendor ' || lpad(g::text, 2, '0') FROM generate_series(0, 99) g`
  yield* sql`
    INSERT INTO integrations (org_id, vendor_id, debtor_id, connector, next_sync_at, paused_at)
    SELECT v.org_id, v.id, d.id, 'simulator', now() + interval '1 hour',
      CASE WHEN right(v.name, 1) = '0' THEN now() END
    FROM vendors v JOIN debtors d ON d.name = 'Debtor ' || chr(65 + right(v.name, 2)::int % 4)
    WHERE v.org_id = ${org!.id}`
  const [vendor] = yield* sql<{ id: string }>`
    INSERT INTO vendors (org_id, name) VALUES (${other!.id}, 'Vendor 77 elsewhere') RETURNING id`
  yield* sql`
    INSERT INTO integrations (org_id, vendor_id, debtor_id, connector, next_sync_at, paused_at)
    SELECT ${other!.id}, ${vendor!.id}, id, 'simulator', now(), now() FROM debtors WHERE name = 'Debtor A'`
  return org!.id
}).pipe(Effect.orDie)

/** The pairs a page lists, by name, and its next page's address. */
const listed = (body: string) => ({
  pairs: [...body.matchAll(/<th scope="row"><a href="\/dashboard\/integrations\/[^"]+">([^<]+)<\/a><\/th>/g)].map(
    (match) => match[1]!
  ),
  next: /<a href="([^"]+)" rel="next">/.exec(body)?.[1]?.replaceAll("&amp;", "&")
})

layer(TestLayer, { timeout: 120_000, excludeTestServices: true })("the Integrations page's filter and pages", (it) => {
  it.effect("regression: 25 pairs a page, every pair once over the pages; a name or a state narrows it", () =>
    Effect.gen(function* () {
      const base = yield* BaseUrl
      const org = yield* seed
      const { client } = yield* signedIn(base, org, "member")

      const first = yield* run(() => client.get("/dashboard/integrations"))
      assert.strictEqual(first.status, 200)
      assert.strictEqual(listed(first.body).pairs.length, 25)
      assert.include(first.body, "100 pairs match; 1 to 25 shown")
      assert.include(first.body, "Page 1 of 4")
      const seen: Array<string> = []
      let path: string | undefined = "/dashboard/integrations"
      // Bounded: one more page than 100 pairs need.
      for (let page = 0; page < 5 && path !== undefined; page++) {
        const answer = yield* run(() => client.get(path!))
        assert.strictEqual(answer.status, 200, path)
        seen.push(...listed(answer.body).pairs)
        path = listed(answer.body).next
      }
      assert.isUndefined(path, "the fourth page is the last")
      assert.strictEqual(seen.length, 100)
      assert.strictEqual(new Set(seen).size, 100, "no pair twice")
      assert.isFalse(seen.some((name) => name.includes("elsewhere")))

      // "vendor 7" in any case: Vendor 70 to 79; not the other organization's Vendor 77.
      const byName = yield* run(() => client.get("/dashboard/integrations?q=vENDOR+7"))
      assert.deepStrictEqual(
        listed(byName.body).pairs.map((name) => name.split(" → ")[0]),
        Array.from({ length: 10 }, (_, i) => `Vendor 7${i}`)
      )
      assert.include(byName.body, 'value="vENDOR 7"')
      const byDebtor = yield* run(() => client.get("/dashboard/integrations?q=debtor+b"))
      const debtorB = listed(byDebtor.body)
      assert.strictEqual(debtorB.pairs.length, 25)
      assert.isTrue(debtorB.pairs.every((name) => name.endsWith("→ Debtor B")))
      assert.isUndefined(debtorB.next, "25 pairs are one page")

      const paused = yield* run(() => client.get("/dashboard/integrations?state=paused"))
      assert.deepStrictEqual(
        listed(paused.body).pairs.map((name) => name.split(" → ")[0]),
        Array.from({ length: 10 }, (_, i) => `Vendor ${i}0`)
      )
      const active = yield* run(() => client.get("/dashboard/integrations?state=active&q=debtor+a"))
      const activeA = listed(active.body)
      assert.strictEqual(activeA.pairs.length, 20, "25 pairs of Debtor A, 5 of them paused")
      assert.isUndefined(activeA.next)
      const secondOfActive = yield* run(() => client.get("/dashboard/integrations?state=active"))
      assert.include(listed(secondOfActive.body).next ?? "", "state=active")

      const none = yield* run(() => client.get("/dashboard/integrations?q=nobody"))
      assert.strictEqual(none.status, 200)
      assert.include(none.body, "No pair matches.")

      for (const [query, reason] of [
        ["state=sleeping", "the state is one of active, paused, failing."],
        ["page=0", "the page is a whole number from 1 up."],
        [`q=${"x".repeat(101)}`, "the name is longer than 100 characters."]
      ] as const) {
        const refused = yield* run(() => client.get(`/dashboard/integrations?${query}`))
        assert.strictEqual(refused.status, 400, query)
        assert.include(refused.body, `Nothing was searched: ${reason}`)
      }
      const past = yield* run(() => client.get("/dashboard/integrations?page=9"))
      assert.strictEqual(past.status, 200)
      assert.include(past.body, "100 pairs match; this page is past the end")
      assert.include(past.body, 'href="/dashboard/integrations?page=4" rel="prev"')
    })
  )
})
