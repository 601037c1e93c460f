// The durability modes: the default ("async"), "sync" and "exit" all run,
// pause and resume through new savers, and store what each mode promises.
import { Annotation, Command, END, START, StateGraph, interrupt } from '@langchain/langgraph'
import test from 'ava'

import { appended, collect, counters, store, thread, useLocalMemory } from './fixtures/graphs.mjs'

const local = useLocalMemory(test)

const State = Annotation.Root({ log: appended() })

/** a -> b (interrupts) -> c */
function graphWith(count, saver) {
  return new StateGraph(State)
    .addNode('a', () => {
      count.hit('a')
      return { log: ['a'] }
    })
    .addNode('b', () => {
      count.hit('b')
      return { log: [`b:${interrupt('?')}`] }
    })
    .addNode('c', () => {
      count.hit('c')
      return { log: ['c'] }
    })
    .addEdge(START, 'a')
    .addEdge('a', 'b')
    .addEdge('b', 'c')
    .addEdge('c', END)
    .compile({ checkpointer: saver })
}

const steps = (history) => history.map((h) => [h.metadata.step, h.next])

const EVERY_STEP_PAUSED = [
  [1, ['b']],
  [0, ['a']],
  [-1, ['__start__']],
]
const EVERY_STEP_DONE = [
  [3, []],
  [2, ['c']],
  ...EVERY_STEP_PAUSED,
]

const pauseAndResume = test.macro({
  async exec(t, durability, expected) {
    const s = store(local)
    const config = { ...thread(`durability-${durability}`), ...(durability ? { durability } : {}) }
    const count = counters()

    const paused = await graphWith(count, s.saver()).invoke({ log: ['in'] }, config)
    t.deepEqual(paused.log, ['in', 'a'])
    t.is(paused.__interrupt__[0].value, '?')
    t.deepEqual(steps(await collect(graphWith(count, s.saver()).getStateHistory(config))), expected.paused)

    const waiting = await graphWith(count, s.saver()).getState(config)
    t.deepEqual(waiting.next, ['b'])
    t.deepEqual(waiting.values.log, ['in', 'a'])

    const done = await graphWith(count, s.saver()).invoke(new Command({ resume: durability ?? 'default' }), config)
    t.deepEqual(done.log, ['in', 'a', `b:${durability ?? 'default'}`, 'c'])
    t.deepEqual(count.calls, { a: 1, b: 2, c: 1 })

    const history = await collect(graphWith(counters(), s.saver()).getStateHistory(config))
    t.deepEqual(steps(history), expected.done)
    t.deepEqual(history[0].values.log, done.log)
  },
  title: (_, durability) => `pause and resume through a new saver with durability ${durability ? `"${durability}"` : 'left to its default'}`,
})

test(pauseAndResume, undefined, { paused: EVERY_STEP_PAUSED, done: EVERY_STEP_DONE })
test(pauseAndResume, 'sync', { paused: EVERY_STEP_PAUSED, done: EVERY_STEP_DONE })
test(pauseAndResume, 'async', { paused: EVERY_STEP_PAUSED, done: EVERY_STEP_DONE })
// "exit" stores one checkpoint per invocation, when it ends.
test(pauseAndResume, 'exit', {
  paused: [[1, ['b']]],
  done: [
    [3, []],
    [1, ['b']],
  ],
})

test('durability "sync": every streamed step is already stored when its values arrive', async (t) => {
  const s = store(local)
  const config = { ...thread('sync-stream'), durability: 'sync', streamMode: 'values' }
  const count = counters()

  /** Streams one run; after each values chunk but the first, checks the store already holds it. */
  async function streamChecked(input) {
    const seen = []
    for await (const chunk of await graphWith(count, s.saver()).stream(input, config)) {
      if (!Array.isArray(chunk.log)) continue // the __interrupt__ chunk
      seen.push(chunk.log)
      // A run's first values (its input) are emitted before their checkpoint
      // is awaited; from the first step on, "sync" stores a step before
      // emitting it.
      if (seen.length === 1) continue
      const stored = await collect(graphWith(counters(), s.saver()).getStateHistory(thread('sync-stream')))
      t.true(
        stored.some((h) => JSON.stringify(h.values.log) === JSON.stringify(chunk.log)),
        `a stored checkpoint holds ${JSON.stringify(chunk.log)}`,
      )
    }
    return seen
  }

  t.deepEqual(await streamChecked({ log: ['in'] }), [['in'], ['in', 'a']])
  t.deepEqual(await streamChecked(new Command({ resume: 'x' })), [
    ['in', 'a'],
    ['in', 'a', 'b:x'],
    ['in', 'a', 'b:x', 'c'],
  ])
  t.deepEqual(count.calls, { a: 1, b: 2, c: 1 })
})
