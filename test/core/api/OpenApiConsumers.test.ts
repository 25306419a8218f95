/**
 * The OpenAPI document lets the API grow and leads the tools that read it to valid requests: no
 * schema of an answer refuses a field it does not name (spec section 9), while records keep the
 * type of their values; each id in a path carries the pattern of every id the service makes; the
 * answers that surprise consumers (an events cursor past the newest, `If-None-Match: *`) are
 * written where the operation is; the reference page preselects a scheme the document has. A client that validates strictly is generated and run in
 * test/generated-clients/strict-validation.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { OpenApi } from "effect/http-api"
import fc from "fast-check"
import { Api } from "../../../core/api/Api.ts"
import { preferredScheme } from "../../../core/api/openapi/SecuritySchemes.ts"
import { eventId, parseEventId } from "../../../core/receivables/domain/Events.ts"
import { ReceivableId, receivableIdFromBytes } from "../../../core/shared/domain/Ids.ts"

const document = OpenApi.fromApi(Api)
const operation = (path: string) => document.paths[path]!.get!
const parameter = (path: string, name: string) => operation(path).parameters.find((p) => p.name === name)!

/** Where in `value` a schema says `additionalProperties: false`, as JSON paths. */
const closedObjects = (value: unknown, at = "$"): Array<string> => {
  if (Array.isArray(value)) return value.flatMap((item, index) => closedObjects(item, `${at}[${index}]`))
  if (typeof value !== "object" || value === null) return []
  const own = (value as { additionalProperties?: unknown }).additionalProperties === false ? [at] : []
  return [...own, ...Object.entries(value).flatMap(([key, member]) => closedObjects(member, `${at}.${key}`))]
}

const idPattern = (path: string) => new RegExp((parameter(path, "id").schema as { pattern: string }).pattern)

describe("the OpenAPI document, for an API that grows and the tools that read it", () => {
  it("lets every object of every answer carry fields it does not name; a request body names all it takes", () => {
    // The service refuses a body's field it does not define (`parameter_unknown`): a generated
    // client learns it from the body's schema, the one object closed.
    assert.sameMembers(closedObjects(document.components.schemas), [
      "$.WebhookEndpointCreate",
      "$.WebhookEndpointUpdate",
      "$.WebhookReplay"
    ])
    for (const [path, item] of Object.entries(document.paths)) {
      assert.deepStrictEqual(closedObjects(item.get?.responses), [], path)
    }
    // A record still says what its values are.
    assert.deepStrictEqual(
      (document.components.schemas.Metadata as { additionalProperties?: unknown }).additionalProperties,
      { type: "string" }
    )
  })

  it("says in its description that answers may carry fields a client does not know yet", () => {
    assert.include(document.info.description, "keep or ignore the fields you do not know")
  })

  it("gives a receivable's id in its path the pattern of every receivable id the service makes", () => {
    const pattern = idPattern("/v1/receivables/{id}")
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), (bytes) => {
        assert.match(receivableIdFromBytes(bytes), pattern)
      })
    )
    // And nothing the contract would not read as a receivable id.
    fc.assert(
      fc.property(fc.stringMatching(pattern), (text) => {
        assert.isTrue(Schema.is(ReceivableId)(text))
      })
    )
  })

  it("gives an event's id in its path the pattern of every event id the service makes", () => {
    const pattern = idPattern("/v1/events/{id}")
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }),
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        (batch, ordinal) => {
          const id = eventId(batch, ordinal)
          assert.match(id, pattern)
          assert.deepStrictEqual(parseEventId(id), { batch, ordinal })
        }
      )
    )
  })

  it("says that an events cursor past the newest sequence is refused with parameter_invalid", () => {
    assert.include(parameter("/v1/events", "after").description, "`parameter_invalid`")
    assert.include(operation("/v1/events").description, "past your newest sequence is refused with `parameter_invalid`")
  })

  it("says that If-None-Match: * is a 304 on every GET, the receivables list included", () => {
    for (const path of Object.keys(document.paths).filter((path) => document.paths[path]!.get !== undefined)) {
      const description = parameter(path, "If-None-Match").description ?? ""
      assert.include(description, "`*` matches any current answer", path)
      assert.include(description, "the receivables list included", path)
    }
  })

  it("names the bearer scheme the reference page selects from the start", () => {
    assert.strictEqual(document.components.securitySchemes[preferredScheme]?.type, "http")
    assert.deepStrictEqual(operation("/v1/receivables").security, [{ [preferredScheme]: [] }])
  })

  it("tells a consumer keeping a copy where each receivable's schedule comes from", () => {
    for (const path of ["/v1/receivables", "/v1/events"]) {
      assert.include(operation(path).description, "from `GET /v1/integrations`", path)
      assert.include(operation(path).description, "equals a full load", path)
    }
    assert.include(operation("/v1/events").description, "A `receivable.status_changed` carries no receivable")
  })
})
