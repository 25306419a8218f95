/**
 * What the OpenAPI document tells a generated client about the webhooks' requests, and about the
 * answers it must keep reading as the API grows: the lists' cursors carry the pattern of the ids
 * they page by (anything else is a 400); the request bodies say what the service accepts (an
 * absolute URL of bounded length, no field they do not name, `since` a date-time within the
 * retention); the writes document their 408 and 415; a sync's `error_class` is an open string;
 * and the receivables list's `ETag` is optional, since a page written as it is read has none.
 */
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { OpenApi } from "effect/http-api"
import fc from "fast-check"
import { Api } from "../../../core/api/Api.ts"
import { RunErrorClass } from "../../../core/receivables/domain/RunError.ts"
import { deliveryId, endpointId } from "../../../core/webhooks/domain/WebhookSigning.ts"
import { WebhookDeliveryId, WebhookEndpointId, webhookUrlMaximum } from "../../../core/webhooks/domain/Webhooks.ts"

const document = OpenApi.fromApi(Api)
const schemas = document.components.schemas as Record<string, { readonly properties: Record<string, object> }>
const cursor = (path: string) =>
  document.paths[path]!.get!.parameters.find((parameter) => parameter.name === "starting_after")!

describe("the OpenAPI document, for the webhooks' requests", () => {
  it("gives each webhook list's starting_after the pattern of every id of its kind, and nothing else", () => {
    const lists = [
      { path: "/v1/webhook_endpoints", make: endpointId, schema: WebhookEndpointId },
      { path: "/v1/webhook_endpoints/{id}/deliveries", make: deliveryId, schema: WebhookDeliveryId }
    ]
    for (const { path, make, schema } of lists) {
      const parameter = cursor(path)
      const { pattern } = parameter.schema as { readonly pattern: string }
      const matches = new RegExp(pattern)
      assert.include(parameter.description, "anything else is a 400", path)
      fc.assert(
        fc.property(
          fc.uint8Array({ minLength: 16, maxLength: 16 }),
          fc.integer({ min: 0, max: 2 ** 47 }),
          (random, millis) => {
            assert.match(make(random, millis), matches)
          }
        )
      )
      // What the pattern admits, the contract reads as a cursor; what it refuses, it refuses.
      fc.assert(
        fc.property(fc.oneof(fc.stringMatching(matches), fc.string()), (text) => {
          assert.strictEqual(Schema.is(schema)(text), matches.test(text), JSON.stringify(text))
        })
      )
      for (const malformed of ["\u0000", "x", "é"]) assert.notMatch(malformed, matches, path)
    }
  })

  it("describes the request bodies as the service reads them", () => {
    for (const name of ["WebhookEndpointCreate", "WebhookEndpointUpdate"]) {
      assert.include(
        schemas[name]!.properties.url,
        { type: "string", format: "uri", maxLength: webhookUrlMaximum },
        name
      )
      assert.include((schemas[name]!.properties.url as { description: string }).description, "https", name)
    }
    const since = schemas.WebhookReplay!.properties.since as { format: string; description: string }
    assert.strictEqual(since.format, "date-time")
    assert.include(since.description, "retention")
    assert.include(since.description, "before `until`")
    for (const name of ["WebhookEndpointCreate", "WebhookEndpointUpdate", "WebhookReplay"]) {
      assert.propertyVal(schemas[name], "additionalProperties", false, name)
    }
  })

  it("documents the writes' 415 for a body that is not JSON and 408 for one that does not arrive in time", () => {
    const writes = [
      document.paths["/v1/webhook_endpoints"]!.post!,
      document.paths["/v1/webhook_endpoints/{id}"]!.patch!,
      document.paths["/v1/webhook_endpoints/{id}/replay"]!.post!
    ]
    for (const write of writes) {
      assert.includeMembers(Object.keys(write.responses), ["400", "408", "415"], write.operationId)
    }
    // A read takes no body: it is answered neither.
    assert.notProperty(document.paths["/v1/webhook_endpoints"]!.get!.responses, "415")
    assert.notProperty(document.paths["/v1/webhook_endpoints"]!.get!.responses, "408")
  })
})

describe("the OpenAPI document, for answers that grow", () => {
  it("gives a sync's error_class as a string, describing the known classes, so a new one is read", () => {
    const errorClass = schemas.LastSync!.properties.error_class as {
      readonly anyOf: ReadonlyArray<object>
      readonly description: string
    }
    assert.deepStrictEqual(errorClass.anyOf, [{ type: "string" }, { type: "null" }])
    for (const known of RunErrorClass.literals) assert.include(errorClass.description, `\`${known}\``)
    assert.include(errorClass.description, "more may be added")
    assert.notInclude(JSON.stringify(document), '"portal_unreachable",')
  })

  it("makes the receivables list's ETag optional, saying when it is absent; every other success has one", () => {
    const list = document.paths["/v1/receivables"]!.get!.responses as Record<string, OpenApi.OpenApiSpecResponse>
    const tag = list["200"]!.headers!.ETag!
    assert.strictEqual(tag.required, false)
    assert.include(tag.description, "written as it is read")
    assert.strictEqual(list["304"]!.headers!.ETag!.required, true)
    for (const [path, item] of Object.entries(document.paths).filter(([path]) => path !== "/v1/receivables")) {
      const ok = item.get?.responses["200"] as OpenApi.OpenApiSpecResponse | undefined
      if (ok !== undefined) assert.strictEqual(ok.headers!.ETag!.required, true, path)
    }
  })
})
