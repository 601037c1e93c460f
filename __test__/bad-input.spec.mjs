// Bad input and hostile surroundings: ids of the wrong type, foreign events
// in the saver's sessions, servers that answer garbage or nothing at all.
// Each gets a clear error (or a warning, for foreign events), never a hang,
// a crash or a half-written thread.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { createServer } from 'node:http'
import { connect, createServer as createTcpServer } from 'node:net'
import { setTimeout as delay } from 'node:timers/promises'

import { BedrockAgentCoreClient, CreateEventCommand } from '@aws-sdk/client-bedrock-agentcore'
import test from 'ava'

import { AgentCoreError, AgentCoreSaver, startLocalMemory } from '../index.js'

const memoryId = () => `bad-${randomBytes(5).toString('hex')}`
const id = () => `1f1e6e90-0000-6${randomBytes(2).toString('hex').slice(1)}-8000-${randomBytes(6).toString('hex')}`
const checkpoint = (values = { a: 1 }) => ({
  v: 4,
  id: id(),
  ts: new Date().toISOString(),
  channel_values: values,
  channel_versions: Object.fromEntries(Object.keys(values).map((k) => [k, 1])),
  versions_seen: {},
})
const metadata = { source: 'input', step: -1, parents: {} }

let server
test.before(async () => {
  server = await startLocalMemory()
})
test.after.always(() => server?.close())

test('ids that are not strings are refused naming the field, and nothing is stored', async (t) => {
  // A server of its own: the other tests of this file write concurrently.
  const own = await startLocalMemory()
  t.teardown(() => own.close())
  const saver = new AgentCoreSaver({ memoryId: memoryId(), endpoint: own.endpoint })
  const cases = [
    [{ thread_id: 't', checkpoint_ns: 7 }, /checkpoint_ns must be a string/],
    [{ thread_id: 't', actor_id: 42 }, /actor_id must be a non-empty string/],
    [{ thread_id: 't', actor_id: '' }, /actor_id must be a non-empty string/],
    [{ thread_id: ['t'] }, /thread_id must be a non-empty string/],
  ]
  for (const [configurable, message] of cases) {
    const what = JSON.stringify(configurable)
    await t.throwsAsync(saver.put({ configurable }, checkpoint(), metadata, { a: 1 }), { instanceOf: TypeError, message }, `put ${what}`)
    await t.throwsAsync(saver.getTuple({ configurable }), { instanceOf: TypeError, message }, `getTuple ${what}`)
  }
  await t.throwsAsync(saver.putWrites({ configurable: { thread_id: 't', checkpoint_id: 5 } }, [['a', 1]], 'task'), {
    message: /checkpoint_id is required and must be a non-empty string, got number/,
  })
  await t.throwsAsync(saver.putWrites({ configurable: { thread_id: 't', checkpoint_id: id() } }, [['a', 1]], 7), {
    instanceOf: TypeError,
    message: /taskId must be a non-empty string, got number/,
  })
  await t.throwsAsync(saver.getTuple({ configurable: { thread_id: 't', checkpoint_id: {} } }), {
    instanceOf: TypeError,
    message: /checkpoint_id must be a string, got object/,
  })
  for (const key of ['thread_id', 'checkpoint_ns', 'checkpoint_id', 'actor_id']) {
    const listing = async () => {
      for await (const _ of saver.list({ configurable: { thread_id: 't', [key]: 5 } }));
    }
    await t.throwsAsync(listing, { instanceOf: TypeError, message: new RegExp(`list: config.configurable.${key} must be a string, got number`) })
  }
  await t.throwsAsync(saver.deleteThread(5), { instanceOf: TypeError, message: /threadId must be a non-empty string, got number/ })
  t.is(own.stats().requests.CreateEvent, 0)
  t.is(own.stats().requests.DeleteEvent, 0)
})

