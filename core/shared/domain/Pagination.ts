/**
 * Paging of the receivables list: the defaults and bounds of spec section 8 and docs/decisions.md,
 * page to offset, and `has_more`. Pages are numbered from 1; a page past the end is empty.
 */

export const limitDefault = 100
export const limitMaximum = 500
export const pageDefault = 1
export const historyLimitDefault = 10
export const historyLimitMaximum = 100

export interface PageWindow {
  readonly offset: number
  readonly limit: number
}

/**
 * The rows a page covers. The offset saturates at the largest safe integer: any page that far
 * out is past the end of every result, and stays exact for all the pages that are not.
 */
export const pageWindow = (page: number, limit: number): PageWindow => ({
  offset: Math.min((page - 1) * limit, Number.MAX_SAFE_INTEGER),
  limit
})

/** Whether items exist after this page of a result of `totalCount` items. */
export const hasMore = (page: number, limit: number, totalCount: number): boolean =>
  pageWindow(page, limit).offset + limit < totalCount
