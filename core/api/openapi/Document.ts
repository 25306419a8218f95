/**
 * The OpenAPI document of the contract as third-party tools need it, refined from what HttpApi
 * generates: linters (Redocly's and Spectral's stock rules) find nothing to report, client
 * generators produce exact types, and answers admit the fields later versions add. `Api` applies it through its `transform` annotation, so that
 * `/v1/openapi.json`, `/docs` and `OpenApi.fromApi(Api)` show the same document.
 */
import { pipe } from "effect"
import type { HttpApi, HttpApiGroup, OpenApi } from "effect/http-api"
import { addCodeSamples } from "./CodeSamples.ts"
import { addExamples } from "./Examples.ts"
import { admitNewFields } from "./Growth.ts"
import { documentParameters } from "./Parameters.ts"
import { documentResponses } from "./Responses.ts"
import { dropEncodedSuffixes, liftAnnotations, pruneComponents, referenceCopies } from "./Schemas.ts"
import { lowerCaseSchemes } from "./SecuritySchemes.ts"

export interface Contact {
  readonly name: string
  readonly url?: string
  readonly email?: string
}

/**
 * `api` must hold the same endpoints as the API whose document is refined. The work is done when
 * the document is first asked for (`OpenApi.fromApi` keeps it), not when the contract is imported.
 */
export const refine =
  <Id extends string, Groups extends HttpApiGroup.Constraint>(
    api: HttpApi.HttpApi<Id, Groups>,
    options: { readonly contact: Contact }
  ) =>
  (generated: OpenApi.OpenAPISpec): OpenApi.OpenAPISpec =>
    pipe(
      { ...generated, info: { ...generated.info, contact: options.contact } },
      documentParameters(api),
      documentResponses,
      lowerCaseSchemes,
      addCodeSamples,
      (document) => liftAnnotations(document) as OpenApi.OpenAPISpec,
      dropEncodedSuffixes,
      referenceCopies,
      pruneComponents,
      admitNewFields,
      addExamples
    )