test('put and putWrites refuse a checkpoint id or writes of the wrong type naming them, and store nothing', async (t) => {
  const own = await startLocalMemory()
  t.teardown(() => own.close())
  const saver = new AgentCoreSaver({ memoryId: memoryId(), endpoint: own.endpoint })
  const config = { configurable: { thread_id: 't' } }
  for (const bad of [5, undefined, '', null]) {
    await t.throwsAsync(saver.put(config, { ...checkpoint(), id: bad }, metadata, { a: 1 }), {
      instanceOf: TypeError,
      message: /^AgentCoreSaver\.put: checkpoint\.id must be a non-empty string/,
    }, `checkpoint.id ${String(bad)}`)
  }
  await t.throwsAsync(saver.put({ configurable: { thread_id: 't', checkpoint_id: 7 } }, checkpoint(), metadata, { a: 1 }), {
    instanceOf: TypeError,
    message: /^AgentCoreSaver\.put: config\.configurable\.checkpoint_id must be a string, got number/,
  })
  const target = { configurable: { thread_id: 't', checkpoint_id: id() } }
  await t.throwsAsync(saver.putWrites(target, 'not writes', 'task'), {
    instanceOf: TypeError,
    message: /^AgentCoreSaver\.putWrites: writes must be an array/,
  })
  await t.throwsAsync(saver.putWrites(target, [['a', 1], [2, 'b']], 'task'), {
    instanceOf: TypeError,
    message: /^AgentCoreSaver\.putWrites: writes\[1\] must be a \[channel, value\] pair/,
  })
  t.is(own.stats().requests.CreateEvent, 0)
})

test('a serializer that refuses a pending write or the metadata: its error surfaces unchanged, and nothing is stored', async (t) => {
  const own = await startLocalMemory()
  t.teardown(() => own.close())
  const refusal = new RangeError('this serializer refuses that value')
  const refuses = (value) => value === 'unencodable' || value?.refuse === true
  const serde = {
    dumpsTyped: async (value) => {
      if (refuses(value)) throw refusal
      return ['json', new TextEncoder().encode(JSON.stringify(value))]
    },
    loadsTyped: async (_type, bytes) => JSON.parse(new TextDecoder().decode(bytes)),
  }
  const saver = new AgentCoreSaver({ memoryId: memoryId(), endpoint: own.endpoint, serde })
  const config = { configurable: { thread_id: 't' } }
  t.is(await t.throwsAsync(saver.put(config, checkpoint(), { ...metadata, refuse: true }, { a: 1 })), refusal)
  t.is(await t.throwsAsync(saver.putWrites({ configurable: { thread_id: 't', checkpoint_id: id() } }, [['a', 1], ['b', 'unencodable']], 'task')), refusal)
  t.is(own.stats().requests.CreateEvent, 0)
})

test('an invalid actorId is refused at construction, naming the option', (t) => {
  const err = t.throws(() => new AgentCoreSaver({ memoryId: memoryId(), endpoint: server.endpoint, actorId: '' }))
  t.regex(err.message, /actorId/)
  t.throws(() => new AgentCoreSaver({ memoryId: memoryId(), actorId: 7 }), { message: /option 'actorId' must be a string/ })
})

test('list refuses a fractional limit, a before without a checkpoint id, and filter values that are not primitives', async (t) => {
  const saver = new AgentCoreSaver({ memoryId: memoryId(), endpoint: server.endpoint })
  const drain = async (options) => {
    for await (const _ of saver.list({ configurable: { thread_id: 't' } }, options));
  }
  await t.throwsAsync(drain({ limit: 1.5 }), { instanceOf: RangeError, message: /limit must be a positive integer/ })
  await t.throwsAsync(drain({ limit: Number.NaN }), { instanceOf: RangeError, message: /limit must be a positive integer/ })
  await t.throwsAsync(drain({ before: { configurable: { checkpoint_id: '' } } }), { message: /before must be a config with configurable.checkpoint_id/ })
  await t.throwsAsync(drain({ filter: { tags: ['a'] } }), { instanceOf: TypeError, message: /filter\.tags must be a string, number, boolean or null, got an array/ })
  await t.throwsAsync(drain({ filter: { step: Number.NaN } }), { instanceOf: TypeError, message: /filter\.step must be/ })
  await t.throwsAsync(drain({ filter: null }), { instanceOf: TypeError, message: /filter must be an object, got null/ })
})

