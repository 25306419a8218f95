/**
 * Small pieces every page uses: instants as UTC minutes in a `<time>` element, alerts, and
 * counts written out. Rendered by preact, which escapes all text.
 */
import { DateTime } from "effect"
import { html } from "htm/preact"

export const when = (instant: DateTime.Utc | null, otherwise: string) =>
  instant === null
    ? otherwise
    : html`<time datetime=${DateTime.formatIso(instant)}>${DateTime.formatIso(instant).slice(0, 16).replace("T", " ")} UTC</time>`

export const alert = (message: string | undefined) =>
  message === undefined ? null : html`<p role="alert"><strong>${message}</strong></p>`

export const notice = (message: string | undefined) =>
  message === undefined ? null : html`<p role="status">${message}</p>`
