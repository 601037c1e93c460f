// A node that throws after its siblings in the same superstep wrote: the
// siblings' writes are saved as pending writes, so a retry from a new saver
// runs only the failed node.
import { Annotation, END, START, StateGraph } from '@langchain/langgraph'
import test from 'ava'

import { appended, counters, store, thread, useLocalMemory } from './fixtures/graphs.mjs'

const local = useLocalMemory(test)

const State = Annotation.Root({ log: appended() })

/**
 * START -> a, b, c in parallel -> join. While `broken.c` is 'after-siblings',
 * c waits for a and b to return and then throws; while it is 'now', c throws
 * at once.
 */
function parallel(count, saver, broken) {
  let returned = 0
  let siblingsReturned
  const siblings = new Promise((resolve) => {
    siblingsReturned = resolve
  })
  const sibling = (name) => async () => {
    count.hit(name)
    if (++returned === 2) siblingsReturned()
    return { log: [name] }
  }
  return new StateGraph(State)
    .addNode('a', sibling('a'))
    .addNode('b', sibling('b'))
    .addNode('c', async () => {
      count.hit('c')
      if (broken.c === 'now') throw new Error('c is broken')
      if (broken.c === 'after-siblings') {
        await siblings
        await new Promise((resolve) => setTimeout(resolve, 20))
        throw new Error('c is broken')
      }
      return { log: ['c'] }
    })
    .addNode('join', (s) => {
      count.hit('join')
      return { log: [`join:${[...s.log].sort().join('+')}`] }
    })
    .addEdge(START, 'a')
    .addEdge(START, 'b')
    .addEdge(START, 'c')
    .addEdge(['a', 'b', 'c'], 'join')
    .addEdge('join', END)
    .compile({ checkpointer: saver })
}

const retryAfterFailure = test.macro(async (t, durability) => {
  const s = store(local)
  const config = { ...thread(`retry-${durability ?? 'default'}`), ...(durability ? { durability } : {}) }
  const count = counters()
  const broken = { c: 'after-siblings' }

  await t.throwsAsync(parallel(count, s.saver(), broken).invoke({ log: ['in'] }, config), { message: 'c is broken' })
  t.deepEqual(count.calls, { a: 1, b: 1, c: 1 })

  // A new saver sees the failed superstep: a and b done, c errored.
  const failed = await parallel(counters(), s.saver(), broken).getState(config)
  // getState applies the finished tasks' pending writes (as with MemorySaver).
  t.deepEqual([...failed.values.log].sort(), ['a', 'b', 'in'])
  // Only c is still to run: a's and b's writes are pending on the checkpoint.
  t.deepEqual(failed.next, ['c'])
  const tasks = Object.fromEntries(failed.tasks.map((task) => [task.name, task]))
  t.deepEqual(Object.keys(tasks).sort(), ['a', 'b', 'c'])
  t.deepEqual(tasks.a.result, { log: ['a'] })
  t.deepEqual(tasks.b.result, { log: ['b'] })
  t.is(tasks.a.error, undefined)
  t.is(tasks.c.error?.message, 'c is broken')
  t.is(tasks.c.result, undefined)

  // The fixed graph, from a new saver, runs c alone and then join.
  broken.c = false
  const done = await parallel(count, s.saver(), broken).invoke(null, config)
  t.deepEqual([...done.log].sort(), ['a', 'b', 'c', 'in', 'join:a+b+c+in'])
  t.is(done.log.at(-1), 'join:a+b+c+in')
  t.deepEqual(count.calls, { a: 1, b: 1, c: 2, join: 1 })

  const final = await parallel(counters(), s.saver(), broken).getState(config)
  t.deepEqual(final.next, [])
  t.deepEqual(final.values.log, done.log)
})

test('a retry after a failed parallel node does not re-run its siblings (default durability)', retryAfterFailure, undefined)
test('a retry after a failed parallel node does not re-run its siblings (durability "sync")', retryAfterFailure, 'sync')
test('a retry after a failed parallel node does not re-run its siblings (durability "async")', retryAfterFailure, 'async')

test('a node that keeps failing leaves the thread retryable each time', async (t) => {
  const s = store(local)
  const config = thread('retry-twice')
  const count = counters()
  const broken = { c: 'after-siblings' }
  for (let attempt = 1; attempt <= 3; attempt++) {
    // On retries a and b do not run, so c must not wait for them.
    broken.c = attempt === 1 ? 'after-siblings' : 'now'
    const input = attempt === 1 ? { log: ['in'] } : null
    await t.throwsAsync(parallel(count, s.saver(), broken).invoke(input, config), { message: 'c is broken' })
    t.is(count.of('c'), attempt)
  }
  t.deepEqual(count.calls, { a: 1, b: 1, c: 3 })
  broken.c = false
  const done = await parallel(count, s.saver(), broken).invoke(null, config)
  t.is(done.log.at(-1), 'join:a+b+c+in')
  t.deepEqual(count.calls, { a: 1, b: 1, c: 4, join: 1 })
})
