/**
 * `compose.yaml` describes the set `image.test.ts` runs from the image: PostgreSQL, PgBouncer in
 * transaction mode, two API processes and a worker, each app process built from the
 * `Containerfile`, reaching the database through the pooler and the server itself for what needs a
 * session, with one set of master keys, and only settings the operators' page documents.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { parse } from "yaml"

const root = join(import.meta.dirname, "..", "..")

interface Service {
  readonly image?: string
  readonly build?: { readonly context: string; readonly dockerfile: string }
  readonly command?: ReadonlyArray<string>
  readonly environment?: Readonly<Record<string, string>>
  readonly ports?: ReadonlyArray<string>
  readonly healthcheck?: { readonly test: ReadonlyArray<string> }
}

const compose = parse(readFileSync(join(root, "compose.yaml"), "utf8"), { merge: true }) as {
  readonly services: Readonly<Record<string, Service>>
}
const operators = readFileSync(join(root, "docs", "operators.md"), "utf8")
const apps = ["api-1", "api-2", "worker"] as const
const service = (name: string): Service => {
  const found = compose.services[name]
  assert.isDefined(found, `compose.yaml has no service ${name}`)
  return found!
}
const environment = (name: string) => service(name).environment ?? {}

describe("compose.yaml", () => {
  it("runs PostgreSQL, PgBouncer in transaction mode, two API processes and a worker", () => {
    assert.sameMembers(Object.keys(compose.services), ["postgres", "pgbouncer", ...apps])
    assert.strictEqual(environment("pgbouncer").POOL_MODE, "transaction")
    assert.deepStrictEqual(
      apps.map((name) => service(name).command),
      [["serve"], ["serve"], ["worker"]]
    )
  })

  it("builds every app process from the Containerfile, into one image", () => {
    for (const name of apps) {
      assert.deepStrictEqual(service(name).build, { context: ".", dockerfile: "Containerfile" })
    }
    assert.strictEqual(new Set(apps.map((name) => service(name).image)).size, 1)
  })

  it("points the app at the pooler, with the server itself for sessions, and one set of master keys", () => {
    for (const name of apps) {
      const env = environment(name)
      // The password is compose's to fill in, so these are URLs only once it has.
      assert.match(
        env.DATABASE_URL!,
        /^postgres:\/\/receivables:\$\{POSTGRES_PASSWORD:\?[^}]*\}@pgbouncer:6432\/receivables$/
      )
      assert.match(
        env.DATABASE_DIRECT_URL!,
        /^postgres:\/\/receivables:\$\{POSTGRES_PASSWORD:\?[^}]*\}@postgres:5432\/receivables$/
      )
      assert.strictEqual(env.DATABASE_PREPARED_STATEMENTS, "false")
      assert.strictEqual(env.WEBHOOK_SECRET_KEYS, environment("api-1").WEBHOOK_SECRET_KEYS)
      assert.match(env.WEBHOOK_SECRET_KEYS!, /^\$\{WEBHOOK_SECRET_KEYS:\?/, "required, never a default")
    }
  })

  it("publishes each API process on its own port, and checks the worker on its metrics listener", () => {
    const published = ["api-1", "api-2"].map((name) => service(name).ports?.[0]?.split(":")[0])
    assert.strictEqual(new Set(published).size, 2)
    const worker = service("worker")
    assert.include(worker.healthcheck?.test.join(" ") ?? "", `127.0.0.1:${environment("worker").METRICS_PORT}/metrics`)
  })

  it("sets only settings the operators' page documents", () => {
    for (const name of apps) {
      for (const setting of Object.keys(environment(name))) {
        assert.include(operators, `| \`${setting}\` |`, `${name}: ${setting}`)
      }
    }
  })
})