test('list with a before naming a checkpoint the thread does not have rejects, naming before and the id only', async (t) => {
  const saver = new AgentCoreSaver({ memoryId: memoryId(), endpoint: server.endpoint })
  const config = { configurable: { thread_id: 'before-unknown' } }
  const ids = ['1f1e6e90-0000-6000-8000-000000000001', '1f1e6e90-0000-6000-8000-000000000002']
  const first = await saver.put(config, { ...checkpoint({ a: 'BEFORE-PAYLOAD-SECRET' }), id: ids[0] }, metadata, { a: 1 })
  await saver.put(first, { ...checkpoint({ a: 'BEFORE-PAYLOAD-SECRET-2' }), id: ids[1] }, metadata, { a: 1 })
  // A well-formed id that no put wrote: an empty result would hide the
  // caller's mistake (a stale or foreign config) behind "no history".
  const unknown = id()
  const drain = async () => {
    const out = []
    for await (const c of saver.list(config, { before: { configurable: { checkpoint_id: unknown } } })) out.push(c)
    return out
  }
  const err = await t.throwsAsync(drain)
  t.regex(err?.message ?? '', /before/)
  t.true((err?.message ?? '').includes(unknown), 'the message names the missing id')
  t.false(`${err?.message} ${err?.stack}`.includes('BEFORE-PAYLOAD-SECRET'), 'and no payload')
  // A known id still pages as before.
  const below = []
  for await (const c of saver.list(config, { before: { configurable: { checkpoint_id: ids[1] } } })) {
    below.push(c.checkpoint.id)
  }
  t.deepEqual(below, [ids[0]])
})

test('foreign events in a thread are skipped with one warning each, and reads still work', async (t) => {
  const memory = memoryId()
  const warnings = []
  const logger = { warn: (message) => warnings.push(message) }
  const saver = new AgentCoreSaver({ memoryId: memory, endpoint: server.endpoint, logger })
  const config = { configurable: { thread_id: 'mixed' } }
  const stored = await saver.put(config, checkpoint({ a: 'ours' }), metadata, { a: 1 })

  // Someone else's events in the same session: a conversation, a record in
  // the Python saver's shape, a truncated blob, and a blob that is no object.
  const sdk = new BedrockAgentCoreClient({
    endpoint: server.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
  })
  const foreign = [
    { conversational: { content: { text: 'SECRET-CHAT-TEXT' }, role: 'USER' } },
    { blob: { checkpoint: { id: 'python', channel_values: { secret: 'SECRET-PY' } }, type: 'checkpoint' } },
    { blob: { lgc: 1, enc: 'msgpack', data: 'gqF' } },
    { blob: 'just a string' },
  ].map((item) => ({ payload: [item] }))
  // Events that carry this saver's own `langgraph` marker but whose blob is
  // truncated, corrupt or from a future version: the decoder's paths.
  const marked = (kind, blob) => ({ payload: [{ blob }], metadata: { langgraph: { stringValue: kind } } })
  foreign.push(
    marked('checkpoint', { lgc: 1, enc: 'msgpack', data: 'gqF' }),
    marked('writes', { lgc: 1, enc: 'msgpack', data: Buffer.from('SECRET-NOT-MSGPACK').toString('base64') }),
    marked('checkpoint', { lgc: 1, enc: 'msgpack+zstd', data: Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 1, 2, 3]).toString('base64') }),
    marked('checkpoint', { lgc: 99, enc: 'from-the-future', data: '' }),
    marked('writes', 'SECRET-STRING-BLOB'),
  )
  for (const event of foreign) {
    await sdk.send(new CreateEventCommand({ memoryId: memory, actorId: 'langgraph', sessionId: 'mixed', eventTimestamp: new Date(), ...event }))
  }
  // A part no head names, as a put killed half-way leaves: invisible, and
  // not warned about (it is this saver's own, and deleted with the thread).
  await sdk.send(
    new CreateEventCommand({ memoryId: memory, actorId: 'langgraph', sessionId: 'mixed', eventTimestamp: new Date(), ...marked('part', { lgc: 1, key: 'k', part: 0, data: 'AAAA' }) }),
  )
  for (let i = 0; i < 2; i++) {
    const tuple = await saver.getTuple(config)
    t.is(tuple.checkpoint.id, stored.configurable.checkpoint_id)
    t.is(tuple.checkpoint.channel_values.a, 'ours')
    const listed = []
    for await (const c of saver.list(config)) listed.push(c.checkpoint.id)
    t.deepEqual(listed, [stored.configurable.checkpoint_id])
  }
  t.is(warnings.length, foreign.length, 'one warning per foreign event, however often it is read')
  t.is(new Set(warnings).size, warnings.length)
  for (const w of warnings) t.regex(w, /skipped event \S+ in session mixed: /)
  t.is(warnings.filter((w) => w.includes('cannot be decoded')).length, 4)
  t.false(warnings.join('\n').includes('SECRET'), 'warnings carry no payload contents')
})

