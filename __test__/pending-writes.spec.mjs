// Under LangGraph's default durability tens of thousands of writes can be
// pending at once. A pending write must not keep its serialized bytes alive
// on the JavaScript side: the native side has its own copy, and bytes held
// for the seconds a write waits reach V8's old space, where they pile up
// until a full collection.
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

import { JsonPlusSerializer, uuid6 } from '@langchain/langgraph-checkpoint'
import test from 'ava'

import { AgentCoreSaver, startLocalMemory } from '../index.js'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc')

const WRITES = 50

/** JsonPlusSerializer, noting a weak reference to every buffer it returns. */
class WatchedSerde extends JsonPlusSerializer {
  constructor() {
    super()
    this.buffers = []
  }

  async dumpsTyped(value) {
    const [type, bytes] = await super.dumpsTyped(value)
    this.buffers.push(new WeakRef(bytes.buffer))
    return [type, bytes]
  }
}

async function collectGarbage() {
  for (let i = 0; i < 5; i++) {
    // WeakRefs are cleared only once the job that read them has ended.
    await new Promise((resolve) => setImmediate(resolve))
    gc()
  }
}

test('pending writes hold no serialized bytes on the JavaScript side, and all land', async (t) => {
  const server = await startLocalMemory({ latencyMs: 1500 })
  t.teardown(() => server.close())
  const serde = new WatchedSerde()
  const saver = new AgentCoreSaver({ memoryId: server.memoryId, endpoint: server.endpoint, serde })
  const config = { configurable: { thread_id: 'pending', checkpoint_ns: '' } }
  const checkpoint = { v: 4, id: uuid6(0), ts: new Date().toISOString(), channel_values: {}, channel_versions: {}, versions_seen: {} }
  const stored = await saver.put(config, checkpoint, { source: 'input', step: -1, parents: {} }, {})
  serde.buffers = []

  let settled = 0
  const writes = Array.from({ length: WRITES }, (_, i) =>
    saver.putWrites(stored, [['messages', { content: `message ${i} `.repeat(500) }]], `task-${i}`).finally(() => settled++),
  )
  // Every write is serialized by now, and none can have landed: each
  // request takes 1.5 s.
  await collectGarbage()
  t.is(serde.buffers.length, WRITES)
  t.is(settled, 0, 'the writes were still pending')
  const alive = serde.buffers.filter((ref) => ref.deref() !== undefined).length
  t.is(alive, 0, `${alive} of ${WRITES} serialized buffers still reachable while their writes wait`)

  await Promise.all(writes)
  const tuple = await saver.getTuple(stored)
  t.is(tuple.pendingWrites.length, WRITES)
  t.is(tuple.pendingWrites.find(([task]) => task === 'task-7')[2].content, 'message 7 '.repeat(500))
})

/** Runs helpers/lone-writes.mjs against `server`; resolves to its output. */
function loneWrites(server) {
  const helper = fileURLToPath(new URL('helpers/lone-writes.mjs', import.meta.url))
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [helper, server.endpoint, server.memoryId], { timeout: 30_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout.trim().split('\n').sort()),
    )
  })
}

test('pending writes alone keep the process alive until they settle, then let it exit', async (t) => {
  const server = await startLocalMemory({ latencyMs: 500 })
  t.teardown(() => server.close())
  t.deepEqual(await loneWrites(server), ['put: landed', 'putWrites: landed'])
  t.is(server.stats().requests.CreateEvent, 2)
})

test('a write that fails rejects its own promise with the service error', async (t) => {
  const server = await startLocalMemory({ latencyMs: 200, throttleRate: 1 })
  t.teardown(() => server.close())
  t.deepEqual(await loneWrites(server), ['put: ThrottledException CreateEvent', 'putWrites: ThrottledException CreateEvent'])
})
