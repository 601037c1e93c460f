// Bad input and hostile surroundings: ids of the wrong type, foreign events
// in the saver's sessions, servers that answer garbage or nothing at all.
// Each gets a clear error (or a warning, for foreign events), never a hang,
// a crash or a half-written thread.
import { createServer } from 'node:http'
import { createServer as createTcpServer } from 'node:net'
import { once } from 'node:events'
import { randomBytes } from 'node:crypto'

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
  const saver = new AgentCoreSaver({ memoryId: memoryId(), endpoint: server.endpoint })
  const cases = [
    [{ thread_id: 't', checkpoint_ns: 7 }, /checkpoint_ns must be a string/],
    [{ thread_id: 't', actor_id: 42 }, /actor_id must be a non-empty string/],
    [{ thread_id: 't', actor_id: '' }, /actor_id must be a non-empty string/],
    [{ thread_id: ['t'] }, /thread_id must be a non-empty string/],
  ]
  const before = server.stats().requests.CreateEvent
  for (const [configurable, message] of cases) {
    await t.throwsAsync(saver.put({ configurable }, checkpoint(), metadata, { a: 1 }), { message }, JSON.stringify(configurable))
  }
  await t.throwsAsync(saver.putWrites({ configurable: { thread_id: 't', checkpoint_id: 5 } }, [['a', 1]], 'task'), {
    message: /checkpoint_id is required and must be a non-empty string, got number/,
  })
  await t.throwsAsync(saver.getTuple({ configurable: { thread_id: "t", checkpoint_id: {} } }), { instanceOf: TypeError, message: /checkpoint_id must be a string, got object/ })
  t.is(server.stats().requests.CreateEvent, before)
})

test('an invalid actorId is refused at construction, naming the option', (t) => {
  const err = t.throws(() => new AgentCoreSaver({ memoryId: memoryId(), endpoint: server.endpoint, actorId: '' }))
  t.regex(err.message, /actorId/)
  t.throws(() => new AgentCoreSaver({ memoryId: memoryId(), actorId: 7 }), { message: /option 'actorId' must be a string/ })
})

test('list refuses a limit that is not a positive integer, and a before that names no checkpoint', async (t) => {
  const saver = new AgentCoreSaver({ memoryId: memoryId(), endpoint: server.endpoint })
  const drain = async (options) => {
    for await (const _ of saver.list({ configurable: { thread_id: 't' } }, options));
  }
  await t.throwsAsync(drain({ limit: 1.5 }), { instanceOf: RangeError, message: /limit must be a positive integer/ })
  await t.throwsAsync(drain({ before: { configurable: { checkpoint_id: '' } } }), { message: /before must be a config with configurable.checkpoint_id/ })
})

test('foreign events in a thread are skipped with one warning each, and reads still work', async (t) => {
  const memory = memoryId()
  const warnings = []
  const logger = { warn: (message) => warnings.push(message) }
  const saver = new AgentCoreSaver({ memoryId: memory, endpoint: server.endpoint, logger })
  const config = { configurable: { thread_id: 'mixed' } }
  const stored = await saver.put(config, checkpoint({ a: 'ours' }), metadata, { a: 1 })

  // Someone else's events in the same session: a conversation, a record in
  // the Python saver's shape, a truncated blob of ours, and a non-object blob.
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
  ]
  for (const payload of foreign) {
    await sdk.send(
      new CreateEventCommand({ memoryId: memory, actorId: 'langgraph', sessionId: 'mixed', eventTimestamp: new Date(), payload: [payload] }),
    )
  }
  for (let i = 0; i < 2; i++) {
    const tuple = await saver.getTuple(config)
    t.is(tuple.checkpoint.id, stored.configurable.checkpoint_id)
    t.is(tuple.checkpoint.channel_values.a, 'ours')
    const listed = []
    for await (const c of saver.list(config)) listed.push(c.checkpoint.id)
    t.deepEqual(listed, [stored.configurable.checkpoint_id])
  }
  t.is(warnings.length, 4, 'one warning per foreign event, however often it is read')
  for (const w of warnings) t.regex(w, /skipped event \S+ in session mixed: /)
  t.true(warnings.some((w) => w.includes('cannot be decoded')))
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

test('a server that accepts and never answers yields a TimeoutError, not a hung agent', async (t) => {
  t.timeout(30_000, 'the saver hung')
  const sockets = new Set()
  const silent = createTcpServer((socket) => sockets.add(socket))
  silent.listen(0, '127.0.0.1')
  await once(silent, 'listening')
  t.teardown(() => {
    for (const s of sockets) s.destroy()
    silent.close()
  })
  const saver = new AgentCoreSaver({
    memoryId: memoryId(),
    endpoint: `http://127.0.0.1:${silent.address().port}`,
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

test('a port where nothing listens yields a NetworkError within the connect timeout', async (t) => {
  t.timeout(30_000, 'the saver hung')
  // Bind a port, then free it: nothing listens there now.
  const probe = createTcpServer().listen(0, '127.0.0.1')
  await once(probe, 'listening')
  const port = probe.address().port
  await new Promise((r) => probe.close(r))
  const saver = new AgentCoreSaver({ memoryId: memoryId(), endpoint: `http://127.0.0.1:${port}`, maxAttempts: 2, connectTimeoutMs: 500 })
  const err = await t.throwsAsync(saver.getTuple({ configurable: { thread_id: 't' } }), { instanceOf: AgentCoreError })
  t.is(err.name, 'NetworkError')
})