/** A plain HTTP server on loopback that answers every request with `reply`. */
async function hostile(reply) {
  const http = createServer((req, res) => {
    req.resume()
    req.on('end', () => reply(res))
  })
  http.listen(0, '127.0.0.1')
  await once(http, 'listening')
  return { endpoint: `http://127.0.0.1:${http.address().port}`, close: () => new Promise((r) => http.close(r)) }
}

const answers = {
  'malformed JSON': (res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end('{"events": [ {"eventId": ')
  },
  'an HTML page with status 200': (res) => {
    res.writeHead(200, { 'content-type': 'text/html' })
    res.end('<html><body>captive portal</body></html>')
  },
  'status 418': (res) => {
    res.writeHead(418, { 'content-type': 'text/plain' })
    res.end("I'm a teapot")
  },
  'a redirect': (res) => {
    res.writeHead(302, { location: 'http://127.0.0.1:1/' })
    res.end()
  },
  'a 503 with no body': (res) => {
    res.writeHead(503)
    res.end()
  },
}

for (const [what, reply] of Object.entries(answers)) {
  test(`a server that answers ${what} gives an AgentCoreError naming the operation`, async (t) => {
    const bad = await hostile(reply)
    t.teardown(bad.close)
    const saver = new AgentCoreSaver({ memoryId: memoryId(), endpoint: bad.endpoint, maxAttempts: 2 })
    const config = { configurable: { thread_id: 't' } }
    const read = await t.throwsAsync(saver.getTuple(config), { instanceOf: AgentCoreError })
    t.is(read.operation, 'ListEvents')
    t.truthy(read.name)
    const write = await t.throwsAsync(saver.put(config, checkpoint({ a: 'PAYLOAD-SECRET' }), metadata, { a: 1 }), {
      instanceOf: AgentCoreError,
    })
    t.is(write.operation, 'CreateEvent')
    t.false(`${write.message} ${write.stack}`.includes('PAYLOAD-SECRET'))
  })
}

/** A TCP server on loopback that accepts connections and never answers; closed with the test. */
async function silentServer(t) {
  const sockets = new Set()
  const silent = createTcpServer((socket) => sockets.add(socket))
  silent.listen(0, '127.0.0.1')
  await once(silent, 'listening')
  t.teardown(() => {
    for (const s of sockets) s.destroy()
    silent.close()
  })
  return `http://127.0.0.1:${silent.address().port}`
}

