import { Effect, Schema, SchemaTransformation } from "effect"

const Body = Schema.Struct({
  type: Schema.Literal("invalid_request_error"),
  code: Schema.String,
  message: Schema.String,
  param: Schema.optionalKey(Schema.String)
})
class InvalidRequest extends Schema.Error<InvalidRequest>("InvalidRequest")({ error: Body }, { httpApiStatus: 400 }) {}
const e = new InvalidRequest({ error: { type: "invalid_request_error", code: "x", message: "m", param: "limit" } })
console.log(Schema.encodeSync(InvalidRequest)(e), e instanceof Error, (e as any)._tag)
const Int = Schema.String.check(Schema.isPattern(/^\d+$/)).pipe(
  Schema.decodeTo(
    Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 500 })),
    SchemaTransformation.transform({ decode: Number, encode: String })
  )
)
const Q = Schema.Struct({ limit: Int.pipe(Schema.withDecodingDefaultKey(Effect.succeed("100"))) })
console.log(Schema.decodeUnknownSync(Q)({}), Schema.decodeUnknownSync(Q)({ limit: "5" }))
try {
  Schema.decodeUnknownSync(Q)({ limit: "501" })
} catch (err: any) {
  console.log(err.message, JSON.stringify(err.issue?.path ?? null))
}
const r = Schema.decodeUnknownExit(Q)({ limit: ["1", "2"] })
console.log(String(r))
