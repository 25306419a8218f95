/**
 * Partner Receivables core: the receivables domain as plain Effect code. Embed it in your own
 * service; it depends on `effect` alone.
 */
export * as History from "./domain/History.ts"
export * as Ids from "./domain/Ids.ts"
export * as ListQuery from "./domain/ListQuery.ts"
export * as Pagination from "./domain/Pagination.ts"
export * as Resources from "./domain/Resources.ts"
export * as Status from "./domain/Status.ts"
export * as Values from "./domain/Values.ts"
