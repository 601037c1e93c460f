// Thread ids AgentCore cannot take as they are (unicode, `:`, `|`, spaces,
// 1,000 characters) work end to end, and threads whose ids differ only in
// such characters never see each other's state.
import { Annotation, Command, END, START, StateGraph, interrupt } from '@langchain/langgraph'
import test from 'ava'

import { appended, collect, counters, store, thread, useLocalMemory } from './fixtures/graphs.mjs'

const local = useLocalMemory(test)

const State = Annotation.Root({ owner: Annotation(), log: appended() })

/** mark (records the thread id it ran under) -> ask (interrupts) -> END */
function ownedGraph(count, saver) {
  return new StateGraph(State)
    .addNode('mark', (s, config) => {
      count.hit('mark')
      return { owner: config.configurable.thread_id, log: [`mark:${s.log[0]}`] }
    })
    .addNode('ask', () => {
      count.hit('ask')
      return { log: [`answer:${interrupt('?')}`] }
    })
    .addEdge(START, 'mark')
    .addEdge('mark', 'ask')
    .addEdge('ask', END)
    .compile({ checkpointer: saver })
}

const long = (tail) => 'x'.repeat(1000 - tail.length) + tail

const ODD_IDS = [
  'ünïcødé-スレッド-🧵',
  'user:42:session:7',
  'a|b|c',
  'tenant:acme|user:ünï|thread:1',
  'with space\tand\nnewline',
  'h_0123456789abcdef0123456789abcdef',
  long(''),
  long('é:|🧵'),
]

test('thread ids with unicode, `:`, `|` and 1,000 characters work end to end', async (t) => {
  const s = store(local)
  for (const id of ODD_IDS) {
    const config = thread(id)
    const count = counters()
    const paused = await ownedGraph(count, s.saver()).invoke({ log: [`in(${id})`] }, config)
    t.is(paused.owner, id)
    t.is(paused.__interrupt__.length, 1)

    const graph = ownedGraph(count, s.saver())
    const waiting = await graph.getState(config)
    t.is(waiting.config.configurable.thread_id, id)
    t.deepEqual(waiting.next, ['ask'])

    const done = await graph.invoke(new Command({ resume: id.length }), config)
    t.deepEqual(done.log, [`in(${id})`, `mark:in(${id})`, `answer:${id.length}`])
    t.deepEqual(count.calls, { mark: 1, ask: 2 })

    const history = await collect(ownedGraph(counters(), s.saver()).getStateHistory(config))
    t.deepEqual(
      history.map((h) => h.metadata.step),
      [2, 1, 0, -1],
    )
    for (const h of history) t.is(h.config.configurable.thread_id, id)
    const tuple = await s.saver().getTuple(config)
    t.is(tuple.config.configurable.thread_id, id)
    t.is(tuple.checkpoint.channel_values.owner, id)
  }
})

const LOOKALIKES = [
  ['a:b', 'a|b', 'a_b', 'a-b', 'ab', 'a b', 'a::b', 'a:b:'],
  ['caf\u00e9', 'cafe\u0301', 'cafe', 'CAF\u00c9'],
  ['Thread-A', 'thread-a', 'THREAD-A'],
  [long(':'), long('|'), long('_'), long('-'), long('x').slice(1)],
  ['x'.repeat(64), 'x'.repeat(65), 'x'.repeat(63), 'x'.repeat(100), 'x'.repeat(101)],
  ['🧵', '🪡', '\u{1F9F5}\u200d'],
]

test('threads whose ids differ only in such characters never see each other', async (t) => {
  const s = store(local)
  const ids = LOOKALIKES.flat()
  t.is(new Set(ids).size, ids.length, 'the ids are distinct strings')

  // Each thread runs once, up to its interrupt, with its own marker.
  for (const [i, id] of ids.entries()) {
    await ownedGraph(counters(), s.saver()).invoke({ log: [`#${i}`] }, thread(id))
  }

  const saver = s.saver()
  const seenCheckpoints = new Set()
  for (const [i, id] of ids.entries()) {
    const graph = ownedGraph(counters(), saver)
    const state = await graph.getState(thread(id))
    t.is(state.values.owner, id, `owner of ${JSON.stringify(id)}`)
    t.deepEqual(state.values.log, [`#${i}`, `mark:#${i}`])
    const history = await collect(graph.getStateHistory(thread(id)))
    t.is(history.length, 3, `history of ${JSON.stringify(id)}`)
    for (const h of history) {
      t.is(h.config.configurable.thread_id, id)
      t.false(seenCheckpoints.has(h.config.configurable.checkpoint_id))
      seenCheckpoints.add(h.config.configurable.checkpoint_id)
    }
  }

  // Listing every thread gives each checkpoint once, under its own thread.
  const all = await collect(saver.list({}))
  t.is(all.length, ids.length * 3)
  for (const tuple of all) {
    const id = tuple.config.configurable.thread_id
    t.true(ids.includes(id))
    t.is(tuple.checkpoint.channel_values.owner ?? id, id)
  }

  // Resuming one thread and deleting another leave their lookalikes alone.
  const [resumed, deleted, ...others] = LOOKALIKES[0]
  await ownedGraph(counters(), s.saver()).invoke(new Command({ resume: 'only me' }), thread(resumed))
  await s.saver().deleteThread(deleted)
  const fresh = s.saver()
  t.deepEqual((await ownedGraph(counters(), fresh).getState(thread(resumed))).values.log.at(-1), 'answer:only me')
  t.deepEqual(await collect(fresh.list(thread(deleted))), [])
  t.deepEqual((await ownedGraph(counters(), fresh).getState(thread(deleted))).values, {})
  for (const id of others) {
    const state = await ownedGraph(counters(), fresh).getState(thread(id))
    t.is(state.values.owner, id)
    t.deepEqual(state.next, ['ask'])
    t.is((await collect(fresh.list(thread(id)))).length, 3)
  }
})

test('actors whose ids differ only in such characters keep separate copies of one thread id', async (t) => {
  const s = store(local)
  const actors = ['user:1', 'user|1', 'user_1', 'üser:1', long('a:')]
  for (const [i, actor] of actors.entries()) {
    await ownedGraph(counters(), s.saver()).invoke({ log: [`actor#${i}`] }, thread('shared', { actor_id: actor }))
  }
  // The default actor's copy of the thread is yet another one.
  await ownedGraph(counters(), s.saver()).invoke({ log: ['default'] }, thread('shared'))

  const fresh = s.saver()
  for (const [i, actor] of actors.entries()) {
    const state = await ownedGraph(counters(), fresh).getState(thread('shared', { actor_id: actor }))
    t.deepEqual(state.values.log, [`actor#${i}`, `mark:actor#${i}`])
    t.is(state.config.configurable.actor_id, actor)
  }
  const plain = await ownedGraph(counters(), fresh).getState(thread('shared'))
  t.deepEqual(plain.values.log, ['default', 'mark:default'])
  t.is(plain.config.configurable.actor_id, undefined)
})
