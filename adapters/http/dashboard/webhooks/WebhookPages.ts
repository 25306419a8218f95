/**
 * The webhooks' views: the organization's endpoints with their health, the form to create one,
 * the secret shown once with a short verification snippet, an endpoint's page (edit, enable or
 * disable, rotate, test, replay, its delivery log) and the confirmation pages. Members read;
 * admins get the forms. Forms work without JavaScript; every field has a label. The secret
 * reaches no view but `secretShown`. Deliveries' own views are in `WebhookDeliveryPages.ts`.
 */
import { html } from "htm/preact"
import { eventTypes } from "../../../../core/receivables/domain/Events.ts"
import type { DisabledReason, WebhookEndpoint } from "../../../../core/webhooks/domain/Webhooks.ts"
import type { EndpointHealth } from "../../../../core/webhooks/ports/WebhookOverview.ts"
import { pendingCountCap } from "../../../../core/webhooks/ports/WebhookOverview.ts"
import { csrfField, page, type Viewer } from "../frame/Layout.ts"
import { alert, counted, notice, stateBadge, table, when } from "../frame/Parts.ts"

export const webhooksPath = "/dashboard/webhooks"
/** Where creating an endpoint or rotating its secret leads: the secret, once. */
export const secretPath = `${webhooksPath}/secret`
export const endpointPath = (id: string) => `${webhooksPath}/${id}`

/** Why an endpoint receives nothing, in words. */
export const disabledReasonText: Record<DisabledReason, string> = {
  manual: "disabled by an admin",
  failing: "disabled after failing for 5 days",
  gone: "disabled: it answered 410 Gone"
}

const isAdmin = (viewer: Viewer) => viewer.user.role === "admin"

export const endpointState = (endpoint: WebhookEndpoint) =>
  endpoint.enabled
    ? stateBadge("enabled")
    : html`${stateBadge("disabled")} ${disabledReasonText[endpoint.disabledReason ?? "manual"]}`

const healthText = (health: EndpointHealth | undefined) => {
  if (health === undefined || health.lastAttempt === null) return "no attempt yet"
  const rate = Math.round((100 * health.succeeded) / health.attempts)
  return html`last ${stateBadge(health.lastAttempt.outcome)} ${when(health.lastAttempt.at, "")}; ${rate}% of the last ${counted(health.attempts, "attempt")} succeeded`
}

const pendingText = (health: EndpointHealth | undefined) => {
  const pending = health?.pending ?? 0
  return pending >= pendingCountCap ? `${pendingCountCap} or more` : String(pending)
}

const typeBoxes = (checked: ReadonlyArray<string>) => html`
  <fieldset>
    <legend>Event types (none ticked on a new endpoint: every type)</legend>
    ${eventTypes.map(
      (type) => html`<label>
        <input type="checkbox" name="event_types" value=${type} checked=${checked.includes(type)} />
        ${type}
      </label>`
    )}
  </fieldset>
`

const createForm = (viewer: Viewer, problem: string | undefined) => html`
  <section aria-labelledby="create-heading">
    <h2 id="create-heading">Add an endpoint</h2>
    ${alert(problem)}
    <form method="post" action=${webhooksPath}>
      ${csrfField(viewer)}
      <label for="url">URL (https)</label>
      <input id="url" name="url" type="url" required placeholder="https://example.com/hooks" />
      <label for="description">Description (optional)</label>
      <input id="description" name="description" type="text" maxlength="500" />
      ${typeBoxes([])}
      <button type="submit">Add endpoint</button>
    </form>
  </section>
`

export const list = (
  viewer: Viewer,
  endpoints: ReadonlyArray<WebhookEndpoint>,
  health: ReadonlyArray<EndpointHealth>,
  options: { readonly problem?: string; readonly notice?: string; readonly older?: string } = {}
) =>
  page(
    "Webhooks",
    html`
      <h1>Webhooks</h1>
      ${notice(options.notice)}
      ${isAdmin(viewer) ? null : html`<p>You are a member: you can see the endpoints; an admin changes them.</p>`}
      ${
        endpoints.length === 0
          ? html`<p>No webhook endpoint yet.</p>`
          : table(
              "Your organization's webhook endpoints, oldest first",
              ["URL", "Description", "Event types", "State", "Health", "Waiting"],
              endpoints.map((endpoint) => {
                const found = health.find((h) => h.endpointId === endpoint.id)
                return html`<tr>
                  <th scope="row"><a href=${endpointPath(endpoint.id)}>${endpoint.url}</a></th>
                  <td>${endpoint.description ?? "—"}</td>
                  <td>${endpoint.eventTypes.join(", ")}</td>
                  <td>${endpointState(endpoint)}</td>
                  <td>${healthText(found)}</td>
                  <td class="number">${pendingText(found)}</td>
                </tr>`
              }),
              [5]
            )
      }
      ${options.older === undefined ? null : html`<p><a href=${`${webhooksPath}?after=${options.older}`}>More endpoints</a></p>`}
      ${isAdmin(viewer) ? createForm(viewer, options.problem) : null}
    `,
    viewer,
    { current: webhooksPath }
  )

