/**
 * The dashboard as a browser uses it, over `fetch`: one cookie jar per client, redirects seen
 * rather than followed, forms posted with the page's `Origin` and the CSRF token read from the
 * last page. Also: invites made through the core service, as the CLI makes them.
 */
import { assert } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { Accounts } from "../../core/accounts/services/Accounts.ts"

export interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly body: string
}

export const inviteToken = (orgId: string, email: string, role: "admin" | "member") =>
  Effect.map(
    Effect.flatMap(Effect.service(Accounts), (access) => access.invite(orgId, email, role)),
    ({ token }) => Redacted.value(token)
  )

export const password = "a long enough password"

/** The CSRF token of a page's forms. */
export const csrfOf = (body: string) => /name="csrf" value="([^"]+)"/.exec(body)?.[1] ?? ""

export const makeClient = (base: string) => {
  // Cookies by name (the session's, and the one carrying a new key to its page); paths are not
  // told apart: every cookie of the dashboard is sent back on every request.
  const jar = new Map<string, string>()
  const request = async (path: string, init: RequestInit = {}): Promise<Answer> => {
    const headers = new Headers(init.headers)
    if (jar.size > 0) headers.set("cookie", [...jar.values()].join("; "))
    const response = await fetch(`${base}${path}`, { ...init, headers, redirect: "manual" })
    for (const set of response.headers.getSetCookie()) {
      const [pair = ""] = set.split(";")
      const name = pair.split("=")[0] ?? ""
      if (/Max-Age=0|Expires=Thu, 01 Jan 1970/i.test(set)) jar.delete(name)
      else jar.set(name, pair)
    }
    return { status: response.status, headers: response.headers, body: await response.text() }
  }
  /** `origin: null` sends none; `extra` adds headers (what a browser says of the request's site). */
  const post = (
    path: string,
    fields: Record<string, string>,
    origin: string | null = base,
    extra: Record<string, string> = {}
  ) =>
    request(path, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        ...(origin === null ? {} : { origin }),
        ...extra
      },
      body: new URLSearchParams(fields).toString()
    })
  return {
    get: (path: string) => request(path),
    post,
    /** The cookies as the next request sends them; undefined when there are none. */
    get cookie() {
      return jar.size === 0 ? undefined : [...jar.values()].join("; ")
    },
    set cookie(value: string | undefined) {
      jar.clear()
      for (const pair of value?.split("; ") ?? []) jar.set(pair.split("=")[0] ?? "", pair)
    },
    /** Accepts an invite with the test password: the client is then signed in. */
    accept: (token: string) => post(`/dashboard/invite/${token}`, { password, repeat: password })
  }
}

export type Client = ReturnType<typeof makeClient>

export const run = <A>(promise: () => Promise<A>) => Effect.promise(promise)

let emails = 0
/** A new address on every call: one user per address across all organizations. */
export const email = (role: string) => `${role}-${emails++}@example.com`

/** A signed-in client of the organization, on the page signing in leads to, with its CSRF token. */
export const signedIn = (base: string, orgId: string, role: "admin" | "member") =>
  Effect.gen(function* () {
    const client = makeClient(base)
    const token = yield* inviteToken(orgId, email(role), role)
    const accepted = yield* run(() => client.accept(token))
    assert.strictEqual(accepted.status, 303)
    assert.strictEqual(accepted.headers.get("location"), "/dashboard/overview")
    const page = yield* run(() => client.get("/dashboard/overview"))
    assert.strictEqual(page.status, 200)
    return { client, csrf: csrfOf(page.body), token }
  })
