/**
 * The `ReceivableStore` contract's law of `listIntegrations`, run by `ReceivableStore.contract.ts`
 * on every store: the model's reading of each pair (kind, state, newest finished run, next
 * update), filtered and ordered as `GET /v1/integrations` promises.
 */
import { assert } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Integration } from "../../core/receivables/domain/Resources.ts"
import { ReceivableStore } from "../../core/receivables/ports/ReceivableStore.ts"
import { filterOf, filterPlan, modelIntegrations } from "./ReceivableStore.model.ts"
import { forAll } from "./ReceivableStore.seed.ts"

const encode = Schema.encodeSync(Schema.Array(Integration))

export const integrationsLaw = forAll(filterPlan, (world, plan) =>
  Effect.gen(function* () {
    const { org, filter, asked } = filterOf(world, plan)
    const listed = yield* (yield* ReceivableStore).listIntegrations(asked.org, {
      vendorId: asked.filter.vendorId,
      debtorId: asked.filter.debtorId
    })
    assert.deepStrictEqual(encode(listed), modelIntegrations(world, org, filter))
  })
)
