/**
 * One webhook endpoint's views: its page (what it is, its health, edit, enable or disable, rotate,
 * test, replay a window, and its delivery log filtered by status and event type, paged to older
 * deliveries by keyset) and a delivery's page with its attempts, the body it is sent with, the
 * receivable its event concerns and "Retry". Admins get the forms; members read. Attempts' answers
 * and the body are shown as text, escaped by preact like every text.
 */
import { html } from "htm/preact"
import { eventTypes } from "../../../../core/receivables/domain/Events.ts"
import {
  type DeliveryStatus,
  type WebhookAttempt,
  type WebhookDelivery,
  type WebhookEndpoint,
  webhookEventTypes
} from "../../../../core/webhooks/domain/Webhooks.ts"
import { csrfField, page, type Viewer } from "../frame/Layout.ts"
import { alert, notice, stateBadge, table, when } from "../frame/Parts.ts"
import { endpointPath, endpointState, webhooksPath } from "./WebhookPages.ts"

export const deliveryPath = (endpoint: string, delivery: string) => `${endpointPath(endpoint)}/deliveries/${delivery}`

export const deliveryStatuses: ReadonlyArray<DeliveryStatus> = ["pending", "sending", "succeeded", "failed"]

const parsed = (body: string): unknown => {
  try {
    return JSON.parse(body)
  } catch {
    return undefined
  }
}

/** The body indented for reading; the same JSON as is sent, which the signature covers byte for byte. */
const indented = (body: string) => {
  const value = parsed(body)
  return value === undefined ? body : JSON.stringify(value, null, 2)
}

const field = (value: unknown, name: string): unknown =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>)[name] : undefined

/**
 * The receivable an event is about: `data.receivable.id` (created, updated) or
 * `data.receivable_id` (status changed); a test event is about none.
 */
export const receivableOfBody = (body: string): string | undefined => {
  const data = field(parsed(body), "data")
  const id = field(field(data, "receivable"), "id") ?? field(data, "receivable_id")
  return typeof id === "string" ? id : undefined
}

export interface DeliveryLog {
  readonly deliveries: ReadonlyArray<WebhookDelivery>
  readonly status: DeliveryStatus | undefined
  readonly eventType: string | undefined
  /** The last delivery's id when older ones follow. */
  readonly older: string | undefined
}

const isAdmin = (viewer: Viewer) => viewer.user.role === "admin"

const action = (viewer: Viewer, endpoint: WebhookEndpoint, name: string, label: string) => html`
  <form method="post" action=${`${endpointPath(endpoint.id)}/${name}`} class="inline">
    ${csrfField(viewer)}
    <button type="submit" class="secondary">${label}</button>
  </form>
`

const editForm = (viewer: Viewer, endpoint: WebhookEndpoint) => html`
  <section aria-labelledby="edit-heading">
    <h2 id="edit-heading">Edit</h2>
    <form method="post" action=${endpointPath(endpoint.id)}>
      ${csrfField(viewer)}
      <label for="url">URL (https)</label>
      <input id="url" name="url" type="url" required value=${endpoint.url} />
      <label for="description">Description</label>
      <input id="description" name="description" type="text" maxlength="500" value=${endpoint.description ?? ""} />
      <fieldset>
        <legend>Event types (at least one)</legend>
        ${eventTypes.map(
          (type) => html`<label>
            <input type="checkbox" name="event_types" value=${type} checked=${endpoint.eventTypes.includes(type)} />
            ${type}
          </label>`
        )}
      </fieldset>
      <button type="submit">Save</button>
    </form>
  </section>
`

const actions = (viewer: Viewer, endpoint: WebhookEndpoint) => html`
  <section aria-labelledby="actions-heading">
    <h2 id="actions-heading">Actions</h2>
    <p>
      ${endpoint.enabled ? action(viewer, endpoint, "test", "Send a test event") : null}
      <a href=${`${endpointPath(endpoint.id)}/${endpoint.enabled ? "disable" : "enable"}`} role="button" class="secondary outline">
        ${endpoint.enabled ? "Disable…" : "Enable…"}
      </a>
      <a href=${`${endpointPath(endpoint.id)}/rotate`} role="button" class="secondary outline">Rotate the secret…</a>
      <a href=${`${endpointPath(endpoint.id)}/delete`} role="button" class="secondary outline">Delete…</a>
    </p>
    <form method="post" action=${`${endpointPath(endpoint.id)}/replay`}>
      ${csrfField(viewer)}
      <fieldset>
        <legend>Replay the events of a window (UTC) again</legend>
        <label for="since">Since</label>
        <input id="since" name="since" type="datetime-local" required />
        <label for="until">Until (empty: now)</label>
        <input id="until" name="until" type="datetime-local" />
      </fieldset>
      <button type="submit" class="secondary">Replay</button>
    </form>
  </section>
`

const logQuery = (log: DeliveryLog, after: string) => {
  const query = new URLSearchParams()
  if (log.status !== undefined) query.set("status", log.status)
  if (log.eventType !== undefined) query.set("event_type", log.eventType)
  query.set("after", after)
  return query.toString()
}