test('a server that accepts and never answers yields a TimeoutError after the per-attempt timeouts, not a hung agent', async (t) => {
  t.timeout(30_000, 'the saver hung')
  const endpoint = await silentServer(t)
  const saver = new AgentCoreSaver({
    memoryId: memoryId(),
    endpoint,
    maxAttempts: 2,
    requestTimeoutMs: 300,
    operationTimeoutMs: 2000,
  })
  const config = { configurable: { thread_id: 't' } }
  const read = await t.throwsAsync(saver.getTuple(config), { instanceOf: AgentCoreError })
  t.is(read.name, 'TimeoutError')
  t.is(read.operation, 'ListEvents')
  const write = await t.throwsAsync(saver.put(config, checkpoint(), metadata, { a: 1 }), { instanceOf: AgentCoreError })
  t.is(write.name, 'TimeoutError')
})

test('a server that accepts and never answers is bounded by the operation timeout alone', async (t) => {
  t.timeout(30_000, 'the saver hung')
  const endpoint = await silentServer(t)
  // Attempts that would each wait a minute: only operationTimeoutMs can end this.
  const saver = new AgentCoreSaver({
    memoryId: memoryId(),
    endpoint,
    maxAttempts: 10,
    requestTimeoutMs: 60_000,
    operationTimeoutMs: 1000,
  })
  const config = { configurable: { thread_id: 't' } }
  t.like(await t.throwsAsync(saver.getTuple(config), { instanceOf: AgentCoreError }), { name: 'TimeoutError', operation: 'ListEvents' })
  t.like(await t.throwsAsync(saver.put(config, checkpoint(), metadata, { a: 1 }), { instanceOf: AgentCoreError }), {
    name: 'TimeoutError',
    operation: 'CreateEvent',
  })
})

/**
 * A loopback port whose listener never accepts and whose accept queue is
 * full, so the kernel drops further SYNs and a connect hangs. Node accepts
 * as soon as its event loop runs, so the listener lives in a child process
 * whose event loop is blocked right after listening (backlog 1); the
 * connections opened here fill the queue.
 */
async function unacceptingPort(t) {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const server = require('node:net').createServer().listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
        require('node:fs').writeSync(1, server.address().port + '\\n')
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 120000)
      })`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  const fillers = []
  t.teardown(() => {
    for (const s of fillers) s.destroy()
    child.kill('SIGKILL')
  })
  const port = Number(String((await once(child.stdout, 'data'))[0]).trim())
  // Open connections until one stays unanswered: the queue is then full.
  for (let i = 0; i < 16; i++) {
    const socket = connect({ port, host: '127.0.0.1' })
    socket.on('error', () => {})
    fillers.push(socket)
    const connected = await Promise.race([once(socket, 'connect').then(() => true), delay(500).then(() => false)])
    if (!connected) return port
  }
  throw new Error('the accept queue never filled')
}

// Windows answers a connection to a full accept queue with a reset instead
// of dropping it, so no loopback listener there makes a connect hang: the
// case is skipped on Windows (and reported as skipped), not faked.
const onDroppingStack = process.platform === 'win32' ? test.skip : test

onDroppingStack('a server that never accepts the connection yields a TimeoutError within the connect timeout', async (t) => {
  t.timeout(30_000, 'the saver hung')
  const port = await unacceptingPort(t)
  // Only connectTimeoutMs is short: the request and operation timeouts would wait a minute.
  const saver = new AgentCoreSaver({
    memoryId: memoryId(),
    endpoint: `http://127.0.0.1:${port}`,
    maxAttempts: 2,
    connectTimeoutMs: 300,
    requestTimeoutMs: 60_000,
    operationTimeoutMs: 60_000,
  })
  const config = { configurable: { thread_id: 't' } }
  const read = await t.throwsAsync(saver.getTuple(config), { instanceOf: AgentCoreError })
  t.like(read, { name: 'TimeoutError', operation: 'ListEvents' })
  t.regex(read.message, /connect/i, 'the connect timeout is what ended it')
  const write = await t.throwsAsync(saver.put(config, checkpoint(), metadata, { a: 1 }), { instanceOf: AgentCoreError })
  t.like(write, { name: 'TimeoutError', operation: 'CreateEvent' })
  t.regex(write.message, /connect/i)
})
