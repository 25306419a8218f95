/**
 * Hostile text on the way to a person, replayed from a probe: a refused request line carried
 * escape sequences that `audit tail` wrote to the operator's terminal (setting its title,
 * clearing its screen), and vendor and debtor names did the same through `vendor list`, `debtor
 * list` and `integration list`; a right-to-left override in a name reordered what the dashboard
 * showed. Every such character is shown as its code point; `--json` keeps the value, inert.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { AccountsLive } from "../../../app/Layers.ts"
import { isHidden } from "../../../core/shared/domain/VisibleText.ts"
import { jsonOf, runCli } from "../../support/Cli.ts"
import { run, signedIn } from "../../support/DashboardClient.ts"
import { insertFixture } from "../../support/Fixtures.ts"
import { exchange } from "../../support/RawHttp.ts"
import * as TestDatabase from "../../support/TestDatabase.ts"
import { BaseUrl, serverLayer } from "../../support/TestServer.ts"

const TestLayer = Layer.mergeAll(
  serverLayer({ dashboard: true }),
  AccountsLive,
  Layer.effectDiscard(insertFixture)
).pipe(Layer.provideMerge(TestDatabase.layer))

// What the probe sent: set the terminal's title, ring, clear the screen; and a name read backwards.
const titleAndClear = "\u001b]0;pwned\u0007\u001b[2J"
const vendorName = `Acme${titleAndClear}`
const debtorName = "Globex\u202egnp.exe"

/** Whether the text holds a character that would act on a terminal; line breaks between lines excepted. */
const acts = (text: string) => [...text].some((char) => char !== "\n" && isHidden(char.codePointAt(0)!))

const hostileNames = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [pair] = yield* sql<{ org_id: string; vendor_id: string; debtor_id: string }>`
    SELECT org_id, vendor_id, debtor_id FROM integrations ORDER BY created_at LIMIT 1`
  yield* sql`UPDATE vendors SET name = ${vendorName} WHERE id = ${pair!.vendor_id}`
  yield* sql`UPDATE debtors SET name = ${debtorName} WHERE id = ${pair!.debtor_id}`
  return pair!.org_id
})

layer(TestLayer, { timeout: 120_000, excludeTestServices: true })("hostile text shown to people", (it) => {
  it.effect("audit tail shows a refused request line's control bytes as code points, never sends them", () =>
    Effect.gen(function* () {
      const base = yield* BaseUrl
      const answer = yield* Effect.promise(() => exchange(base, `GET /${titleAndClear} HTTP/1.1\r\nHost: x\r\n\r\n`))
      assert.match(answer, /^HTTP\/1.1 400 /)
      const tail = yield* runCli(["audit", "tail", "--limit", "5"])
      assert.strictEqual(tail.code, 0, tail.stderr)
      assert.isFalse(acts(tail.stdout), JSON.stringify(tail.stdout))
      assert.include(tail.stdout, "/[U+001B]]0;pwned[U+0007][U+001B][2J")
      const [entry] = jsonOf<ReadonlyArray<{ path: string }>>(
        yield* runCli(["audit", "tail", "--limit", "1", "--json"])
      )
      assert.strictEqual(entry!.path, `/${titleAndClear}`)
    })
  )

  it.effect(
    "vendor, debtor and integration lists show names' control and bidirectional characters as code points",
    () =>
      Effect.gen(function* () {
        const org = yield* hostileNames
        for (const args of [
          ["vendor", "list", "--org", org],
          ["debtor", "list"],
          ["integration", "list", "--org", org]
        ]) {
          const listed = yield* runCli(args)
          assert.strictEqual(listed.code, 0, listed.stderr)
          assert.isFalse(acts(listed.stdout), `${args.join(" ")}: ${JSON.stringify(listed.stdout)}`)
          assert.match(listed.stdout, /Acme\[U\+001B\]\]0;pwned\[U\+0007\]\[U\+001B\]\[2J|Globex\[U\+202E\]gnp\.exe/)
          const json = yield* runCli([...args, "--json"])
          assert.isFalse(acts(json.stdout), `${args.join(" ")} --json`)
        }
        const vendors = jsonOf<ReadonlyArray<{ name: string }>>(
          yield* runCli(["vendor", "list", "--org", org, "--json"])
        )
        assert.include(
          vendors.map((vendor) => vendor.name),
          vendorName
        )
        const debtors = jsonOf<ReadonlyArray<{ name: string }>>(yield* runCli(["debtor", "list", "--json"]))
        assert.include(
          debtors.map((debtor) => debtor.name),
          debtorName
        )
      })
  )

  it.effect("the dashboard shows a right-to-left override in a name as its code point", () =>
    Effect.gen(function* () {
      const org = yield* hostileNames
      const { client } = yield* signedIn(yield* BaseUrl, org, "member")
      for (const path of ["/dashboard/integrations", "/dashboard/receivables?verified_since=all"]) {
        const page = yield* run(() => client.get(path))
        assert.strictEqual(page.status, 200, path)
        assert.include(page.body, "Globex[U+202E]gnp.exe", path)
        assert.isFalse(acts(page.body.replaceAll(/[\t\r]/g, "")), path)
      }
    })
  )
})
