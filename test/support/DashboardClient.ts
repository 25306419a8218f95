/**
 * The dashboard as a browser uses it, over `fetch`: one cookie jar per client, redirects seen
 * rather than followed, forms posted with the page's `Origin` and the CSRF token read from the
 * last page. Also: invites made through the core service, as the CLI makes them.
 */
import { Effect, Redacted } from "effect"
import { DashboardAccess } from "../../core/services/DashboardAccess.ts"

export interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly body: string
}

export const inviteToken = (orgId: string, email: string, role: "admin" | "member") =>
  Effect.map(
    Effect.flatMap(Effect.service(DashboardAccess), (access) => access.invite(orgId, email, role)),
    ({ token }) => Redacted.value(token)
  )

export const password = "a long enough password"

/** The CSRF token of a page's forms. */
export const csrfOf = (body: string) => /name="csrf" value="([^"]+)"/.exec(body)?.[1] ?? ""

export const makeClient = (base: string) => {
  let cookie: string | undefined
  const request = async (path: string, init: RequestInit = {}): Promise<Answer> => {
    const headers = new Headers(init.headers)
    if (cookie !== undefined) headers.set("cookie", cookie)
    const response = await fetch(`${base}${path}`, { ...init, headers, redirect: "manual" })
    const set = response.headers.get("set-cookie")
    if (set !== null) {
      const [pair = ""] = set.split(";")
      cookie = /Max-Age=0|Expires=Thu, 01 Jan 1970/i.test(set) ? undefined : pair
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
    get cookie() {
      return cookie
    },
    set cookie(value: string | undefined) {
      cookie = value
    },
    /** Accepts an invite with the test password: the client is then signed in. */
    accept: (token: string) => post(`/dashboard/invite/${token}`, { password, repeat: password })
  }
}

export type Client = ReturnType<typeof makeClient>

export const run = <A>(promise: () => Promise<A>) => Effect.promise(promise)