/** The secret, once, with how to check a delivery's signature with it. */
export const secretShown = (
  viewer: Viewer,
  shown: { readonly endpoint: WebhookEndpoint; readonly secret: string; readonly rotated: boolean }
) =>
  page(
    shown.rotated ? "Secret rotated" : "Endpoint added",
    html`
      <h1>${shown.rotated ? "New signing secret" : "Endpoint added"}</h1>
      <p role="status">
        Copy the signing secret now: it is shown only this once.${shown.rotated ? " The previous secret keeps signing beside it for 24 hours." : ""}
      </p>
      <p>Endpoint: <a href=${endpointPath(shown.endpoint.id)}>${shown.endpoint.url}</a></p>
      <label for="secret">Signing secret</label>
      <input id="secret" class="secret" type="text" readonly value=${shown.secret} />
      <button type="button" data-copy="secret" hidden>Copy the secret</button>
      <h2>Check each delivery</h2>
      <p>In Node, with the SDK (it throws <code>WebhookVerificationError</code> unless the signature is good):</p>
      <pre><code>${`import { verifyWebhook } from "partner-receivables-client"

// body: the request's body as received (a string); headers: its headers;
// secret: the signing secret above, from wherever your receiver keeps secrets
const event = await verifyWebhook(body, headers, secret)`}</code></pre>
      <p>In Python, with the standard library: <code>verify_webhook(secret, headers, body)</code> as in the consumers' guide, which raises <code>ValueError</code> unless the signature is good.</p>
      <pre><code>${pythonSnippet}</code></pre>
      <p><a href=${endpointPath(shown.endpoint.id)}>To the endpoint</a></p>
    `,
    viewer,
    { current: webhooksPath }
  )

// The consumers' guide's function (docs/consumers.md), shortened to its checks.
const pythonSnippet = `import base64, hashlib, hmac, time

def verify_webhook(secret, headers, body, tolerance=300):
    msg_id, timestamp = headers["webhook-id"], headers["webhook-timestamp"]
    if abs(time.time() - int(timestamp)) > tolerance:
        raise ValueError("webhook-timestamp is too far from now")
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = msg_id.encode() + b"." + timestamp.encode() + b"." + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    for signature in headers["webhook-signature"].split(" "):
        version, _, value = signature.partition(",")
        if version == "v1" and hmac.compare_digest(value, expected):
            return
    raise ValueError("no valid webhook-signature")`

/** The actions an endpoint's page asks to confirm first. */
export const confirmations = {
  disable: {
    title: "Disable the endpoint?",
    text: "Nothing is sent to it while it is disabled; its events wait and are sent once it is enabled again.",
    button: "Disable"
  },
  enable: {
    title: "Enable the endpoint?",
    text: "Deliveries resume at once, what waited included.",
    button: "Enable"
  },
  rotate: {
    title: "Rotate the signing secret?",
    text: "A new secret is shown once; the current one keeps signing beside it for 24 hours.",
    button: "Rotate the secret"
  },
  delete: {
    title: "Delete the endpoint?",
    text: "It is removed with its deliveries; nothing more is sent to it. This cannot be undone.",
    button: "Delete"
  }
} as const
export type Confirmable = keyof typeof confirmations

export const confirm = (viewer: Viewer, endpoint: WebhookEndpoint, action: Confirmable) => {
  const { title, text, button } = confirmations[action]
  return page(
    title,
    html`
      <h1>${title}</h1>
      <p><strong>${endpoint.url}</strong></p>
      <p>${text}</p>
      <form method="post" action=${`${endpointPath(endpoint.id)}/${action}`}>
        ${csrfField(viewer)}
        <button type="submit">${button}</button>
      </form>
      <p><a href=${endpointPath(endpoint.id)}>Cancel</a></p>
    `,
    viewer,
    { current: webhooksPath }
  )
}
