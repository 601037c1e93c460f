// 1,000 threads of 20 supersteps each, all at once, in this one process:
// run by bench/run.mjs as a child so that its peak RSS is its own. Prints
// one JSON line.
import { AgentCoreSaver } from '../index.js'
import { serverStats, twentySteps } from './workload.mjs'

const [endpoint, memoryId, threadsArg] = process.argv.slice(2)
const threads = Number(threadsArg)
const saver = new AgentCoreSaver({ memoryId, endpoint, maxAttempts: 10 })
const graph = twentySteps(saver)

await serverStats(endpoint, { reset: true })
const cpu = process.cpuUsage()
const start = process.hrtime.bigint()
const results = await Promise.allSettled(
  Array.from({ length: threads }, (_, i) => graph.invoke({ count: 0, log: [] }, { configurable: { thread_id: `scale-${i}` } })),
)
const seconds = Number(process.hrtime.bigint() - start) / 1e9
const used = process.cpuUsage(cpu)
const completed = results.filter((r) => r.status === 'fulfilled' && r.value.count === 20).length
const failures = results.filter((r) => r.status === 'rejected').map((r) => String(r.reason?.message ?? r.reason))
const stats = await serverStats(endpoint)
// Every thread's newest checkpoint, read back by a new saver.
const reader = new AgentCoreSaver({ memoryId, endpoint, maxAttempts: 10 })
let readBack = 0
for (let i = 0; i < threads; i += 50) {
  const batch = Array.from({ length: Math.min(50, threads - i) }, (_, j) => reader.getTuple({ configurable: { thread_id: `scale-${i + j}` } }))
  readBack += (await Promise.all(batch)).filter((t) => t?.checkpoint.channel_values.count === 20).length
}
console.log(
  JSON.stringify({
    threads,
    completed,
    readBack,
    failures: failures.slice(0, 5),
    seconds,
    supersteps: threads * 20,
    superstepsPerSecond: (threads * 20) / seconds,
    createEventsPerSecond: stats.requests.CreateEvent / seconds,
    requests: stats.requests,
    throttled: stats.throttled,
    cpuSeconds: (used.user + used.system) / 1e6,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  }),
)
