/**
 * A deliberately straightforward reference for `GET /v1/receivables`: Fastify and the `pg`
 * driver, the same SQL semantics (filters, 24-hour default window, order, count, history per
 * receivable) and the same key lookup (SHA-256 of the bearer key), written the way a first
 * version usually is: a key query, a count query, a page query. No validation beyond parsing.
 * Run by `bench/api/run.ts`; not part of the product.
 */
import { createHash } from "node:crypto"
import Fastify from "fastify"
import pg from "pg"

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 })
const app = Fastify({ logger: false })

app.get("/v1/receivables", async (request, reply) => {
  const token = (request.headers.authorization ?? "").replace(/^Bearer /, "")
  const hash = createHash("sha256").update(token).digest()
  const key = await pool.query("SELECT org_id FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL", [hash])
  if (key.rowCount === 0) return reply.code(401).send({ error: { type: "authentication_error" } })
  const query = request.query as Record<string, string | Array<string> | undefined>
  const params: Array<unknown> = [key.rows[0].org_id]
  const where = ["r.org_id = $1"]
  for (const name of ["vendor_id", "debtor_id", "status"]) {
    if (typeof query[name] === "string") {
      params.push(query[name])
      where.push(`r.${name} = $${params.length}`)
    }
  }
  const since = query.verified_since
  if (since !== "all") {
    params.push(typeof since === "string" ? new Date(since) : new Date(Date.now() - 24 * 3600_000))
    where.push(`r.updated_at >= $${params.length}`)
  }
  const limit = Number(query.limit ?? 100)
  const page = Number(query.page ?? 1)
  const expand = ([] as Array<string>).concat(query["expand[]"] ?? [])
  const count = await pool.query(`SELECT count(*) FROM receivables r WHERE ${where.join(" AND ")}`, params)
  const rows = await pool.query(
    `SELECT r.*, v.name AS vendor_name, d.name AS debtor_name, i.next_sync_at,
       ${
         expand.includes("history")
           ? `(SELECT coalesce(json_agg(json_build_object('changed_at', h.changed_at, 'changes', h.changes)), '[]')
               FROM (SELECT * FROM receivable_history WHERE org_id = r.org_id AND receivable_id = r.id
                     ORDER BY changed_at DESC LIMIT ${Number(query.history_limit ?? 10)}) h)`
           : "NULL"
       } AS history
     FROM receivables r JOIN vendors v ON v.id = r.vendor_id JOIN debtors d ON d.id = r.debtor_id
       JOIN integrations i ON i.id = r.integration_id
     WHERE ${where.join(" AND ")} ORDER BY r.detected_at, r.id LIMIT ${limit} OFFSET ${(page - 1) * limit}`,
    params
  )
  const total = Number(count.rows[0].count)
  return {
    object: "list",
    data: rows.rows.map((r) => ({
      id: r.id,
      object: "receivable",
      vendor_receivable_id: r.vendor_receivable_id,
      vendor: { id: r.vendor_id, name: r.vendor_name },
      debtor: { id: r.debtor_id, name: r.debtor_name },
      amount_cents: Number(r.amount_cents),
      currency: r.currency,
      receivable_date: r.receivable_date,
      due_date: r.due_date,
      status: r.status,
      portal_status: r.portal_status,
      po_number: r.po_number,
      detected_at: r.detected_at,
      updated_at: r.updated_at,
      estimated_next_update_at: r.next_sync_at,
      ...(expand.includes("history") ? { history: r.history } : {}),
      ...(expand.includes("metadata") ? { metadata: r.metadata } : {})
    })),
    has_more: page * limit < total,
    total_count: total
  }
})

await app.listen({ port: Number(process.env.PORT ?? 3100), host: "127.0.0.1" })
