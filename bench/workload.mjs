// The workload every saver gets, the same one bench/python_saver.py gives
// the Python saver: threads grown to a history length, then each operation
// repeated, with requests and bytes from the server's counters, the
// client's CPU time from process.cpuUsage() and each call's latency.
import { randomUUID } from 'node:crypto'

import { Annotation, END, START, StateGraph } from '@langchain/langgraph'
import { uuid6 } from '@langchain/langgraph-checkpoint'

import { chatMessages } from './text.mjs'

/** The local server's counters, over HTTP, as any client would see them. */
export async function serverStats(endpoint, { reset = false } = {}) {
  const response = reset ? await fetch(`${endpoint}/_local/stats/reset`, { method: 'POST' }) : await fetch(`${endpoint}/_local/stats`)
  if (!response.ok) throw new Error(`${endpoint}/_local/stats answered HTTP ${response.status}`)
  return reset ? undefined : response.json()
}

const config = (thread, checkpointId) => ({
  configurable: { thread_id: thread, checkpoint_ns: '', ...(checkpointId ? { checkpoint_id: checkpointId } : {}) },
})

/** The small state of the operations workload: a counter and four messages. */
export const smallMessages = chatMessages(4, 7)

/** A thread grown one superstep at a time, as LangGraph drives a saver. */
class Thread {
  constructor(saver, name) {
    this.saver = saver
    this.name = name
    this.step = 0
    this.parent = undefined
    this.ids = []
  }

  /** A checkpoint holding `values`, of which the channels in `changed` are new. */
  async put(values = { counter: this.step, messages: smallMessages }, changed = Object.keys(values)) {
    const versions = Object.fromEntries(Object.keys(values).map((k) => [k, this.step + 1]))
    const checkpoint = {
      v: 4,
      id: uuid6(this.step),
      ts: new Date().toISOString(),
      channel_values: values,
      channel_versions: versions,
      versions_seen: {},
    }
    const newVersions = Object.fromEntries(changed.map((k) => [k, versions[k]]))
    const stored = await this.saver.put(config(this.name, this.parent), checkpoint, { source: 'loop', step: this.step, parents: {} }, newVersions)
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

/**
 * Every operation at every history length, for one saver. `fresh()` makes
 * another saver on the same memory (none for MemorySaver): it reads an id it
 * has never seen, as a process other than the writer would.
 */
export async function operations(saver, { endpoint, reps, lengths, label, serverCpuMs, fresh }) {
  const results = {}
  for (const n of lengths) {
    const t = new Thread(saver, `${label}-${n}-${randomUUID().slice(0, 8)}`)
    for (let i = 0; i < n; i++) {
      await t.put()
      await t.putWrites()
    }
    const older = t.ids[Math.max(0, t.ids.length - 10)]
    // Made before the timing: making a saver is no part of a read.
    const readers = fresh ? Array.from({ length: reps }, fresh) : []
    const timed = (call) => measure(endpoint, reps, call, serverCpuMs)
    // Reads first, on the thread as LangGraph leaves it (a put and a
    // putWrites a superstep): the writes measured after them pile 100
    // writes onto one checkpoint, which no superstep does.
    const getTuple = await timed(() => saver.getTuple(config(t.name)))
    const getTupleById = await timed(() => saver.getTuple(config(t.name, older)))
    // A new saver per call (its first request, on a new connection): a
    // reader that never saw the id, as another process would be.
    const getTupleByIdFresh = fresh ? await timed((i) => readers[i].getTuple(config(t.name, older))) : undefined
    const list = await timed(() => drain(saver.list(config(t.name), { limit: 10 })))
    results[n] = {
      put: await timed(() => t.put()),
      putWrites: await timed(() => t.putWrites()),
      getTuple,
      getTupleById,
      ...(getTupleByIdFresh ? { getTupleByIdFresh } : {}),
      list,
    }
  }
  return results
}

/**
 * Request bytes of one chat superstep as the conversation grows by two
 * messages a step (a putWrites of the two, then a put of the grown
 * messages channel, the only channel in newVersions), at each size in
 * `sizes`. `messages` is the whole conversation, shared with the Python run.
 */
export async function chatBytes(saver, { endpoint, sizes, label, messages }) {
  const t = new Thread(saver, `${label}-chat-${randomUUID().slice(0, 8)}`)
  const out = {}
  const last = Math.max(...sizes)
  await t.put({ turn: 0, messages: [] })
  for (let size = 2; size <= last; size += 2) {
    const measured = sizes.includes(size)
    if (measured) await serverStats(endpoint, { reset: true })
    await t.putWrites([['messages', messages.slice(size - 2, size)]])
    await t.put({ turn: size / 2, messages: messages.slice(0, size) }, ['turn', 'messages'])
    if (measured) {
      const stats = await serverStats(endpoint)
      out[size] = { bytesIn: stats.bytesIn, requests: Object.fromEntries(Object.entries(stats.requests).filter(([, n]) => n > 0)) }
    }
  }
  return out
}

/** The content each step of the 20-step graph appends, shared with the Python run. */
export const stepReply = chatMessages(2, 11)[1].content

const GraphState = Annotation.Root({
  count: Annotation({ reducer: (_, b) => b, default: () => 0 }),
  messages: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),
})

/** A graph of 20 supersteps: one node that loops on itself, appending a message each time. */
export function twentySteps(checkpointer) {
  return new StateGraph(GraphState)
    .addNode('step', (s) => ({ count: s.count + 1, messages: [{ role: 'assistant', content: `step ${s.count}: ${stepReply}` }] }))
    .addEdge(START, 'step')
    .addConditionalEdges('step', (s) => (s.count >= 20 ? END : 'step'))
    .compile({ checkpointer })
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/**
 * Wall time of the 20-step graph under each durability mode: the median of
 * `runs` runs on new threads, after one untimed run that warms up the
 * process (module loading, the SDK's first connection, the JIT).
 */
export async function graphWall(saver, { label, runs }) {
  const graph = twentySteps(saver)
  const invoke = (durability) =>
    graph.invoke({ count: 0, messages: [] }, { configurable: { thread_id: `${label}-graph-${randomUUID().slice(0, 8)}` }, durability })
  await invoke('sync')
  const out = {}
  for (const durability of ['async', 'sync']) {
    const times = []
    for (let i = 0; i < runs; i++) {
      const start = process.hrtime.bigint()
      await invoke(durability)
      times.push(Number(process.hrtime.bigint() - start) / 1e6)
    }
    out[durability] = median(times)
  }
  return out
}
