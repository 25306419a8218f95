/**
 * What the benchmarks that measure one large organization share: its data, made inside
 * PostgreSQL in seconds (100 pairs; receivable g of pair g % 100 detected by sync g / 100, so a
 * sync's receivables share their `detected_at` and `id` breaks many ties; the six statuses in
 * turn), the app started in its `serve` role against it, requests timed one at a time, and a
 * quantile of timings. Its fresh database comes from `FreshDatabase.ts`.
 */
import { execFile, spawn } from "node:child_process"
import http from "node:http"
import { join } from "node:path"
import { promisify } from "node:util"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import type { OrgId } from "../../core/shared/domain/Ids.ts"

export const seedOrganization = (options: {
  readonly name: string
  readonly receivables: number
  readonly key: string
}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [org] = yield* sql<{ id: OrgId }>`INSERT INTO organizations (name) VALUES (${options.name}) RETURNING id`
    yield* sql`
      INSERT INTO api_keys (org_id, key_hash, display_start)
      VALUES (${org!.id}, sha256(convert_to(${options.key}, 'UTF8')), ${options.key.slice(0, 12)})`
    yield* sql`INSERT INTO vendors (org_id, name) SELECT ${org!.id}, 'Vendor ' || g FROM generate_series(1, 10) g`
    const debtors = yield* sql<{ id: string }>`
      INSERT INTO debtors (name) SELECT ${options.name} || ' debtor ' || g FROM generate_series(1, 10) g RETURNING id`
    yield* sql`
      WITH own_debtors AS (INSERT INTO debtors (name) SELECT 'Debtor ' || g FROM generate_series(1, 10) g RETURNING id)
      INSERT INTO integrations (org_id, vendor_id, debtor_id, connector, next_sync_at)
      SELECT v.org_id, v.id, d.id, 'simulator', now() + interval '1 hour'
      FROM vendors v CROSS JOIN debtors d
      WHERE v.org_id = ${org!.id} AND d.id IN ${sql.in(debtors.map((d) => d.id))}`
    yield* sql`
      INSERT INTO receivables (org_id, id, integration_id, vendor_id, debtor_id, document_key, amount_cents, currency,
        receivable_date, status, portal_status, metadata, detected_at, updated_at)
      SELECT i.org_id, 'rcv_' || md5(g::text), i.id, i.vendor_id, i.debtor_id, 'doc-' || g, 1000 + g, 'EUR',
        current_date, s.status, s.status, jsonb_build_object('payment_terms', 'NET30'),
        now() - interval '400 days' + (g / 100) * interval '9 minutes',
        now() - interval '400 days' + (g / 100) * interval '9 minutes'
      FROM generate_series(0, ${options.receivables - 1}) g
      JOIN (SELECT id, org_id, vendor_id, debtor_id, row_number() OVER (ORDER BY id) - 1 AS n
            FROM integrations WHERE org_id = ${org!.id}) i
        ON i.n = g % 100
      CROSS JOIN LATERAL (SELECT (ARRAY['PENDING','APPROVED','PAID','SOLD','DISPUTED','ACKNOWLEDGED'])[1 + g % 6] AS status) s`
    yield* sql`VACUUM ANALYZE`
    return org!.id
  })

/** The app in its `serve` role on `port`, once `/health` answers; rate limits and caps of requests in flight out of the way. */
export const startServer = async (
  url: string,
  port: number,
  env: Record<string, string> = {},
  /** Another checkout of the project whose app to start (a change's "before"); this one by default. */
  root = join(import.meta.dirname, "..", "..")
) => {
  const child = spawn(process.execPath, [join(root, "app", "main.ts"), "serve"], {
    env: {
      ...process.env,
      DATABASE_URL: url,
      PORT: String(port),
      DEMO_SEED: "false",
      RATE_LIMIT_PER_SECOND: "1000000",
      RATE_LIMIT_BURST: "1000000",
      ORG_RATE_LIMIT_PER_SECOND: "1000000",
      ORG_RATE_LIMIT_BURST: "1000000",
      KEY_MAX_IN_FLIGHT: "10000",
      ORG_MAX_IN_FLIGHT: "10000",
      ...env
    },
    stdio: ["ignore", "ignore", "inherit"]
  })
  for (let i = 0; i < 300; i++) {
    const up = await fetch(`http://127.0.0.1:${port}/health`).then(
      (response) => response.ok,
      () => false
    )
    if (up) return child
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  child.kill("SIGTERM")
  throw new Error("the app did not start")
}

export const quantile = (values: ReadonlyArray<number>, q: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}

// One connection, kept alive: requests are timed one at a time, without connection set-up.
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })

/** One request to the app over loopback, timed from sending to the last byte of its answer. */
export const timedRequest = (
  port: number,
  path: string,
  options: { readonly method?: string; readonly headers?: http.OutgoingHttpHeaders; readonly body?: string } = {}
) =>
  new Promise<{ ms: number; status: number; body: string; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
    const started = process.hrtime.bigint()
    const sent = http.request(
      { host: "127.0.0.1", port, path, agent, method: options.method ?? "GET", headers: options.headers ?? {} },
      (response) => {
        let body = ""
        response.on("data", (chunk) => {
          body += chunk
        })
        response.on("end", () =>
          resolve({
            ms: Number(process.hrtime.bigint() - started) / 1e6,
            status: response.statusCode ?? 0,
            body,
            headers: response.headers
          })
        )
      }
    )
    sent.on("error", reject)
    sent.end(options.body)
  })

const runFile = promisify(execFile)

/** An invite for `email` as admin of `org`, made with the operators' CLI; the link's path. */
export const invitePathFor = async (url: string, org: string, email: string) => {
  const root = join(import.meta.dirname, "..", "..")
  const { stdout } = await runFile(
    process.execPath,
    [join(root, "app", "cli.ts"), "user", "invite", "--org", org, "--email", email, "--role", "admin", "--json"],
    { env: { ...process.env, DATABASE_URL: url } }
  )
  return new URL((JSON.parse(stdout) as { link: string }).link).pathname
}
