// What AgentCoreSaver does on bad input and on AWS failures: clear errors
// that name what is wrong, nothing stored, no secrets in messages.
import { randomBytes } from 'node:crypto'

import test from 'ava'

import { AgentCoreError, AgentCoreSaver, startLocalMemory } from '../index.js'

const memoryId = () => `errs-${randomBytes(5).toString('hex')}`
const newId = () => `1f1e6dd2-64b0-6${randomBytes(2).toString('hex').slice(1)}-8000-${randomBytes(6).toString('hex')}`
const checkpoint = (values = {}) => ({
  v: 4,
  id: newId(),
  ts: new Date().toISOString(),
  channel_values: values,
  channel_versions: Object.fromEntries(Object.keys(values).map((k) => [k, 1])),
  versions_seen: {},
})
const metadata = { source: 'input', step: -1, parents: {} }
const config = (thread) => ({ configurable: { thread_id: thread } })

async function withServer(options, work) {
  const server = await startLocalMemory(options)
  try {
    return await work(server)
  } finally {
    await server.close()
  }
}

test('throttling is retried, then surfaces with the service error name, status and operation', async (t) => {
  await withServer({ throttleRate: 1 }, async (server) => {
    const saver = new AgentCoreSaver({ memoryId: memoryId(), endpoint: server.endpoint, maxAttempts: 3 })
    const err = await t.throwsAsync(saver.put(config('t'), checkpoint(), metadata, {}), { instanceOf: AgentCoreError })
    t.is(err.name, 'ThrottledException')
    t.is(err.status, 429)
    t.is(err.operation, 'CreateEvent')
    t.regex(err.message, /CreateEvent failed: ThrottledException \(HTTP 429\)/)
    t.is(server.stats().requests.CreateEvent, 3, 'maxAttempts attempts, no more')
  })
})

test('server errors are retried and reported', async (t) => {
  await withServer({ errorRate: 1 }, async (server) => {
    const saver = new AgentCoreSaver({ memoryId: memoryId(), endpoint: server.endpoint, maxAttempts: 2 })
    const err = await t.throwsAsync(saver.getTuple(config('t')))
    t.like(err, { name: 'ServiceException', status: 500, operation: 'ListEvents' })
    t.is(server.stats().requests.ListEvents, 2)
  })
})

test('a server that cannot be reached is a NetworkError naming the operation', async (t) => {
  const saver = new AgentCoreSaver({ memoryId: memoryId(), endpoint: 'http://127.0.0.1:1', maxAttempts: 1 })
  const err = await t.throwsAsync(saver.getTuple(config('t')))
  t.like(err, { name: 'NetworkError', operation: 'ListEvents' })
})

test('errors carry neither credentials nor payload contents', async (t) => {
  await withServer({ throttleRate: 1 }, async (server) => {
    const credentials = { accessKeyId: 'AKIASECRETKEYID00001', secretAccessKey: 'very-secret-access-key', sessionToken: 'secret-session-token' }
    const saver = new AgentCoreSaver({ memoryId: memoryId(), endpoint: server.endpoint, credentials, maxAttempts: 1 })
    const err = await t.throwsAsync(saver.put(config('t'), checkpoint({ note: 'TOP-SECRET-PAYLOAD' }), metadata, { note: 1 }))
    const text = `${err.message} ${err.stack} ${JSON.stringify(err)}`
    for (const secret of [...Object.values(credentials), 'TOP-SECRET-PAYLOAD']) t.false(text.includes(secret), secret)
  })
})

test('a missing or non-string thread_id is refused naming the field, and nothing is stored', async (t) => {
  await withServer({}, async (server) => {
    const saver = new AgentCoreSaver({ memoryId: memoryId(), endpoint: server.endpoint })
    t.regex((await t.throwsAsync(saver.put({}, checkpoint(), metadata, {}))).message, /configurable is required/)
    for (const thread of [undefined, '', 42, { id: 1 }]) {
      const err = await t.throwsAsync(saver.put({ configurable: { thread_id: thread } }, checkpoint(), metadata, {}), { instanceOf: TypeError })
      t.regex(err.message, /thread_id must be a non-empty string/)
    }
    const err = await t.throwsAsync(saver.putWrites({ configurable: { thread_id: 't' } }, [['a', 1]], 'task'))
    t.regex(err.message, /checkpoint_id is required/)
    t.is(server.stats().requests.CreateEvent, 0)
  })
})

test('a value the serializer refuses surfaces unchanged, and nothing is stored', async (t) => {
  await withServer({}, async (server) => {
    const refusal = new Error('cannot encode this value')
    const serde = {
      dumpsTyped: async (value) => {
        if (value === 'unencodable') throw refusal
        return ['json', new TextEncoder().encode(JSON.stringify(value))]
      },
      loadsTyped: async (_type, bytes) => JSON.parse(new TextDecoder().decode(bytes)),
    }
    const saver = new AgentCoreSaver({ memoryId: memoryId(), endpoint: server.endpoint, serde })
    const err = await t.throwsAsync(saver.put(config('t'), checkpoint({ a: 'unencodable' }), metadata, { a: 1 }))
    t.is(err, refusal)
    t.is(server.stats().requests.CreateEvent, 0)
    t.is(await saver.getTuple(config('t')), undefined)
  })
})

test('an unknown thread reads as undefined, and a config without thread_id too', async (t) => {
  await withServer({}, async (server) => {
    const saver = new AgentCoreSaver({ memoryId: memoryId(), endpoint: server.endpoint })
    t.is(await saver.getTuple(config('never-written')), undefined)
    t.is(await saver.getTuple({ configurable: {} }), undefined)
  })
})

test('list refuses a bad limit, before or filter', async (t) => {
  await withServer({}, async (server) => {
    const saver = new AgentCoreSaver({ memoryId: memoryId(), endpoint: server.endpoint })
    const drain = async (options) => {
      for await (const _ of saver.list(config('t'), options));
    }
    t.regex((await t.throwsAsync(drain({ limit: 0 }), { instanceOf: RangeError })).message, /limit must be a positive integer/)
    t.regex((await t.throwsAsync(drain({ limit: -2 }))).message, /limit/)
    t.regex((await t.throwsAsync(drain({ filter: { source: { nested: true } } }))).message, /filter\.source must be a string, number, boolean or null/)
    t.regex((await t.throwsAsync(drain({ before: {} }))).message, /before must be a config/)
  })
})

test('a bytes value comes back as a plain Uint8Array, as from MemorySaver', async (t) => {
  await withServer({}, async (server) => {
    const saver = new AgentCoreSaver({ memoryId: memoryId(), endpoint: server.endpoint })
    const stored = checkpoint({ raw: new Uint8Array([1, 2, 255]) })
    await saver.put(config('bytes'), stored, metadata, { raw: 1 })
    const raw = (await saver.getTuple(config('bytes')))?.checkpoint.channel_values.raw
    t.is(Object.getPrototypeOf(raw), Uint8Array.prototype)
    t.deepEqual([...raw], [1, 2, 255])
  })
})
