/**
 * CPU time of the processes a benchmark drives (Linux, from `/proc`; NaN elsewhere). CPU per unit
 * of work says which process a run's time went to, and varies less with the machine's speed of
 * the hour than throughput does.
 */
import { execFileSync } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const clockTicks = process.platform === "linux" ? Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" })) : 0

// The fields after the command's name: [1] is the parent's pid, [11] and [12] the process's user
// and system time, [13] and [14] those of its ended children.
const statOf = (pid: string) => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ").at(-1)!.split(" ")

/** A process's own CPU seconds, all its threads. */
export const processCpuSeconds = (pid: number) => {
  if (clockTicks === 0) return Number.NaN
  const stat = statOf(String(pid))
  return (Number(stat[11]) + Number(stat[12])) / clockTicks
}

/**
 * The PostgreSQL server's CPU seconds: the postmaster's, its ended children's (backends,
 * autovacuum workers) and its live children's.
 */
export const postgresCpuSeconds = (postmaster: string) => {
  if (clockTicks === 0) return Number.NaN
  const own = statOf(postmaster)
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14])
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = statOf(pid)
      if (stat[1] === postmaster) ticks += Number(stat[11]) + Number(stat[12])
    } catch {
      // The process ended while we looked; its time is now the postmaster's.
    }
  }
  return ticks / clockTicks
}

/** The postmaster's pid, as the parent of the backend serving this connection. */
export const postmasterPid = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`
  return clockTicks === 0 ? "" : statOf(String(row!.pid))[1]!
})
