/**
 * HTTP authentication schemes named in lower case. HttpApi writes `Bearer`; scheme names are
 * case-insensitive (RFC 9110, 11.1), but the try-it client of `/docs` (Scalar) takes any name
 * other than exactly `bearer` for `basic`, and would send the key as a user's password.
 */
import type { OpenApi } from "effect/http-api"

export const lowerCaseSchemes = (document: OpenApi.OpenAPISpec): OpenApi.OpenAPISpec => ({
  ...document,
  components: {
    ...document.components,
    securitySchemes: Object.fromEntries(
      Object.entries(document.components.securitySchemes).map(([name, scheme]) => [
        name,
        scheme.type === "http" ? { ...scheme, scheme: scheme.scheme.toLowerCase() } : scheme
      ])
    )
  }
})

/**
 * The scheme the reference page's try-it selects from the start, so that pasting the key is the
 * only step (Scalar otherwise starts at "No authentication selected"). It is the name
 * `Authorization` gives the bearer key (core/api/Security.ts), as the document lists it.
 */
export const preferredScheme = "bearer"
