/**
 * The http-json connector on answers that are too large, not UTF-8, or hold items without a key:
 * a page is read up to its limit and no further, text is decoded strictly, and an item without a
 * key is reported, never dropped.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { assert, layer } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { connector } from "../../../adapters/portals/http-json/HttpJsonConnector.ts"
import * as HttpConnector from "../../../adapters/portals/portal-client/HttpConnector.ts"
import { pairToFetch } from "../../support/conformance/Conformance.ts"
import { json, mockPortal } from "../../support/MockPortal.ts"
import { configFor } from "./fixtures/http-json.ts"

const notation = { decimalSeparator: ".", groupsThousands: false } as const
const item = { id: 7, number: "INV-7", total: "10.00", currency: "USD", issued_on: "2026-11-02", state: "open" }
const secrets = { GLOBEX_PORTAL_KEY: "k" }

/** A portal answering with raw bytes, written by the handler as it likes (slowly, endlessly). */
const rawPortal = (handler: (request: IncomingMessage, response: ServerResponse) => void) =>
  Effect.acquireRelease(
    Effect.callback<ReturnType<typeof createServer>>((resume) => {
      const server = createServer(handler)
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) =>
      Effect.callback<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map((server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`))

const unpaged = (origin: string, extra: Readonly<Record<string, unknown>> = {}) => ({
  ...configFor(origin, "page", notation),
  pagination: { style: "none" },
  ...extra
})

const fetchFrom = (config: unknown) => Stream.runCollect(connector.fetch(pairToFetch(config, secrets)))

layer(HttpConnector.layer)("http-json pages", (it) => {
  it.effect(
    "an endless page fails for good once past maxPageBytes, naming the setting, without waiting for its end",
    () =>
      Effect.gen(function* () {
        let written = 0
        let dropped: () => void = () => undefined
        const hungUp = new Promise<void>((resolve) => {
          dropped = resolve
        })
        const origin = yield* rawPortal((_, response) => {
          // The reader hanging up is the only way this answer ends.
          response.once("close", () => dropped())
          response.writeHead(200, { "content-type": "application/json" })
          response.write('{"data": [')
          const more = () => {
            // Never ends: only a reader that stops at its limit gets past this page.
            while (response.write(`${JSON.stringify(item)},`)) written++
            response.once("drain", more)
          }
          more()
        })
        const failure = yield* Effect.flip(fetchFrom(unpaged(origin, { maxPageBytes: 1024 * 1024 })))
        assert.deepStrictEqual(
          [failure.retryable, failure.message],
          [
            false,
            `${origin}/api/v2/invoices answered more than 1 MiB (the "maxPageBytes" setting): ask for smaller pages, or raise "maxPageBytes"`
          ]
        )
        assert.isAbove(written, 0)
        yield* Effect.promise(() => hungUp)
      })
  )

  it.effect("a page that stops halfway is retryable once the timeout passes, like a portal that does not answer", () =>
    Effect.gen(function* () {
      const origin = yield* rawPortal((_, response) => {
        response.writeHead(200, { "content-type": "application/json" })
        response.write('{"data": [')
      })
      const failure = yield* Effect.flip(fetchFrom(unpaged(origin, { timeoutSeconds: 1 })))
      assert.deepStrictEqual(
        [failure.retryable, failure.message],
        [true, `${origin}/api/v2/invoices did not answer within 1 s`]
      )
    })
  )

  it.effect("a page declared larger than the limit is refused before it is read", () =>
    Effect.gen(function* () {
      const items = Array.from({ length: 400 }, (_, i) => ({ ...item, id: i + 1 }))
      const portal = yield* mockPortal(() => json({ data: items }))
      const failure = yield* Effect.flip(fetchFrom(unpaged(portal.origin, { maxPageBytes: 1024 })))
      assert.isFalse(failure.retryable)
      assert.match(failure.message, /answered more than 1,024 bytes \(the "maxPageBytes" setting\)/)
      const fetched = yield* fetchFrom(unpaged(portal.origin))
      assert.strictEqual(fetched.length, 400)
    })
  )

  it.effect("an item without a key is reported with its page and place, not dropped", () =>
    Effect.gen(function* () {
      const portal = yield* mockPortal(() =>
        json({ data: [item, { ...item, id: null }, { ...item, id: { value: 9 } }, { ...item, id: 8 }] })
      )
      const fetched = yield* fetchFrom(unpaged(portal.origin))
      assert.deepStrictEqual(
        fetched.map((document) => [document.documentKey, document.unreadable ?? []]),
        [
          ["7", []],
          ["page 1 item 2", ['the item has no "id"']],
          ["page 1 item 3", ['"id" holds an object, not a document key']],
          ["8", []]
        ]
      )
    })
  )
})

layer(HttpConnector.layer)("http-json text", (it) => {
  const answering = (bytes: Buffer, contentType: string) =>
    rawPortal((_, response) => {
      response.writeHead(200, { "content-type": contentType, "content-length": bytes.length })
      response.end(bytes)
    })
  const body = JSON.stringify({ data: [{ ...item, note: "Müller & Söhne" }] })
  // Windows-1252 puts "€" and "–" where Latin-1 has control characters.
  const cp1252 = (text: string) => Buffer.from([...text].map((c) => ({ "€": 0x80, "–": 0x96 })[c] ?? c.charCodeAt(0)))

  it.effect("reads UTF-16 with a byte-order mark and a declared Latin-1 charset exactly", () =>
    Effect.gen(function* () {
      for (const [bytes, type] of [
        [Buffer.from(`\uFEFF${body}`, "utf16le"), "application/json"],
        [Buffer.from(body, "latin1"), "application/json; charset=ISO-8859-1"]
      ] as const) {
        const origin = yield* answering(bytes, type)
        const [document] = yield* fetchFrom(unpaged(origin))
        assert.strictEqual(document?.metadata.note, "Müller & Söhne")
      }
    })
  )

  it.effect("a byte-order mark outranks the declared charset, and windows-1252 reads its own bytes", () =>
    Effect.gen(function* () {
      const euro = JSON.stringify({ data: [{ ...item, note: "10 € – Müller" }] })
      for (const [bytes, type] of [
        [Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(euro)]), "application/json; charset=iso-8859-1"],
        [cp1252(euro), 'application/json; charset="windows-1252"']
      ] as const) {
        const origin = yield* answering(bytes, type)
        const [document] = yield* fetchFrom(unpaged(origin))
        assert.strictEqual(document?.metadata.note, "10 € – Müller")
      }
    })
  )

  it.effect("bytes that are not UTF-8 in an answer that declares nothing fail for good, never become U+FFFD", () =>
    Effect.gen(function* () {
      const origin = yield* answering(Buffer.from(body, "latin1"), "application/json")
      const failure = yield* Effect.flip(fetchFrom(unpaged(origin)))
      assert.deepStrictEqual(
        [failure.retryable, failure.message],
        [false, `${origin}/api/v2/invoices answered text that is not valid utf-8 at byte ${body.indexOf("ü")}`]
      )
    })
  )
})