const deliveryLog = (endpoint: WebhookEndpoint, log: DeliveryLog) => html`
  <section aria-labelledby="log-heading">
    <h2 id="log-heading">Deliveries</h2>
    <form method="get" action=${endpointPath(endpoint.id)}>
      <label for="status">Status</label>
      <select id="status" name="status">
        <option value="">any</option>
        ${deliveryStatuses.map((status) => html`<option value=${status} selected=${log.status === status}>${status}</option>`)}
      </select>
      <label for="event_type">Event type</label>
      <select id="event_type" name="event_type">
        <option value="">any</option>
        ${webhookEventTypes.map((type) => html`<option value=${type} selected=${log.eventType === type}>${type}</option>`)}
      </select>
      <button type="submit" class="secondary">Filter</button>
    </form>
    ${
      log.deliveries.length === 0
        ? html`<p>No delivery matches.</p>`
        : table(
            "The endpoint's deliveries, newest first",
            ["Delivery", "Event type", "Status", "Attempts", "Last attempt", "Next attempt"],
            log.deliveries.map(
              (delivery) => html`<tr>
                <th scope="row"><a href=${deliveryPath(endpoint.id, delivery.id)}><code>${delivery.id}</code></a></th>
                <td>${delivery.eventType}</td>
                <td>${stateBadge(delivery.status)}</td>
                <td class="number">${delivery.attempts}</td>
                <td>${when(delivery.lastAttemptAt, "none yet")}</td>
                <td>${when(delivery.nextAttemptAt, "none")}</td>
              </tr>`
            ),
            [3]
          )
    }
    ${log.older === undefined ? null : html`<p><a href=${`${endpointPath(endpoint.id)}?${logQuery(log, log.older)}`}>Older deliveries</a></p>`}
  </section>
`

export const endpointPage = (
  viewer: Viewer,
  endpoint: WebhookEndpoint,
  log: DeliveryLog,
  options: { readonly problem?: string; readonly notice?: string } = {}
) =>
  page(
    `Webhook ${endpoint.url}`,
    html`
      <h1>Webhook endpoint</h1>
      ${notice(options.notice)} ${alert(options.problem)}
      <dl>
        <dt>URL</dt>
        <dd>${endpoint.url}</dd>
        <dt>Description</dt>
        <dd>${endpoint.description ?? "none"}</dd>
        <dt>Event types</dt>
        <dd>${endpoint.eventTypes.join(", ")}</dd>
        <dt>State</dt>
        <dd>${endpointState(endpoint)} ${endpoint.enabled ? null : when(endpoint.disabledAt, "")}</dd>
        <dt>Created</dt>
        <dd>${when(endpoint.createdAt, "")}</dd>
        <dt>Previous secret signs until</dt>
        <dd>${when(endpoint.previousSecretExpiresAt, "no previous secret")}</dd>
      </dl>
      ${isAdmin(viewer) ? actions(viewer, endpoint) : null}
      ${deliveryLog(endpoint, log)}
      ${isAdmin(viewer) ? editForm(viewer, endpoint) : null}
      <p><a href=${webhooksPath}>Back to the webhooks</a></p>
    `,
    viewer,
    { current: webhooksPath }
  )

const attemptRow = (attempt: WebhookAttempt) => html`<tr>
  <th scope="row">${when(attempt.startedAt, "")}</th>
  <td>${stateBadge(attempt.outcome)}</td>
  <td class="number">${attempt.responseStatus ?? "none"}</td>
  <td>${attempt.error ?? ""}</td>
  <td class="number">${attempt.durationMs} ms</td>
  <td>${attempt.responseBody === null || attempt.responseBody === "" ? "" : html`<pre><code>${attempt.responseBody}</code></pre>`}</td>
</tr>`

export const deliveryPage = (
  viewer: Viewer,
  endpoint: WebhookEndpoint,
  delivery: WebhookDelivery,
  attempts: ReadonlyArray<WebhookAttempt>,
  body: string,
  options: { readonly problem?: string; readonly notice?: string } = {}
) => {
  const receivable = receivableOfBody(body)
  return page(
    `Delivery ${delivery.id}`,
    html`
      <h1>Delivery <code>${delivery.id}</code></h1>
      ${notice(options.notice)} ${alert(options.problem)}
      <dl>
        <dt>Endpoint</dt>
        <dd><a href=${endpointPath(endpoint.id)}>${endpoint.url}</a></dd>
        <dt>Event</dt>
        <dd><code>${delivery.eventId}</code> (${delivery.eventType})</dd>
        ${
          receivable === undefined
            ? null
            : html`<dt>Receivable</dt>
                <dd><a href=${`/dashboard/receivables/${encodeURIComponent(receivable)}`}>${receivable}</a></dd>`
        }
        <dt>Status</dt>
        <dd>${stateBadge(delivery.status)}</dd>
        <dt>Next attempt</dt>
        <dd>${when(delivery.nextAttemptAt, "none")}</dd>
      </dl>
      ${
        isAdmin(viewer)
          ? html`<form method="post" action=${`${deliveryPath(endpoint.id, delivery.id)}/retry`}>
              ${csrfField(viewer)}
              <button type="submit">Retry now</button>
            </form>`
          : null
      }
      ${
        attempts.length === 0
          ? html`<p>No attempt yet.</p>`
          : table(
              "The delivery's attempts, oldest first, with the start of each answer",
              ["Started", "Outcome", "Status code", "Error", "Duration", "Answer"],
              attempts.map(attemptRow),
              [2, 4]
            )
      }
      <section aria-labelledby="payload-heading">
        <h2 id="payload-heading">Payload</h2>
        <p>
          The body each attempt posts, indented here for reading; it is sent as compact JSON, signed with the endpoint's
          secret in the <code>webhook-signature</code> header.
        </p>
        <pre role="region" aria-labelledby="payload-heading" tabindex="0"><code>${indented(body)}</code></pre>
      </section>
    `,
    viewer,
    { current: webhooksPath }
  )
}
