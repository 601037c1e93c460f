// Compiled StateGraphs used as nodes: their checkpoints live in their own
// namespaces (`child:<task id>`, nested ones joined with `|`), read back
// with getState(config, { subgraphs: true }) through new savers.
import { Annotation, Command, END, START, StateGraph, interrupt } from '@langchain/langgraph'
import test from 'ava'

import { appended, collect, counters, store, thread, useLocalMemory } from './fixtures/graphs.mjs'

const local = useLocalMemory(test)

const Parent = Annotation.Root({ topic: Annotation(), log: appended(), summary: Annotation() })
const Child = Annotation.Root({ topic: Annotation(), steps: appended(), summary: Annotation() })

/** c1 -> c2 (interrupts) -> c3, which writes the summary the parent sees. */
function childGraph(count) {
  return new StateGraph(Child)
    .addNode('c1', (s) => {
      count.hit('c1')
      return { steps: [`c1(${s.topic})`] }
    })
    .addNode('c2', () => {
      count.hit('c2')
      return { steps: [`c2:${interrupt({ ask: 'in child' })}`] }
    })
    .addNode('c3', (s) => {
      count.hit('c3')
      return { summary: s.steps.join(',') }
    })
    .addEdge(START, 'c1')
    .addEdge('c1', 'c2')
    .addEdge('c2', 'c3')
    .addEdge('c3', END)
    .compile()
}

/** before -> child (a subgraph) -> after */
function parentGraph(count, child, saver) {
  return new StateGraph(Parent)
    .addNode('before', () => {
      count.hit('before')
      return { log: ['before'] }
    })
    .addNode('child', child)
    .addNode('after', (s) => {
      count.hit('after')
      return { log: [`after:${s.summary}`] }
    })
    .addEdge(START, 'before')
    .addEdge('before', 'child')
    .addEdge('child', 'after')
    .addEdge('after', END)
    .compile({ checkpointer: saver })
}

test('a subgraph interrupt is read back with getState({ subgraphs: true }) and resumed through a new saver', async (t) => {
  const s = store(local)
  const config = thread('subgraph')
  const count = counters()
  const paused = await parentGraph(count, childGraph(count), s.saver()).invoke({ topic: 'tea', log: [] }, config)
  t.deepEqual(paused.log, ['before'])
  t.deepEqual(paused.__interrupt__.map((i) => i.value), [{ ask: 'in child' }])

  const graph = parentGraph(count, childGraph(count), s.saver())
  const state = await graph.getState(config, { subgraphs: true })
  t.deepEqual(state.next, ['child'])
  t.deepEqual(state.values, { topic: 'tea', log: ['before'] })
  t.is(state.tasks.length, 1)
  const [task] = state.tasks
  t.is(task.name, 'child')
  t.deepEqual(task.interrupts.map((i) => i.value), [{ ask: 'in child' }])

  // The subgraph's own state, from its own namespace.
  const sub = task.state
  t.truthy(sub?.values, 'subgraphs: true gives the task a StateSnapshot')
  t.deepEqual(sub.values, { topic: 'tea', steps: ['c1(tea)'] })
  t.deepEqual(sub.next, ['c2'])
  t.deepEqual(sub.tasks.map((x) => x.name), ['c2'])
  t.deepEqual(sub.tasks[0].interrupts.map((i) => i.value), [{ ask: 'in child' }])
  const ns = sub.config.configurable.checkpoint_ns
  t.is(ns, `child:${task.id}`)
  t.is(sub.config.configurable.thread_id, 'subgraph')
  t.is(sub.metadata.step, 1)
  t.is(sub.metadata.parents[''], state.config.configurable.checkpoint_id)

  // Without subgraphs: true the task only points at the namespace.
  const shallow = await graph.getState(config)
  t.deepEqual(shallow.tasks[0].state, { configurable: { thread_id: 'subgraph', checkpoint_ns: ns } })

  // The subgraph's history, read by its namespace (a config with a
  // checkpoint_id would list that one checkpoint only).
  t.is((await collect(graph.getStateHistory(sub.config))).length, 1)
  const subHistory = await collect(graph.getStateHistory(thread('subgraph', { checkpoint_ns: ns })))
  t.deepEqual(
    subHistory.map((h) => [h.metadata.step, h.next, h.values.steps ?? []]),
    [
      [1, ['c2'], ['c1(tea)']],
      [0, ['c1'], []],
      [-1, ['__start__'], []],
    ],
  )

  const done = await parentGraph(count, childGraph(count), s.saver()).invoke(new Command({ resume: 'ok' }), config)
  t.deepEqual(done, { topic: 'tea', log: ['before', 'after:c1(tea),c2:ok'], summary: 'c1(tea),c2:ok' })
  t.deepEqual(count.calls, { before: 1, c1: 1, c2: 2, c3: 1, after: 1 })

  const final = await parentGraph(count, childGraph(count), s.saver()).getState(config, { subgraphs: true })
  t.deepEqual(final.next, [])
  t.deepEqual(final.tasks, [])

  // Both namespaces are in the store: list with no namespace sees them all,
  // list with one sees only it.
  const saver = s.saver()
  const all = await collect(saver.list({ configurable: { thread_id: 'subgraph' } }))
  t.deepEqual([...new Set(all.map((x) => x.config.configurable.checkpoint_ns))].sort(), ['', ns])
  const childOnly = await collect(saver.list({ configurable: { thread_id: 'subgraph', checkpoint_ns: ns } }))
  t.deepEqual(childOnly.map((x) => x.metadata.step), [3, 2, 1, 0, -1])
  const rootOnly = await collect(saver.list({ configurable: { thread_id: 'subgraph', checkpoint_ns: '' } }))
  t.deepEqual(rootOnly.map((x) => x.metadata.step), [3, 2, 1, 0, -1])
})

