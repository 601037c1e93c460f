// Fan-out with Send: conditional edges return Send objects to a worker node
// and a reducer collects what the workers return. The pending sends live in
// the checkpoint (channel __pregel_tasks), so they must survive a new saver.
import { Annotation, END, START, Send, StateGraph } from '@langchain/langgraph'
import test from 'ava'

import { appended, collect, counters, store, thread, useLocalMemory } from './fixtures/graphs.mjs'

const local = useLocalMemory(test)

const State = Annotation.Root({ items: Annotation(), results: appended(), total: Annotation() })

/**
 * START -(Send per item)-> worker -> sum. `work(item)` is what a worker
 * returns for its item; it may throw.
 */
function fanOut(count, saver, { work = (item) => item.n * item.n, compile = {} } = {}) {
  return new StateGraph(State)
    .addNode('worker', async (arg) => {
      count.hit(`worker:${arg.item.n}`)
      return { results: [{ n: arg.item.n, out: await work(arg.item) }] }
    })
    .addNode('sum', (s) => {
      count.hit('sum')
      return { total: s.results.reduce((acc, r) => acc + r.out, 0) }
    })
    .addConditionalEdges(START, (s) => s.items.map((item) => new Send('worker', { item })), ['worker'])
    .addEdge('worker', 'sum')
    .addEdge('sum', END)
    .compile({ checkpointer: saver, ...compile })
}

const items = (...ns) => ns.map((n) => ({ n, label: `item ${n} ünï` }))
const byN = (results) => [...results].sort((a, b) => a.n - b.n)

test('Send fans out to one worker per item and the reducer collects every result', async (t) => {
  const s = store(local)
  const config = thread('fan-out')
  const count = counters()
  const done = await fanOut(count, s.saver()).invoke({ items: items(1, 2, 3, 4, 5), results: [] }, config)
  t.deepEqual(byN(done.results), [1, 2, 3, 4, 5].map((n) => ({ n, out: n * n })))
  t.is(done.total, 55)
  t.deepEqual(count.calls, { 'worker:1': 1, 'worker:2': 1, 'worker:3': 1, 'worker:4': 1, 'worker:5': 1, sum: 1 })

  // Read back through a new saver: the superstep that ran the sends.
  const graph = fanOut(counters(), s.saver())
  const state = await graph.getState(config)
  t.is(state.values.total, 55)
  t.deepEqual(byN(state.values.results), byN(done.results))
  const history = await collect(graph.getStateHistory(config))
  const sent = history.find((h) => h.next.includes('worker'))
  t.deepEqual(sent.next, ['worker', 'worker', 'worker', 'worker', 'worker'])
  t.is(sent.tasks.length, 5)
  t.deepEqual(
    sent.tasks.map((task) => task.path[0]),
    Array(5).fill('__pregel_push'),
  )
})

test('pending sends survive a pause and run from a new saver with their own arguments', async (t) => {
  const s = store(local)
  const config = thread('fan-out-paused')
  const count = counters()
  const compile = { interruptBefore: ['worker'] }
  const paused = await fanOut(count, s.saver(), { compile }).invoke({ items: items(7, 8, 9), results: [] }, config)
  t.deepEqual(paused.results, [])
  t.deepEqual(count.calls, {})

  const resumedCount = counters()
  const graph = fanOut(resumedCount, s.saver(), { compile, work: (item) => `${item.label}!` })
  const waiting = await graph.getState(config)
  t.deepEqual(waiting.next, ['worker', 'worker', 'worker'])
  t.is(waiting.tasks.length, 3)

  const done = await graph.invoke(null, config)
  t.deepEqual(byN(done.results), [
    { n: 7, out: 'item 7 ünï!' },
    { n: 8, out: 'item 8 ünï!' },
    { n: 9, out: 'item 9 ünï!' },
  ])
  t.deepEqual(resumedCount.calls, { 'worker:7': 1, 'worker:8': 1, 'worker:9': 1, sum: 1 })
})

test('a failing Send worker is retried alone: the workers that finished are not re-run', async (t) => {
  const s = store(local)
  const config = thread('fan-out-retry')
  const count = counters()
  // Worker 2 fails only once its siblings have finished, so their writes
  // are in before the superstep errors.
  let finished = 0
  let siblingsDone
  const bothDone = new Promise((resolve) => {
    siblingsDone = resolve
  })
  const failing = fanOut(count, s.saver(), {
    work: async (item) => {
      if (item.n === 2) {
        await bothDone
        await new Promise((resolve) => setTimeout(resolve, 20))
        throw new Error('worker 2 broke')
      }
      if (++finished === 2) siblingsDone()
      return item.n * 10
    },
  })
  await t.throwsAsync(failing.invoke({ items: items(1, 2, 3), results: [] }, config), { message: 'worker 2 broke' })
  t.deepEqual(count.calls, { 'worker:1': 1, 'worker:2': 1, 'worker:3': 1 })

  const failed = await fanOut(counters(), s.saver()).getState(config)
  t.deepEqual(
    failed.tasks.filter((task) => task.error).map((task) => task.error.message),
    ['worker 2 broke'],
  )

  const done = await fanOut(count, s.saver(), { work: (item) => item.n * 10 }).invoke(null, config)
  t.deepEqual(byN(done.results), [
    { n: 1, out: 10 },
    { n: 2, out: 20 },
    { n: 3, out: 30 },
  ])
  t.is(done.total, 60)
  t.deepEqual(count.calls, { 'worker:1': 1, 'worker:2': 2, 'worker:3': 1, sum: 1 })
})
