// Two savers in two processes write the same thread at once. Neither
// corrupts the other, and a reader polling meanwhile always sees a complete
// newest checkpoint, one that only ever moves forward.
import { fork } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'

import test from 'ava'

import { AgentCoreSaver, startLocalMemory } from '../index.js'

const STEPS = 40

function writer(server, memoryId, name) {
  const child = fork(new URL('./helpers/writer.mjs', import.meta.url), [server.endpoint, memoryId, name, String(STEPS)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  const written = []
  const ready = new Promise((resolve) => child.on('message', (m) => (m.ready ? resolve() : m.id && written.push(m))))
  const exited = once(child, 'exit')
  return { name, child, written, ready, exited }
}

test('two processes writing one thread: both histories intact, the newest always complete', async (t) => {
  t.timeout(120_000)
  const server = await startLocalMemory({ latencyMs: 2 })
  t.teardown(() => server.close())
  const memoryId = `concurrent-${randomBytes(5).toString('hex')}`
  const writers = [writer(server, memoryId, 'w1'), writer(server, memoryId, 'w2')]
  t.teardown(() => writers.forEach((w) => w.child.kill('SIGKILL')))
  await Promise.all(writers.map((w) => w.ready))
  for (const w of writers) w.child.send('go')

  // Poll the newest checkpoint while both write, through one fresh saver per read.
  const seen = []
  let running = true
  Promise.all(writers.map((w) => w.exited)).then(() => (running = false))
  for (let i = 0; running && i < 2000; i++) {
    // Every put acknowledged before this read began must be at or below what it returns.
    const acknowledged = writers.flatMap((w) => w.written.map((c) => c.id)).sort().at(-1) ?? ''
    const reader = new AgentCoreSaver({ memoryId, endpoint: server.endpoint })
    const tuple = await reader.getTuple({ configurable: { thread_id: 'shared' } })
    if (tuple) seen.push({ tuple, acknowledged })
  }
  for (const w of writers) t.deepEqual((await w.exited)[0], 0, `${w.name} exited cleanly`)
  t.true(seen.length > 5, `the reader saw ${seen.length} checkpoints while the writers ran`)

  const byId = new Map(writers.flatMap((w) => w.written.map((c) => [c.id, { ...c, owner: w.name }])))
  let previous = ''
  for (const { tuple, acknowledged } of seen) {
    const id = tuple.checkpoint.id
    t.true(id >= acknowledged, `the newest read (${id}) is at least the newest acknowledged before it (${acknowledged})`)
    const written = byId.get(id)
    t.truthy(written, `the reader saw ${id}, which a writer stored`)
    // Complete: the values and metadata its own writer put, nothing mixed in.
    t.deepEqual(tuple.checkpoint.channel_values, { owner: written.owner, step: written.step })
    t.is(tuple.metadata.writer, written.owner)
    t.is(tuple.parentConfig?.configurable?.checkpoint_id, written.parentId)
    t.true(id >= previous, 'the newest never moves backwards')
    previous = id
  }

  // Every checkpoint of both chains reads back by id, with its own write.
  const reader = new AgentCoreSaver({ memoryId, endpoint: server.endpoint })
  for (const w of writers) {
    t.is(w.written.length, STEPS)
    for (const c of w.written) {
      const tuple = await reader.getTuple({ configurable: { thread_id: 'shared', checkpoint_id: c.id } })
      t.deepEqual(tuple.checkpoint.channel_values, { owner: w.name, step: c.step })
      t.deepEqual(
        tuple.pendingWrites.map(([task, channel, value]) => [task, channel, value]),
        [[`task-${w.name}-${c.step}`, 'step', `${w.name}:${c.step}`]],
      )
    }
  }
  // The two chains really did interleave in time.
  const owners = [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : 1)).map((c) => c.owner)
  t.true(owners.filter((o, i) => i > 0 && o !== owners[i - 1]).length >= 2, `writes of one process, then the other: ${owners.join(' ')}`)
  // The newest of all is the largest id either wrote.
  const newest = await reader.getTuple({ configurable: { thread_id: 'shared' } })
  t.is(newest.checkpoint.id, [...byId.keys()].sort().at(-1))
})