test('a subgraph nested in a subgraph keeps its own state under a `|` namespace', async (t) => {
  const s = store(local)
  const config = thread('nested')
  const count = counters()
  const Middle = Annotation.Root({ topic: Annotation(), summary: Annotation(), mark: appended() })
  const build = () => {
    const middle = new StateGraph(Middle)
      .addNode('m1', () => {
        count.hit('m1')
        return { mark: ['m1'] }
      })
      .addNode('inner', childGraph(count))
      .addEdge(START, 'm1')
      .addEdge('m1', 'inner')
      .addEdge('inner', END)
      .compile()
    return parentGraph(count, middle, s.saver())
  }

  const paused = await build().invoke({ topic: 'rust', log: [] }, config)
  t.deepEqual(paused.__interrupt__.map((i) => i.value), [{ ask: 'in child' }])

  const state = await build().getState(config, { subgraphs: true })
  t.deepEqual(state.next, ['child'])
  const middle = state.tasks[0].state
  t.deepEqual(middle.values, { topic: 'rust', mark: ['m1'] })
  t.deepEqual(middle.next, ['inner'])
  t.is(middle.tasks[0].name, 'inner')
  const inner = middle.tasks[0].state
  t.deepEqual(inner.values, { topic: 'rust', steps: ['c1(rust)'] })
  t.deepEqual(inner.next, ['c2'])
  const ns = inner.config.configurable.checkpoint_ns
  t.is(ns, `${middle.config.configurable.checkpoint_ns}|inner:${middle.tasks[0].id}`)
  t.regex(ns, /^child:[^|]+\|inner:[^|]+$/)

  const done = await build().invoke(new Command({ resume: 'deep' }), config)
  t.is(done.summary, 'c1(rust),c2:deep')
  t.deepEqual(done.log, ['before', 'after:c1(rust),c2:deep'])
  t.deepEqual(count.calls, { before: 1, m1: 1, c1: 1, c2: 2, c3: 1, after: 1 })

  const namespaces = new Set(
    (await collect(s.saver().list({ configurable: { thread_id: 'nested' } }))).map((x) => x.config.configurable.checkpoint_ns),
  )
  t.deepEqual([...namespaces].sort(), ['', middle.config.configurable.checkpoint_ns, ns].sort())
})

test('deleteThread removes every namespace of a thread that ran a subgraph', async (t) => {
  const s = store(local)
  const count = counters()
  await parentGraph(count, childGraph(count), s.saver()).invoke({ topic: 'x', log: [] }, thread('doomed'))
  await parentGraph(count, childGraph(count), s.saver()).invoke({ topic: 'y', log: [] }, thread('kept'))

  const saver = s.saver()
  t.true((await collect(saver.list({ configurable: { thread_id: 'doomed' } }))).length > 0)
  await saver.deleteThread('doomed')

  const fresh = s.saver()
  t.deepEqual(await collect(fresh.list({ configurable: { thread_id: 'doomed' } })), [])
  const state = await parentGraph(count, childGraph(count), fresh).getState(thread('doomed'))
  t.deepEqual(state.values, {})
  const kept = await parentGraph(count, childGraph(count), fresh).getState(thread('kept'), { subgraphs: true })
  t.deepEqual(kept.values.log, ['before'])
  t.deepEqual(kept.tasks[0].state.values.steps, ['c1(y)'])
})
