/**
 * `user invite` as operators run it (`node app/cli.ts ...`): a one-time link to the dashboard,
 * readable or as JSON, that opens the page setting the password, and works once; refusals are
 * one line and exit code 1. `user role` and `user remove` end the user's sessions.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { jsonOf, runCli } from "../support/Cli.ts"
import { makeClient } from "../support/DashboardClient.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { BaseUrl, serverLayer } from "../support/TestServer.ts"

const TestLayer = serverLayer({ dashboard: true }).pipe(Layer.provideMerge(TestDatabase.layer))

layer(TestLayer, { timeout: 120_000, excludeTestServices: true })("the operator CLI's dashboard users", (it) => {
  it.effect("invites a user with a one-time link to set a password", () =>
    Effect.gen(function* () {
      const base = yield* BaseUrl
      const cli = (...args: ReadonlyArray<string>) => runCli(args, { PUBLIC_URL: base })
      const { id: orgId } = jsonOf<{ id: string }>(yield* cli("org", "create", "--name", "Acme Factoring", "--json"))

      const invited = jsonOf<{ link: string; email: string; role: string }>(
        yield* cli("user", "invite", "--org", orgId, "--email", "Ada@Example.com", "--role", "admin", "--json")
      )
      assert.match(invited.link, new RegExp(`^${base}/dashboard/invite/[A-Za-z0-9_-]{43}$`))
      assert.strictEqual(invited.email, "ada@example.com")
      assert.strictEqual(invited.role, "admin")

      const readable = yield* cli("user", "invite", "--org", orgId, "--email", "bob@example.com", "--role", "member")
      assert.strictEqual(readable.code, 0, readable.stderr)
      const [link = ""] = readable.stdout.split("\n")
      assert.match(link, /\/dashboard\/invite\/[A-Za-z0-9_-]{43}$/)
      assert.match(readable.stdout, /bob@example\.com \(member\)/)

      const client = makeClient(base)
      const path = new URL(invited.link).pathname
      assert.strictEqual((yield* Effect.promise(() => client.get(path))).status, 200)
      assert.strictEqual((yield* Effect.promise(() => client.accept(path.split("/").at(-1)!))).status, 303)
      assert.strictEqual((yield* Effect.promise(() => makeClient(base).get(path))).status, 410)
    })
  )

  it.effect("refuses an unknown organization, a bad role, a bad address and another organization's user", () =>
    Effect.gen(function* () {
      const base = yield* BaseUrl
      const cli = (...args: ReadonlyArray<string>) => runCli(args, { PUBLIC_URL: base })
      const { id: orgId } = jsonOf<{ id: string }>(yield* cli("org", "create", "--name", "One", "--json"))
      const { id: otherId } = jsonOf<{ id: string }>(yield* cli("org", "create", "--name", "Two", "--json"))
      const { link } = jsonOf<{ link: string }>(
        yield* cli("user", "invite", "--org", orgId, "--email", "taken@example.com", "--role", "member", "--json")
      )
      yield* Effect.promise(() => makeClient(base).accept(link.split("/").at(-1)!))
      for (const [args, message] of [
        [
          ["--org", "2cbcf9e4-b72f-4f73-93cd-ba5b4e67cc48", "--email", "a@example.com", "--role", "admin"],
          /no organization/
        ],
        [["--org", orgId, "--email", "not an address", "--role", "admin"], /--email/],
        [["--org", otherId, "--email", "taken@example.com", "--role", "admin"], /another organization/]
      ] as const) {
        const refused = yield* cli("user", "invite", ...args)
        assert.strictEqual(refused.code, 1, refused.stdout)
        assert.match(refused.stderr, message)
        assert.strictEqual(refused.stdout, "")
      }
      const badRole = yield* cli("user", "invite", "--org", orgId, "--email", "c@example.com", "--role", "owner")
      assert.strictEqual(badRole.code, 1)
    })
  )
  it.effect("changes a user's role and removes a user, ending their sessions; refuses the last admin's", () =>
    Effect.gen(function* () {
      const base = yield* BaseUrl
      const cli = (...args: ReadonlyArray<string>) => runCli(args, { PUBLIC_URL: base })
      const { id: orgId } = jsonOf<{ id: string }>(yield* cli("org", "create", "--name", "Roles", "--json"))
      const signIn = (address: string, role: "admin" | "member") =>
        Effect.gen(function* () {
          const { link } = jsonOf<{ link: string }>(
            yield* cli("user", "invite", "--org", orgId, "--email", address, "--role", role, "--json")
          )
          const client = makeClient(base)
          yield* Effect.promise(() => client.accept(link.split("/").at(-1)!))
          return client
        })
      const boss = yield* signIn("boss@example.com", "admin")
      const helper = yield* signIn("helper@example.com", "admin")

      const demoted = yield* cli("user", "role", "--org", orgId, "--email", "Helper@example.com", "--role", "member")
      assert.strictEqual(demoted.code, 0, demoted.stderr)
      assert.match(demoted.stdout, /helper@example\.com is now member/)
      assert.strictEqual((yield* Effect.promise(() => helper.get("/dashboard/keys"))).status, 303, "signed out")

      const lastAdmin = yield* cli("user", "remove", "--org", orgId, "--email", "boss@example.com")
      assert.strictEqual(lastAdmin.code, 1)
      assert.match(lastAdmin.stderr, /no admin left/)
      assert.strictEqual((yield* Effect.promise(() => boss.get("/dashboard/keys"))).status, 200, "still signed in")

      const removed = jsonOf<{ removed: boolean }>(
        yield* cli("user", "remove", "--org", orgId, "--email", "helper@example.com", "--json")
      )
      assert.isTrue(removed.removed)
      const unknown = yield* cli("user", "remove", "--org", orgId, "--email", "helper@example.com")
      assert.strictEqual(unknown.code, 1)
      assert.match(unknown.stderr, /no such user/)
    })
  )

  it.effect("restores an admin to an organization that has none left", () =>
    Effect.gen(function* () {
      const base = yield* BaseUrl
      const cli = (...args: ReadonlyArray<string>) => runCli(args, { PUBLIC_URL: base })
      const { id: orgId } = jsonOf<{ id: string }>(yield* cli("org", "create", "--name", "Orphaned", "--json"))
      const { link } = jsonOf<{ link: string }>(
        yield* cli("user", "invite", "--org", orgId, "--email", "left@example.com", "--role", "member", "--json")
      )
      yield* Effect.promise(() => makeClient(base).accept(link.split("/").at(-1)!))
      const sql = yield* SqlClient.SqlClient
      const [{ admins } = { admins: -1 }] = yield* sql<{ admins: number }>`
        SELECT count(*)::int AS admins FROM dashboard_users WHERE org_id = ${orgId} AND role = 'admin'`
      assert.strictEqual(admins, 0, "an organization with no admin, as an older release could leave it")

      const restored = yield* cli("user", "role", "--org", orgId, "--email", "left@example.com", "--role", "admin")
      assert.strictEqual(restored.code, 0, restored.stderr)
      assert.match(restored.stdout, /left@example\.com is now admin/)
    })
  )
})
