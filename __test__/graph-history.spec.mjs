// getState, getStateHistory, time travel (invoking from an older
// checkpoint) and updateState forks, each read back through new savers.
import { Annotation, END, START, StateGraph } from '@langchain/langgraph'
import test from 'ava'

import { appended, collect, counters, store, thread, useLocalMemory } from './fixtures/graphs.mjs'

const local = useLocalMemory(test)

const State = Annotation.Root({ log: appended() })

/** a -> b -> c, each appending its name. */
function chain(count, saver) {
  const node = (name) => () => {
    count.hit(name)
    return { log: [name] }
  }
  return new StateGraph(State)
    .addNode('a', node('a'))
    .addNode('b', node('b'))
    .addNode('c', node('c'))
    .addEdge(START, 'a')
    .addEdge('a', 'b')
    .addEdge('b', 'c')
    .addEdge('c', END)
    .compile({ checkpointer: saver })
}

const ids = (snapshots) => snapshots.map((s) => s.config.configurable.checkpoint_id)

test('getState and getStateHistory show every superstep, newest first, through a new saver', async (t) => {
  const s = store(local)
  const config = thread('history')
  const result = await chain(counters(), s.saver()).invoke({ log: ['in'] }, config)
  t.deepEqual(result.log, ['in', 'a', 'b', 'c'])

  const graph = chain(counters(), s.saver())
  const history = await collect(graph.getStateHistory(config))
  t.deepEqual(
    history.map((h) => [h.metadata.step, h.metadata.source, h.next, h.values.log]),
    [
      [3, 'loop', [], ['in', 'a', 'b', 'c']],
      [2, 'loop', ['c'], ['in', 'a', 'b']],
      [1, 'loop', ['b'], ['in', 'a']],
      [0, 'loop', ['a'], ['in']],
      [-1, 'input', ['__start__'], []],
    ],
  )
  // Newest first by id, each one's parent the next one down, the first has none.
  const checkpointIds = ids(history)
  t.deepEqual([...checkpointIds].sort().reverse(), checkpointIds)
  t.is(new Set(checkpointIds).size, 5)
  for (let i = 0; i < history.length - 1; i++) {
    t.is(history[i].parentConfig?.configurable?.checkpoint_id, checkpointIds[i + 1])
  }
  t.is(history.at(-1).parentConfig, undefined)
  for (const h of history) t.is(h.config.configurable.thread_id, 'history')

  const latest = await graph.getState(config)
  t.is(latest.config.configurable.checkpoint_id, checkpointIds[0])
  t.deepEqual(latest.values, history[0].values)
  t.deepEqual(latest.next, [])
  t.deepEqual(latest.metadata, history[0].metadata)
  t.deepEqual(latest.tasks, [])

  // A past checkpoint by id, with the task it was about to run.
  const past = await chain(counters(), s.saver()).getState(history[2].config)
  t.is(past.config.configurable.checkpoint_id, checkpointIds[2])
  t.deepEqual(past.values.log, ['in', 'a'])
  t.deepEqual(past.next, ['b'])
  t.deepEqual(past.tasks.map((task) => task.name), ['b'])
  t.is(past.parentConfig.configurable.checkpoint_id, checkpointIds[3])

  // limit, before and filter go through to the saver's list.
  t.deepEqual(ids(await collect(graph.getStateHistory(config, { limit: 2 }))), checkpointIds.slice(0, 2))
  t.deepEqual(ids(await collect(graph.getStateHistory(config, { before: history[1].config }))), checkpointIds.slice(2))
  t.deepEqual(ids(await collect(graph.getStateHistory(config, { filter: { source: 'input' } }))), [checkpointIds[4]])
  t.deepEqual(ids(await collect(graph.getStateHistory(config, { filter: { step: 1 } }))), [checkpointIds[2]])
})

