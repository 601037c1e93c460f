// A 50-step graph with parallel tasks, an interrupt and a resume, run once
// against a fault-free server and once against one that throttles 30% of
// requests, fails 5% with 500s (half of those on writes after applying
// them: a lost response) and adds 50 ms to each: the same final state, the
// same history, and not one event lost or duplicated.
import { randomBytes } from 'node:crypto'

import { BedrockAgentCoreClient, ListEventsCommand, ListSessionsCommand } from '@aws-sdk/client-bedrock-agentcore'
import { Annotation, Command, END, interrupt, START, StateGraph } from '@langchain/langgraph'
import test from 'ava'

import { AgentCoreSaver, startLocalMemory } from '../index.js'
import { collect } from './fixtures/graphs.mjs'

const ROUNDS = 25 // two supersteps each: 50 steps

const State = Annotation.Root({
  round: Annotation({ reducer: (_, b) => b, default: () => 0 }),
  log: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),
})

/** Each round: `left` and `right` in parallel, then `join`; halfway, a question. */
function graph(checkpointer) {
  return new StateGraph(State)
    .addNode('left', (s) => ({ log: [`left ${s.round}`] }))
    .addNode('right', (s) => ({ log: [`right ${s.round}`] }))
    .addNode('join', (s) => {
      const answer = s.round === 12 ? interrupt(`round ${s.round}?`) : undefined
      return { round: s.round + 1, log: [answer ? `join ${s.round}: ${answer}` : `join ${s.round}`] }
    })
    .addEdge(START, 'left')
    .addEdge(START, 'right')
    .addEdge('left', 'join')
    .addEdge('right', 'join')
    .addConditionalEdges('join', (s) => (s.round >= ROUNDS ? END : ['left', 'right']))
    .compile({ checkpointer })
}

/** Runs the graph to its interrupt, resumes it, and reads everything back through a new saver. */
async function run(serverOptions) {
  const server = await startLocalMemory(serverOptions)
  try {
    const memoryId = `faults-${randomBytes(5).toString('hex')}`
    const saver = () => new AgentCoreSaver({ memoryId, endpoint: server.endpoint, maxAttempts: 12 })
    const config = { configurable: { thread_id: 'fifty-steps' }, recursionLimit: 200 }
    await graph(saver()).invoke({ round: 0, log: [] }, config)
    // The resume runs in a new saver, as in a new process.
    const final = await graph(saver()).invoke(new Command({ resume: 'yes' }), config)
    const history = await collect(graph(saver()).getStateHistory(config))
    const tuples = await collect(saver().list(config))
    return { final, history, tuples, events: await eventCounts(server.endpoint, memoryId), stats: server.stats() }
  } finally {
    await server.close()
  }
}

/** Events per session and `langgraph` marker, straight from the server with the AWS SDK. */
async function eventCounts(endpoint, memoryId) {
  const sdk = new BedrockAgentCoreClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } })
  const sessions = []
  let sessionToken
  for (let page = 0; page < 100; page++) {
    const out = await sdk.send(new ListSessionsCommand({ memoryId, actorId: 'langgraph', maxResults: 100, nextToken: sessionToken }))
    sessions.push(...out.sessionSummaries.map((s) => s.sessionId))
    sessionToken = out.nextToken
    if (!sessionToken) break
  }
  const counts = {}
  for (const sessionId of sessions) {
    let nextToken
    for (let page = 0; page < 100; page++) {
      const out = await sdk.send(new ListEventsCommand({ memoryId, actorId: 'langgraph', sessionId, includePayloads: false, maxResults: 100, nextToken }))
      for (const e of out.events) {
        const key = `${sessionId}/${e.metadata?.langgraph?.stringValue}`
        counts[key] = (counts[key] ?? 0) + 1
      }
      nextToken = out.nextToken
      if (!nextToken) break
    }
  }
  return counts
}

/** A snapshot without what differs between runs by design: ids and times. */
const shape = (s) => ({
  values: s.values,
  next: s.next,
  metadata: s.metadata,
  hasParent: s.parentConfig !== undefined,
  tasks: s.tasks.map((t) => ({ name: t.name, path: t.path, interrupts: t.interrupts.map((i) => i.value), result: t.result, error: t.error })),
})

const HASH = /^[0-9a-f]{32}$/

/**
 * A run's stored checkpoints (from `list`) with every id that differs
 * between runs by design replaced by what it stands for: checkpoint ids by
 * their position in the history, task ids (derived from checkpoint ids) by
 * the task's name, interrupt ids (hashes of the task) by a placeholder;
 * times dropped. Everything else, values, versions, metadata, parents and
 * pending writes, is kept as stored.
 */
function normalised({ tuples, history }) {
  const names = new Map()
  for (const snapshot of history) for (const task of snapshot.tasks) names.set(task.id, `task:${task.name}`)
  const positions = new Map(tuples.map((c, i) => [c.checkpoint.id, `checkpoint#${i}`]))
  const rename = (v) => positions.get(v) ?? names.get(v) ?? (HASH.test(v) ? '<interrupt id>' : v)
  const walk = (v) => {
    if (typeof v === 'string') return rename(v)
    if (Array.isArray(v)) return v.map(walk)
    if (v === null || typeof v !== 'object') return v
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [rename(k), walk(x)]))
  }
  return tuples.map(({ checkpoint: { ts, ...checkpoint }, metadata, parentConfig, pendingWrites }) => ({
    checkpoint: walk(checkpoint),
    metadata: walk(metadata),
    parent: walk(parentConfig?.configurable.checkpoint_id),
    // The saver orders writes by task id, which differs between runs.
    pendingWrites: walk(pendingWrites).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
  }))
}

test('under throttling, 500s and lost responses, a 50-step graph ends exactly as without them', async (t) => {
  t.timeout(120_000)
  const clean = await run({})
  const faulty = await run({ throttleRate: 0.3, errorRate: 0.05, latencyMs: 50, seed: 2024 })

  t.is(clean.final.round, ROUNDS)
  t.deepEqual(faulty.final, clean.final)
  t.is(clean.history.length, 2 * ROUNDS + 2)
  t.deepEqual(faulty.history.map(shape), clean.history.map(shape))
  // Each snapshot's parent is the next one down, in both runs.
  for (const { history } of [clean, faulty]) {
    for (let i = 0; i + 1 < history.length; i++) {
      t.is(history[i].parentConfig.configurable.checkpoint_id, history[i + 1].config.configurable.checkpoint_id)
    }
  }
  // The stored checkpoints themselves, with their pending writes, are the same.
  const stored = normalised(clean)
  t.is(stored.length, clean.history.length)
  t.true(stored.filter((c) => c.pendingWrites.length > 0).length >= 2 * ROUNDS, 'the runs left pending writes to compare')
  t.true(stored.some((c) => c.pendingWrites.some(([, channel]) => channel === '__interrupt__')))
  t.deepEqual(normalised(faulty), stored)
  // Not one checkpoint or write lost or stored twice.
  t.deepEqual(faulty.events, clean.events)
  t.true(Object.values(clean.events).reduce((a, b) => a + b, 0) > 2 * ROUNDS * 2)
  // And the faults were really there.
  t.true(faulty.stats.throttled > 20, `throttled ${faulty.stats.throttled}`)
  t.true(faulty.stats.errors > 2, `errors ${faulty.stats.errors}`)
  t.is(clean.stats.throttled + clean.stats.errors, 0)
})
