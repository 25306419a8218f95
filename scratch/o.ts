import { Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { VendorId } from "../core/domain/Ids.ts"

const G = HttpApiGroup.make("g").add(
  HttpApiEndpoint.get("l", "/l", {
    query: {
      a: Schema.optionalKey(VendorId).annotateKey({ description: "key-desc" }),
      b: Schema.optionalKey(Schema.String.annotate({ description: "pre" }).check(Schema.isUUID())),
      c: Schema.optionalKey(Schema.Literals(["X", "Y"]).annotate({ description: "lit" })),
      d: Schema.optionalKey(Schema.String.check(Schema.isMinLength(1)).annotate({ description: "post" }))
    }
  })
)
const spec = OpenApi.fromApi(HttpApi.make("x").add(G))
console.log(JSON.stringify(spec.paths["/l"].get.parameters, null, 0))
