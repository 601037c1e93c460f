// copyThread, prune, deleteForRuns and shallow mode, driven through
// LangGraph graphs against the local server and read back by new savers.
import { Annotation, Command, END, interrupt, START, StateGraph } from '@langchain/langgraph'
import { MemorySaver } from '@langchain/langgraph-checkpoint'
import test from 'ava'

import { AgentCoreError } from '../index.js'
import { appended, collect, store, thread, useLocalMemory } from './fixtures/graphs.mjs'

const local = useLocalMemory(test)

const State = Annotation.Root({ log: appended() })

/** `steps` nodes in a row, each appending its name, then one that asks a human. */
function graph(saver, steps = 3) {
  let g = new StateGraph(State)
  for (let i = 0; i < steps; i++) g = g.addNode(`n${i}`, () => ({ log: [`n${i}`] }))
  g = g.addNode('ask', () => ({ log: [`answer:${interrupt('question?')}`] }))
  g = g.addEdge(START, 'n0')
  for (let i = 1; i < steps; i++) g = g.addEdge(`n${i - 1}`, `n${i}`)
  return g.addEdge(`n${steps - 1}`, 'ask').addEdge('ask', END).compile({ checkpointer: saver })
}

/** What a snapshot shows, without the thread id. */
const shape = (s) => ({
  values: s.values,
  next: s.next,
  metadata: s.metadata,
  id: s.config.configurable.checkpoint_id,
  parent: s.parentConfig?.configurable?.checkpoint_id,
  tasks: s.tasks.map((t) => ({ name: t.name, interrupts: t.interrupts.map((i) => i.value) })),
})

test('copyThread: the copy reads like the source, runs on its own, and a used target is refused', async (t) => {
  const s = store(local)
  await graph(s.saver()).invoke({ log: ['in'] }, thread('source'))
  const saver = s.saver()
  t.true((await saver.copyThread('source', 'copy')) > 0)

  const reader = graph(s.saver())
  const source = (await collect(reader.getStateHistory(thread('source')))).map(shape)
  // LangGraph shows each snapshot's metadata with the thread id it was read under.
  const unthreaded = ({ metadata: { thread_id, ...metadata }, ...rest }) => ({ ...rest, metadata })
  const copy = await collect(reader.getStateHistory(thread('copy')))
  t.deepEqual(copy.map(shape).map(unthreaded), source.map(unthreaded))
  t.true(copy.every((c) => c.config.configurable.thread_id === 'copy'))
  t.deepEqual((await reader.getState(thread('copy'))).tasks[0].interrupts[0].value, 'question?')

  // Resuming the copy leaves the source where it was.
  await reader.invoke(new Command({ resume: 'yes' }), thread('copy'))
  t.deepEqual((await reader.getState(thread('copy'))).values.log.at(-1), 'answer:yes')
  t.deepEqual((await collect(reader.getStateHistory(thread('source')))).map(shape), source)

  // A second copy onto a thread with checkpoints is refused, naming it.
  const err = await t.throwsAsync(saver.copyThread('source', 'copy'), { instanceOf: AgentCoreError })
  t.is(err.name, 'InvalidArgument')
  t.regex(err.message, /targetThreadId names thread 'copy', which already has checkpoints/)
  await t.throwsAsync(saver.copyThread('source', ''), { instanceOf: TypeError, message: /targetThreadId must be a non-empty string/ })
})

test('prune keeps the newest checkpoint of each namespace reading exactly as before', async (t) => {
  const s = store(local)
  const config = thread('long')
  const g = graph(s.saver(), 6)
  await g.invoke({ log: ['in'] }, config)
  const before = shape(await graph(s.saver()).getState(config))
  const historyBefore = await collect(g.getStateHistory(config))
  t.true(historyBefore.length >= 8)

  const saver = s.saver()
  const deleted = await saver.prune(['long'], { keepLast: 2 })
  t.true(deleted >= historyBefore.length - 2, `${deleted} events deleted`)
  const reader = graph(s.saver())
  t.deepEqual(shape(await reader.getState(config)), before)
  t.is((await collect(reader.getStateHistory(config))).length, 2)
  t.is(await saver.prune(['long'], { keepLast: 2 }), 0, 'a second run finds nothing to delete')

  // The pruned thread still resumes.
  await reader.invoke(new Command({ resume: 'ok' }), config)
  t.is((await reader.getState(config)).values.log.at(-1), 'answer:ok')

  t.true((await saver.prune(['long'], { strategy: 'delete' })) > 0)
  t.is(await s.saver().getTuple(config), undefined)
  await t.throwsAsync(saver.prune(['long'], { keepLast: 0 }), { instanceOf: RangeError, message: /keepLast must be a positive integer/ })
  await t.throwsAsync(saver.prune('long'), { instanceOf: TypeError, message: /threadIds must be an array of strings/ })
  await t.throwsAsync(saver.prune(['long'], { strategy: 'newest' }), { message: /strategy must be 'keep_latest' or 'delete'/ })
})

test('deleteForRuns: run_id from the config is recorded, listed by filter, and its run deleted', async (t) => {
  const s = store(local)
  const g = graph(s.saver(), 2)
  await g.invoke({ log: ['in'] }, thread('runs', { run_id: 'run-a' }))
  await g.invoke(new Command({ resume: 'first' }), thread('runs', { run_id: 'run-b' }))
  await g.invoke({ log: ['again'] }, thread('runs', { run_id: 'run-c' }))

  const saver = s.saver()
  const byRun = async (runId) => collect(saver.list(thread('runs'), { filter: { run_id: runId } }))
  const runA = await byRun('run-a')
  t.true(runA.length >= 3)
  t.true(runA.every((c) => c.metadata.run_id === 'run-a'))
  const newest = shape(await graph(s.saver(), 2).getState(thread('runs')))

  t.true((await saver.deleteForRuns(['run-a'])) >= runA.length)
  t.deepEqual(await byRun('run-a'), [])
  t.true((await byRun('run-b')).length > 0)
  // The newest checkpoint, of another run, reads exactly as before.
  t.deepEqual(shape(await graph(s.saver(), 2).getState(thread('runs'))), newest)
  t.is(await saver.deleteForRuns(['run-a']), 0)
  await t.throwsAsync(saver.deleteForRuns([42]), { instanceOf: TypeError, message: /runIds\[0\] must be a non-empty string/ })
})

test('shallow mode keeps one checkpoint per thread and namespace, and the graph behaves as with MemorySaver', async (t) => {
  const s = store(local, { shallow: true })
  const config = thread('shallow')
  const g = graph(s.saver(), 8)
  await g.invoke({ log: ['in'] }, config)
  await g.invoke(new Command({ resume: 'done' }), config)

  const reference = graph(new MemorySaver(), 8)
  await reference.invoke({ log: ['in'] }, config)
  await reference.invoke(new Command({ resume: 'done' }), config)

  const reader = graph(s.saver({ shallow: false }), 8)
  const state = await reader.getState(config)
  t.deepEqual(state.values, (await reference.getState(config)).values)
  t.deepEqual(state.next, [])
  t.is((await collect(reader.getStateHistory(config))).length, 1)
})
