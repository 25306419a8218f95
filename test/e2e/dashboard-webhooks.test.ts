/**
 * The dashboard's webhook pages over a real socket and a real PostgreSQL, wired as the app wires
 * them, with a receiver on loopback: an admin adds an endpoint and sees its secret once (which
 * verifies what is sent), tests it, disables it (a banner on every page, an entry in the
 * overview's "Needs attention"), enables it, replays a window, pages the delivery log, retries,
 * rotates, edits and deletes, each step in the dashboard's audit; the secret is on no page but the
 * one that shows it once. A member reads and is refused every change (403); another
 * organization's ids are the 404 page.
 */
import { randomBytes } from "node:crypto"
import { assert, layer } from "@effect/vitest"
import { DateTime, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { AccountsLive } from "../../app/Layers.ts"
import { verifyWebhook } from "../../client/src/mod.ts"
import { PairStoreHarness } from "../contracts/PairStore.harness.ts"
import * as PostgresHarness from "../contracts/PairStore.postgresHarness.ts"
import { type Answer, type Client, csrfOf, run, signedIn } from "../support/DashboardClient.ts"
import { BaseUrl, serverLayer } from "../support/TestServer.ts"
import { receiver, webhookHeaders } from "../webhooks/support/Receiver.ts"
import { nonAscii, syncEvents } from "../webhooks/support/Sync.ts"

// Read by the app's services from the environment; this file's worker is its own process.
process.env.WEBHOOK_ALLOWED_HOSTS = "127.0.0.1:1-65535"
process.env.WEBHOOK_SECRET_KEYS = `1:${randomBytes(32).toString("base64")}`

const TestLayer = Layer.mergeAll(serverLayer({ dashboard: true }), AccountsLive).pipe(
  Layer.provideMerge(PostgresHarness.layer)
)

const secretPattern = /whsec_[A-Za-z0-9+/=]+/

/** Every page a client was answered, so that the secret can be looked for on all of them. */
const recording = (client: Client) => {
  const pages: Array<{ readonly path: string; readonly body: string }> = []
  const keep = (path: string) => (answer: Answer) => {
    pages.push({ path, body: answer.body })
    return answer
  }
  return {
    pages,
    get: (path: string) => run(() => client.get(path).then(keep(path))),
    post: (path: string, fields: Record<string, string>) => run(() => client.post(path, fields).then(keep(path)))
  }
}

/** A `datetime-local` value in UTC, as the replay form sends it. */
const localUtc = (instant: DateTime.Utc) => DateTime.formatIso(instant).slice(0, 16)

layer(TestLayer, { timeout: 120_000, excludeTestServices: true })("the dashboard's webhook pages", (it) => {
  it.effect("take an endpoint from creation to deletion, each step audited, the secret shown once", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const base = yield* BaseUrl
        const sql = yield* SqlClient.SqlClient
        const harness = yield* PairStoreHarness
        const pair = yield* harness.addPair({ dueInSeconds: 3600 })
        const hooks = yield* receiver((_, response) => response.writeHead(200).end("<script>alert(1)</script>"))
        const admin = yield* signedIn(base, pair.orgId, "admin")
        const member = yield* signedIn(base, pair.orgId, "member")
        const pages = recording(admin.client)
        const csrf = admin.csrf

        const empty = yield* pages.get("/dashboard/webhooks")
        assert.strictEqual(empty.status, 200)
        assert.include(empty.body, "No webhook endpoint yet.")
        assert.include(empty.body, 'aria-current="page">Webhooks</a>')

        const refused = yield* pages.post("/dashboard/webhooks", { csrf, url: "ftp://example.com/hooks" })
        assert.strictEqual(refused.status, 400)
        assert.include(refused.body, "Not added: ")

        const created = yield* pages.post("/dashboard/webhooks", {
          csrf,
          url: hooks.url,
          description: "Books",
          event_types: "receivable.created"
        })
        assert.strictEqual(created.status, 303)
        assert.strictEqual(created.headers.get("location"), "/dashboard/webhooks/secret")
        const shown = yield* pages.get("/dashboard/webhooks/secret")
        assert.strictEqual(shown.status, 200)
        const secret = secretPattern.exec(shown.body)?.[0] ?? ""
        assert.match(secret, /^whsec_/)
        assert.include(shown.body, "const event = await verifyWebhook(body, headers, secret)")
        assert.include(shown.body, "def verify_webhook(secret, headers, body, tolerance=300):")
        const again = yield* pages.get("/dashboard/webhooks/secret")
        assert.strictEqual(again.status, 303)
        assert.strictEqual(again.headers.get("location"), "/dashboard/webhooks")

        const [row] = yield* sql<{ id: string }>`SELECT id FROM webhook_endpoints WHERE org_id = ${pair.orgId}`
        const id = row!.id
        const endpointPath = `/dashboard/webhooks/${id}`
        const listed = yield* pages.get("/dashboard/webhooks")
        assert.include(listed.body, `href="${endpointPath}"`)
        assert.include(listed.body, "no attempt yet")

        // The test is sent while the request waits, signed with the secret shown.
        const tested = yield* pages.post(`${endpointPath}/test`, { csrf })
        assert.strictEqual(tested.status, 303)
        const testedPath = tested.headers.get("location") ?? ""
        assert.match(testedPath, new RegExp(`^${endpointPath}/deliveries/wd_[0-9a-f]{32}\\?tested$`))
        assert.strictEqual(hooks.received.length, 1)
        const [arrived] = hooks.received
        const event = yield* Effect.promise(() =>
          verifyWebhook(arrived!.body, webhookHeaders(arrived!.headers), secret)
        )
        assert.strictEqual(event.type, "webhook.test")
        const testPage = yield* pages.get(testedPath)
        assert.include(testPage.body, "Test sent: succeeded (200).")
        assert.include(testPage.body, "&lt;script>alert(1)&lt;/script>")
        assert.notInclude(testPage.body, "<script>alert(1)")
        const health = yield* pages.get("/dashboard/webhooks")
        assert.include(health.body, "100% of the last 1 attempt succeeded")

        // Disabled: a banner on every page of the organization, the overview names it.
        assert.strictEqual((yield* pages.get(`${endpointPath}/disable`)).status, 200)
        const disabled = yield* pages.post(`${endpointPath}/disable`, { csrf })
        assert.strictEqual(disabled.headers.get("location"), `${endpointPath}?disabled`)
        const overview = yield* pages.get("/dashboard/overview")
        assert.include(overview.body, "A webhook endpoint is disabled")
        assert.include(overview.body, `webhook endpoint <a href="${endpointPath}">${hooks.url}</a>`)
        assert.include(overview.body, "disabled by an admin")
        const membersPage = yield* run(() => member.client.get("/dashboard/keys"))
        assert.include(membersPage.body, "A webhook endpoint is disabled")
        const whileDisabled = yield* pages.post(`${endpointPath}/test`, { csrf })
        assert.strictEqual(whileDisabled.status, 409)
        assert.include(whileDisabled.body, "Not sent: the endpoint is disabled")
        assert.strictEqual(hooks.received.length, 1)

        const enabled = yield* pages.post(`${endpointPath}/enable`, { csrf })
        assert.strictEqual(enabled.headers.get("location"), `${endpointPath}?enabled`)
        assert.notInclude((yield* pages.get("/dashboard/overview")).body, "webhook endpoint is disabled")

        // A replay of a window with 30 events: the log shows them 25 at a time, newest first.
        const since = DateTime.subtract(yield* DateTime.now, { minutes: 1 })
        yield* syncEvents(pair, 30)
        const replayed = yield* pages.post(`${endpointPath}/replay`, { csrf, since: localUtc(since), until: "" })
        assert.strictEqual(replayed.headers.get("location"), `${endpointPath}?replayed=30`)
        const first = yield* pages.get(`${endpointPath}?status=pending`)
        const idsOf = (body: string) => [...body.matchAll(/<code>(wd_[0-9a-f]{32})<\/code>/g)].map((m) => m[1])
        const firstIds = idsOf(first.body)
        assert.strictEqual(firstIds.length, 25)
        const older = /href="([^"]+)">Older deliveries/.exec(first.body)?.[1]?.replaceAll("&amp;", "&") ?? ""
        assert.include(older, "status=pending")
        const secondIds = idsOf((yield* pages.get(older)).body)
        assert.strictEqual(secondIds.length, 5)
        assert.deepStrictEqual(
          [...firstIds, ...secondIds],
          [...firstIds, ...secondIds].toSorted().toReversed(),
          "newest first, without repeats"
        )
        assert.strictEqual(new Set([...firstIds, ...secondIds]).size, 30)
        assert.strictEqual(idsOf((yield* pages.get(`${endpointPath}?event_type=webhook.test`)).body).length, 1)
        const outside = yield* pages.post(`${endpointPath}/replay`, { csrf, since: "yesterday" })
        assert.strictEqual(outside.status, 400)

        const retried = yield* pages.post(`${testedPath.split("?")[0]}/retry`, { csrf })
        assert.strictEqual(retried.headers.get("location"), `${testedPath.split("?")[0]}?retried`)
        assert.include((yield* pages.get(retried.headers.get("location") ?? "")).body, "state-pending")

        const rotated = yield* pages.post(`${endpointPath}/rotate`, { csrf })
        assert.strictEqual(rotated.headers.get("location"), "/dashboard/webhooks/secret")
        const rotatedPage = yield* pages.get("/dashboard/webhooks/secret")
        const newSecret = secretPattern.exec(rotatedPage.body)?.[0] ?? ""
        assert.match(newSecret, /^whsec_/)
        assert.notStrictEqual(newSecret, secret)
        assert.include(rotatedPage.body, "keeps signing beside it for 24 hours")

        const edited = yield* pages.post(endpointPath, {
          csrf,
          url: hooks.url,
          description: "Ledger",
          event_types: "receivable.updated"
        })
        assert.strictEqual(edited.headers.get("location"), `${endpointPath}?updated`)
        const editedPage = yield* pages.get(`${endpointPath}?updated`)
        assert.include(editedPage.body, "<dd>Ledger</dd>")
        assert.include(editedPage.body, "<dd>receivable.updated</dd>")
        const badEdit = yield* pages.post(endpointPath, {
          csrf,
          url: "ftp://example.com/",
          event_types: "receivable.updated"
        })
        assert.strictEqual(badEdit.status, 400)
        assert.include(badEdit.body, "Not saved: ")

        const deleted = yield* pages.post(`${endpointPath}/delete`, { csrf })
        assert.strictEqual(deleted.headers.get("location"), "/dashboard/webhooks")
        assert.strictEqual((yield* pages.get(endpointPath)).status, 404)

        const audit = yield* sql<{ action: string; subject: string }>`
          SELECT action, subject FROM dashboard_audit
          WHERE org_id = ${pair.orgId} AND action LIKE 'webhook%' ORDER BY at, action`
        assert.deepStrictEqual(
          audit.map((entry) => entry.action),
          [
            "webhook_endpoint_created",
            "webhook_endpoint_tested",
            "webhook_endpoint_disabled_by_user",
            "webhook_endpoint_enabled",
            "webhook_endpoint_replayed",
            "webhook_delivery_retried",
            "webhook_endpoint_secret_rotated",
            "webhook_endpoint_updated",
            "webhook_endpoint_deleted"
          ]
        )
        assert.isTrue(
          audit.every((entry) => entry.subject.startsWith(entry.action === "webhook_delivery_retried" ? "wd_" : "we_"))
        )

        // Only the pages that showed a secret carry one, and each only its own.
        const carrying = pages.pages.filter((page) => secretPattern.test(page.body))
        assert.deepStrictEqual(
          carrying.map((page) => page.path),
          ["/dashboard/webhooks/secret", "/dashboard/webhooks/secret"]
        )
        assert.isTrue(pages.pages.every((page) => !page.body.includes(secret) || page.body === shown.body))
        assert.isAbove(pages.pages.length, 25)
      })
    )
  )

  it.effect(
    "regression: a delivery's page shows its payload, escaped, and links its receivable; the list shows descriptions",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const base = yield* BaseUrl
          const harness = yield* PairStoreHarness
          const hooks = yield* receiver()
          const pair = yield* harness.addPair({ dueInSeconds: 3600 })
          const { client, csrf } = yield* signedIn(base, pair.orgId, "admin")
          yield* run(() =>
            client.post("/dashboard/webhooks", { csrf, url: hooks.url, description: "Books & <ledger>" })
          )
          const shown = yield* run(() => client.get("/dashboard/webhooks/secret"))
          const secret = secretPattern.exec(shown.body)?.[0] ?? ""
          const listed = yield* run(() => client.get("/dashboard/webhooks"))
          assert.include(listed.body, '<th scope="col">Description</th>')
          assert.include(listed.body, '<td data-label="Description">Books &amp; &lt;ledger></td>')
          const endpointPath = /href="(\/dashboard\/webhooks\/we_[0-9a-f]{32})"/.exec(listed.body)?.[1] ?? ""

          // A receivable's event, queued by a replay and not sent yet: the page shows what will be sent.
          const since = DateTime.subtract(yield* DateTime.now, { minutes: 1 })
          yield* syncEvents(pair, 1)
          yield* run(() => client.post(`${endpointPath}/replay`, { csrf, since: localUtc(since), until: "" }))
          const log = yield* run(() => client.get(`${endpointPath}?event_type=receivable.created`))
          const deliveryId = /<code>(wd_[0-9a-f]{32})<\/code>/.exec(log.body)?.[1] ?? ""
          const page = yield* run(() => client.get(`${endpointPath}/deliveries/${deliveryId}`))
          assert.strictEqual(page.status, 200)
          const sql = yield* SqlClient.SqlClient
          const [row] = yield* sql<{ body: string }>`SELECT body FROM webhook_deliveries WHERE id = ${deliveryId}`
          const event = JSON.parse(row!.body) as { data: { receivable_id: string } }
          const receivableId = event.data.receivable_id
          assert.include(page.body, `<dd><a href="/dashboard/receivables/${receivableId}">${receivableId}</a></dd>`)
          assert.include(page.body, '<h2 id="payload-heading">Payload</h2>')
          // Indented, every character of it as sent (the note is beyond ASCII), and escaped.
          const payload = /<pre[^>]*><code>([\s\S]*?)<\/code><\/pre>/.exec(
            page.body.slice(page.body.indexOf("payload-heading"))
          )
          const unescaped = (payload?.[1] ?? "")
            .replaceAll("&quot;", '"')
            .replaceAll("&lt;", "<")
            .replaceAll("&amp;", "&")
          assert.deepStrictEqual(JSON.parse(unescaped), JSON.parse(row!.body))
          assert.include(unescaped, `\n  "type": "receivable.created",\n`)
          assert.include(unescaped, nonAscii)
          assert.notInclude(page.body, secret)
          const receivablePage = yield* run(() => client.get(`/dashboard/receivables/${receivableId}`))
          assert.strictEqual(receivablePage.status, 200)

          // A test is about no receivable: its payload, no link.
          const tested = yield* run(() => client.post(`${endpointPath}/test`, { csrf }))
          const testPage = yield* run(() => client.get(tested.headers.get("location") ?? ""))
          assert.include(testPage.body, "webhook.test")
          assert.include(testPage.body, '<h2 id="payload-heading">Payload</h2>')
          assert.notInclude(testPage.body, "<dt>Receivable</dt>")
          assert.notInclude(testPage.body, secret)
        })
      )
  )

  it.effect("let a member read but not act, and show another organization's ids as not found", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const base = yield* BaseUrl
        const harness = yield* PairStoreHarness
        const hooks = yield* receiver()
        const pair = yield* harness.addPair({ dueInSeconds: 3600 })
        const other = yield* harness.addPair({ dueInSeconds: 3600 })
        const admin = yield* signedIn(base, pair.orgId, "admin")
        const member = yield* signedIn(base, pair.orgId, "member")
        const stranger = yield* signedIn(base, other.orgId, "admin")
        yield* run(() => admin.client.post("/dashboard/webhooks", { csrf: admin.csrf, url: hooks.url }))
        const listed = yield* run(() => admin.client.get("/dashboard/webhooks"))
        const endpointPath = /href="(\/dashboard\/webhooks\/we_[0-9a-f]{32})"/.exec(listed.body)?.[1] ?? ""
        const tested = yield* run(() => admin.client.post(`${endpointPath}/test`, { csrf: admin.csrf }))
        const deliveryPath = (tested.headers.get("location") ?? "").split("?")[0] ?? ""
        assert.match(deliveryPath, /\/deliveries\/wd_/)

        const readable = yield* run(() => member.client.get("/dashboard/webhooks"))
        assert.strictEqual(readable.status, 200)
        assert.include(readable.body, endpointPath)
        assert.notInclude(readable.body, "Add an endpoint")
        const endpointPage = yield* run(() => member.client.get(endpointPath))
        assert.strictEqual(endpointPage.status, 200)
        assert.notInclude(endpointPage.body, 'method="post" action="/dashboard/webhooks/')
        assert.strictEqual((yield* run(() => member.client.get(deliveryPath))).status, 200)

        const changes = [
          ["/dashboard/webhooks", { url: hooks.url }],
          [endpointPath, { url: hooks.url, event_types: "receivable.created" }],
          ...["disable", "enable", "rotate", "delete", "test"].map(
            (action) => [`${endpointPath}/${action}`, {}] as const
          ),
          [`${endpointPath}/replay`, { since: "2026-11-26T00:00" }],
          [`${deliveryPath}/retry`, {}]
        ] as const
        const csrf = csrfOf(readable.body)
        for (const [path, fields] of changes) {
          const answer = yield* run(() => member.client.post(path, { csrf, ...fields }))
          assert.strictEqual(answer.status, 403, path)
        }
        for (const action of ["disable", "enable", "rotate", "delete"]) {
          assert.strictEqual((yield* run(() => member.client.get(`${endpointPath}/${action}`))).status, 403)
        }
        assert.strictEqual(hooks.received.length, 1, "only the admin's test was sent")

        for (const path of [endpointPath, deliveryPath, `${endpointPath}/disable`]) {
          const answer = yield* run(() => stranger.client.get(path))
          assert.strictEqual(answer.status, 404, path)
          assert.include(answer.body, "Page not found")
        }
        for (const path of [`${endpointPath}/disable`, `${endpointPath}/test`, `${deliveryPath}/retry`, endpointPath]) {
          const answer = yield* run(() =>
            stranger.client.post(path, { csrf: stranger.csrf, url: hooks.url, event_types: "receivable.created" })
          )
          assert.strictEqual(answer.status, 404, path)
        }
        const sql = yield* SqlClient.SqlClient
        const [state] = yield* sql<{
          enabled: boolean
        }>`SELECT enabled FROM webhook_endpoints WHERE org_id = ${pair.orgId}`
        assert.isTrue(state!.enabled)
      })
    )
  )
})
