// The workload every saver gets, the same one bench/python_saver.py gives
// the Python saver: threads grown to a history length, then each operation
// repeated, with requests and bytes from the server's counters, the
// client's CPU time from process.cpuUsage() and each call's latency.
import { randomUUID } from 'node:crypto'

import { Annotation, END, START, StateGraph } from '@langchain/langgraph'
import { uuid6 } from '@langchain/langgraph-checkpoint'

/** The local server's counters, over HTTP, as any client would see them. */
export async function serverStats(endpoint, { reset = false } = {}) {
  if (reset) {
    await fetch(`${endpoint}/_local/stats/reset`, { method: 'POST' })
    return undefined
  }
  return (await fetch(`${endpoint}/_local/stats`)).json()
}

const config = (thread, checkpointId) => ({
  configurable: { thread_id: thread, checkpoint_ns: '', ...(checkpointId ? { checkpoint_id: checkpointId } : {}) },
})

/** A thread grown one superstep at a time, as LangGraph drives a saver. */
class Thread {
  constructor(saver, name) {
    this.saver = saver
    this.name = name
    this.step = 0
    this.parent = undefined
    this.ids = []
    this.messages = Array.from({ length: 4 }, (_, i) => ({ role: 'user', content: `message ${i} ` + 'lorem ipsum '.repeat(8) }))
  }

  async put(changed) {
    const values = changed ?? { counter: this.step, messages: this.messages }
    const versions = Object.fromEntries(Object.keys(values).map((k) => [k, this.step + 1]))
    const checkpoint = {
      v: 4,
      id: uuid6(this.step),
      ts: new Date().toISOString(),
      channel_values: values,
      channel_versions: versions,
      versions_seen: {},
    }
    const stored = await this.saver.put(config(this.name, this.parent), checkpoint, { source: 'loop', step: this.step, parents: {} }, versions)
    this.parent = stored.configurable.checkpoint_id
    this.ids.push(this.parent)
    this.step += 1
  }

  putWrites(writes = [['counter', this.step]]) {
    return this.saver.putWrites(config(this.name, this.parent), writes, randomUUID())
  }
}

async function drain(iterable) {
  for await (const _ of iterable);
}

/**
 * Runs `call` `reps` times; per call: latency, the client's CPU, the
 * server's CPU (`serverCpuMs()` samples it), requests and bytes.
 */
export async function measure(endpoint, reps, call, serverCpuMs = () => 0) {
  await serverStats(endpoint, { reset: true })
  const latenciesMs = []
  const serverCpu = serverCpuMs()
  const cpu = process.cpuUsage()
  for (let i = 0; i < reps; i++) {
    const start = process.hrtime.bigint()
    await call(i)
    latenciesMs.push(Number(process.hrtime.bigint() - start) / 1e6)
  }
  const used = process.cpuUsage(cpu)
  const serverUsed = serverCpuMs() - serverCpu
  const after = await serverStats(endpoint)
  return {
    latenciesMs,
    cpuMs: (used.user + used.system) / 1000 / reps,
    serverCpuMs: serverUsed / reps,
    requests: Object.fromEntries(Object.entries(after.requests).filter(([, n]) => n > 0).map(([op, n]) => [op, n / reps])),
    bytesIn: after.bytesIn / reps,
    bytesOut: after.bytesOut / reps,
  }
}

/** Every operation at every history length, for one saver. */
export async function operations(saver, { endpoint, reps, lengths, label, serverCpuMs }) {
  const results = {}
  for (const n of lengths) {
    const t = new Thread(saver, `${label}-${n}-${randomUUID().slice(0, 8)}`)
    for (let i = 0; i < n; i++) {
      await t.put()
      await t.putWrites()
    }
    const older = t.ids[Math.max(0, t.ids.length - 10)]
    const timed = (call) => measure(endpoint, reps, call, serverCpuMs)
    results[n] = {
      put: await timed(() => t.put()),
      putWrites: await timed(() => t.putWrites()),
      getTuple: await timed(() => saver.getTuple(config(t.name))),
      getTupleById: await timed(() => saver.getTuple(config(t.name, older))),
      list: await timed(() => drain(saver.list(config(t.name), { limit: 10 }))),
    }
  }
  return results
}

/**
 * Request bytes of one chat superstep (a put with the grown messages
 * channel, a putWrites of the two new messages) at each conversation size.
 */
export async function chatBytes(saver, { endpoint, sizes, label }) {
  const out = {}
  for (const size of sizes) {
    const t = new Thread(saver, `${label}-chat-${size}-${randomUUID().slice(0, 8)}`)
    t.messages = Array.from({ length: size }, (_, i) => ({
      role: i % 2 === 0 ? 'user' : 'assistant',
      content: `turn ${i}: ` + 'tell me more about the weather '.repeat(5),
    }))
    await t.put({ messages: t.messages })
    await serverStats(endpoint, { reset: true })
    await t.put({ messages: [...t.messages, ...t.messages.slice(0, 2)] })
    await t.putWrites([['messages', t.messages.slice(0, 2)]])
    out[size] = (await serverStats(endpoint)).bytesIn
  }
  return out
}

const GraphState = Annotation.Root({
  count: Annotation({ reducer: (_, b) => b, default: () => 0 }),
  log: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),
})

/** A graph of 20 supersteps: one node that loops on itself. */
export function twentySteps(checkpointer) {
  return new StateGraph(GraphState)
    .addNode('step', (s) => ({ count: s.count + 1, log: [`step ${s.count}`] }))
    .addEdge(START, 'step')
    .addConditionalEdges('step', (s) => (s.count >= 20 ? END : 'step'))
    .compile({ checkpointer })
}

/** Wall time of the 20-step graph under each durability mode. */
export async function graphWall(saver, { label }) {
  const graph = twentySteps(saver)
  const out = {}
  for (const durability of ['async', 'sync']) {
    const start = process.hrtime.bigint()
    const thread = `${label}-graph-${durability}-${randomUUID().slice(0, 8)}`
    await graph.invoke({ count: 0, log: [] }, { configurable: { thread_id: thread }, durability })
    out[durability] = Number(process.hrtime.bigint() - start) / 1e6
  }
  return out
}
