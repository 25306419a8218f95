import { Api } from "../core/api/Api.ts"

const g = (Api as any).groups
for (const [k, grp] of Object.entries(g)) {
  for (const [n, e] of Object.entries((grp as any).endpoints)) {
    const q = (e as any).query
    console.log(k, n, typeof q, q && Object.keys(q), q?.ast?._tag, q?.fields && Object.keys(q.fields))
  }
}
