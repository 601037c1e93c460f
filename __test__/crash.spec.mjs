// Killing the Node process half-way through a large, split put leaves the
// thread readable at its previous checkpoint with nothing visible of the
// half-written one.
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { randomBytes } from 'node:crypto'

import test from 'ava'

import { AgentCoreSaver, startLocalMemory } from '../index.js'

test('a put killed midway leaves the previous checkpoint and no visible garbage', async (t) => {
  t.timeout(60_000)
  // Latency, so the child is still sending parts when it is killed.
  const server = await startLocalMemory({ latencyMs: 25 })
  t.teardown(() => server.close())
  const memoryId = `crash-${randomBytes(5).toString('hex')}`
  const child = fork(new URL('./helpers/large-put.mjs', import.meta.url), [server.endpoint, memoryId, '40'], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  t.teardown(() => child.kill('SIGKILL'))
  const [{ stored }] = await once(child, 'message')
  const before = server.stats().requests.CreateEvent
  // 40 MiB at 256 KiB a part is some 170 parts; kill after 20.
  for (let i = 0; i < 600 && server.stats().requests.CreateEvent < before + 20; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  t.true(server.stats().requests.CreateEvent >= before + 20, 'the large put was under way')
  child.kill('SIGKILL')
  await once(child, 'exit')

  const warnings = []
  const saver = new AgentCoreSaver({ memoryId, endpoint: server.endpoint, logger: { warn: (m) => warnings.push(m) } })
  const config = { configurable: { thread_id: 'crash' } }
  const tuple = await saver.getTuple(config)
  t.is(tuple.checkpoint.id, stored)
  t.is(tuple.checkpoint.channel_values.state, 'small')
  const listed = []
  for await (const c of saver.list(config)) listed.push(c.checkpoint.id)
  t.deepEqual(listed, [stored])
  t.is(await saver.getTuple({ configurable: { thread_id: 'crash', checkpoint_id: '1f1e6e60-0000-6000-8000-000000000002' } }), undefined)
  t.deepEqual(warnings, [], 'the orphan parts are not even reported')

  // deleteThread takes the orphan parts with the rest.
  await saver.deleteThread('crash')
  t.is(await saver.getTuple(config), undefined)
})
