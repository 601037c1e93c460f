// Many threads of 20 supersteps each, all at once, in this one process: run
// by bench/run.mjs as a child so that its peak RSS is its own. Prints one
// JSON line.
//   node [FLAGS] bench/scale.mjs agentcore|paced|memory|none ENDPOINT MEMORY_ID THREADS DURABILITY [RATE]
// `none` runs the graph with no checkpointer: LangGraph's own footprint.
// `paced` is LangGraph's own footprint with a backlog of writes: a saver
// that stores nothing and completes at most RATE writes a second, in order.
import { BaseCheckpointSaver, MemorySaver } from '@langchain/langgraph-checkpoint'

import { AgentCoreSaver } from '../index.js'
import { serverStats, twentySteps } from './workload.mjs'

const [kind, endpoint, memoryId, threadsArg, durability, rateArg] = process.argv.slice(2)
const threads = Number(threadsArg)
const remote = kind === 'agentcore'

/** Stores nothing; each write waits its place in a queue drained at `rate` a second. */
class PacedSaver extends BaseCheckpointSaver {
  constructor(rate) {
    super()
    this.queue = []
    this.timer = setInterval(() => {
      for (let i = 0; i < rate / 100 && this.queue.length > 0; i++) this.queue.shift()()
    }, 10)
  }

  turn() {
    return new Promise((resolve) => this.queue.push(resolve))
  }

  async getTuple() {
    return undefined
  }

  async *list() {}

  async put(config, checkpoint) {
    await this.turn()
    return { configurable: { ...config.configurable, checkpoint_id: checkpoint.id } }
  }

  async putWrites() {
    await this.turn()
  }

  async deleteThread() {}
}

// maxAttempts: 1,000 threads at once may meet the server's in-flight limit.
const makeSaver = () => {
  if (remote) return new AgentCoreSaver({ memoryId, endpoint, maxAttempts: 10 })
  if (kind === 'memory') return new MemorySaver()
  if (kind === 'paced') return new PacedSaver(Number(rateArg))
  return undefined
}
const saver = makeSaver()
const graph = twentySteps(saver)

// What the peak is made of: the V8 heap (LangGraph's and the JS side's
// objects, garbage included) against the rest (the addon's Rust side, Node
// itself), sampled while the threads run.
// A saver whose calls never wait for I/O (MemorySaver) leaves the timer no
// turn: then only the sample at the end counts.
const peak = { heapTotal: 0, heapUsed: 0, outsideHeap: 0 }
const sample = () => {
  const m = process.memoryUsage()
  peak.heapTotal = Math.max(peak.heapTotal, m.heapTotal)
  peak.heapUsed = Math.max(peak.heapUsed, m.heapUsed)
  peak.outsideHeap = Math.max(peak.outsideHeap, m.rss - m.heapTotal)
}
const sampler = setInterval(sample, 100)

if (remote) await serverStats(endpoint, { reset: true })
const cpu = process.cpuUsage()
const start = process.hrtime.bigint()
const results = await Promise.allSettled(
  Array.from({ length: threads }, (_, i) => graph.invoke({ count: 0, log: [] }, { configurable: { thread_id: `scale-${i}` }, durability })),
)
const seconds = Number(process.hrtime.bigint() - start) / 1e9
const used = process.cpuUsage(cpu)
sample()
clearInterval(sampler)
const completed = results.filter((r) => r.status === 'fulfilled' && r.value.count === 20).length
// Error messages only (the saver's carry no payloads), to say why a thread failed.
const failures = results.filter((r) => r.status === 'rejected').map((r) => String(r.reason?.message ?? r.reason))
const stats = remote ? await serverStats(endpoint) : undefined

// Every thread's newest checkpoint, read back by a new saver (for
// MemorySaver, the same one: it has nothing elsewhere to read from).
clearInterval(saver?.timer)
const reader = remote ? makeSaver() : kind === 'paced' ? undefined : saver
let readBack = 0
for (let i = 0; reader && i < threads; i += 50) {
  const batch = Array.from({ length: Math.min(50, threads - i) }, (_, j) => reader.getTuple({ configurable: { thread_id: `scale-${i + j}`, checkpoint_ns: '' } }))
  readBack += (await Promise.all(batch)).filter((t) => t?.checkpoint.channel_values.count === 20).length
}
console.log(
  JSON.stringify({
    threads,
    durability,
    nodeFlags: process.execArgv.join(' '),
    completed,
    readBack,
    failures: failures.slice(0, 5),
    seconds,
    supersteps: threads * 20,
    superstepsPerSecond: (threads * 20) / seconds,
    createEventsPerSecond: stats ? stats.requests.CreateEvent / seconds : undefined,
    requests: stats?.requests,
    throttled: stats?.throttled,
    cpuSeconds: (used.user + used.system) / 1e6,
    // maxRSS is in KiB.
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    peakHeapTotalMb: peak.heapTotal / 2 ** 20,
    peakHeapUsedMb: peak.heapUsed / 2 ** 20,
    peakOutsideHeapMb: peak.outsideHeap / 2 ** 20,
  }),
)