test('invoking from an older checkpoint re-runs the graph from there and forks the history', async (t) => {
  const s = store(local)
  const config = thread('time-travel')
  const count = counters()
  await chain(count, s.saver()).invoke({ log: ['in'] }, config)
  const before = await collect(chain(count, s.saver()).getStateHistory(config))
  t.is(before.length, 5)
  const atB = before.find((h) => h.next[0] === 'b')
  t.deepEqual(atB.values.log, ['in', 'a'])

  const replayed = await chain(count, s.saver()).invoke(null, atB.config)
  t.deepEqual(replayed.log, ['in', 'a', 'b', 'c'])
  // a's result came from the checkpoint; b and c ran again.
  t.deepEqual(count.calls, { a: 1, b: 2, c: 2 })

  const after = await collect(chain(counters(), s.saver()).getStateHistory(config))
  t.is(after.length, 8)
  // The old branch is still there, untouched.
  for (const old of before) {
    const same = after.find((h) => h.config.configurable.checkpoint_id === old.config.configurable.checkpoint_id)
    t.truthy(same)
    t.deepEqual(same.values, old.values)
    t.deepEqual(same.next, old.next)
  }
  // The new branch: a fork checkpoint hanging off atB, then b's and c's steps.
  const fresh = after.filter((h) => !ids(before).includes(h.config.configurable.checkpoint_id))
  t.deepEqual(
    fresh.map((h) => [h.metadata.source, h.next, h.values.log]),
    [
      ['loop', [], ['in', 'a', 'b', 'c']],
      ['loop', ['c'], ['in', 'a', 'b']],
      ['fork', ['b'], ['in', 'a']],
    ],
  )
  t.is(fresh[2].parentConfig.configurable.checkpoint_id, atB.config.configurable.checkpoint_id)
  t.is(fresh[1].parentConfig.configurable.checkpoint_id, fresh[2].config.configurable.checkpoint_id)
  t.is(fresh[0].parentConfig.configurable.checkpoint_id, fresh[1].config.configurable.checkpoint_id)
  t.true(fresh[2].config.configurable.checkpoint_id > before[0].config.configurable.checkpoint_id)

  // The thread's current state is the end of the new branch.
  const current = await chain(counters(), s.saver()).getState(config)
  t.is(current.config.configurable.checkpoint_id, fresh[0].config.configurable.checkpoint_id)
})

test('updateState forks: the update checkpoint has source "update" and the graph continues from it', async (t) => {
  const s = store(local)
  const config = thread('update-state')
  const count = counters()
  await chain(count, s.saver()).invoke({ log: ['in'] }, config)
  const before = await collect(chain(count, s.saver()).getStateHistory(config))
  const atC = before.find((h) => h.next[0] === 'c')

  // Update an older checkpoint as if node b had written it.
  const updated = await chain(count, s.saver()).updateState(atC.config, { log: ['patched'] }, 'b')
  t.is(updated.configurable.thread_id, 'update-state')
  t.truthy(updated.configurable.checkpoint_id)

  const graph = chain(count, s.saver())
  const state = await graph.getState(config)
  t.is(state.config.configurable.checkpoint_id, updated.configurable.checkpoint_id)
  t.deepEqual(state.values.log, ['in', 'a', 'b', 'patched'])
  t.deepEqual(state.next, ['c'])
  t.is(state.metadata.source, 'update')
  t.is(state.metadata.step, 3)
  t.is(state.parentConfig.configurable.checkpoint_id, atC.config.configurable.checkpoint_id)

  const history = await collect(graph.getStateHistory(config))
  t.is(history.length, before.length + 1)
  t.deepEqual(
    history.filter((h) => h.metadata.source === 'update').map((h) => h.config.configurable.checkpoint_id),
    [updated.configurable.checkpoint_id],
  )
  t.deepEqual(ids(await collect(graph.getStateHistory(config, { filter: { source: 'update' } }))), [
    updated.configurable.checkpoint_id,
  ])

  // Running on: only c runs, on the patched state.
  const done = await chain(count, s.saver()).invoke(null, config)
  t.deepEqual(done.log, ['in', 'a', 'b', 'patched', 'c'])
  t.deepEqual(count.calls, { a: 1, b: 1, c: 2 })

  // Updating the latest (finished) state appends to it.
  await chain(count, s.saver()).updateState(config, { log: ['note'] })
  const last = await chain(count, s.saver()).getState(config)
  t.deepEqual(last.values.log, ['in', 'a', 'b', 'patched', 'c', 'note'])
  t.is(last.metadata.source, 'update')
  t.deepEqual(last.next, [])
})
