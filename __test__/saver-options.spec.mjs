// AgentCoreSaver's options: checked at construction, with messages that name
// the option; the environment fallbacks; placeholder credentials on loopback.
import { randomBytes } from 'node:crypto'

import test from 'ava'

import { AgentCoreSaver, startLocalMemory } from '../index.js'

const memoryId = () => `opts-${randomBytes(5).toString('hex')}`
const config = (thread) => ({ configurable: { thread_id: thread, checkpoint_ns: '' } })
const checkpoint = (id) => ({ v: 4, id, ts: new Date().toISOString(), channel_values: {}, channel_versions: {}, versions_seen: {} })
const newId = () => `1f1e6dd2-64b0-6${randomBytes(2).toString('hex').slice(1)}-8000-${randomBytes(6).toString('hex')}`

let server
test.before(async () => {
  server = await startLocalMemory()
})
test.after.always(async () => {
  await server?.close()
})

test('a typo in an option names it and suggests the right one', (t) => {
  const err = t.throws(() => new AgentCoreSaver({ memoryID: 'x-0123456789' }), { instanceOf: TypeError })
  t.regex(err.message, /unknown option 'memoryID'; did you mean 'memoryId'\?/)
  t.regex(t.throws(() => new AgentCoreSaver({ memoryId: 'x-0123456789', endpont: 'http://127.0.0.1:1' })).message, /'endpont'.*'endpoint'/)
})

test('memoryId is required and must have the service shape', (t) => {
  const saved = process.env.AGENTCORE_MEMORY_ID
  delete process.env.AGENTCORE_MEMORY_ID
  try {
    t.regex(t.throws(() => new AgentCoreSaver({})).message, /'memoryId' is required/)
    t.regex(t.throws(() => new AgentCoreSaver({ memoryId: 'not a memory' })).message, /^memoryId must look like/)
    t.regex(t.throws(() => new AgentCoreSaver({ memoryId: 'abc-123' })).message, /memoryId/)
  } finally {
    if (saved !== undefined) process.env.AGENTCORE_MEMORY_ID = saved
  }
})

test('options of the wrong type name the option', (t) => {
  t.regex(t.throws(() => new AgentCoreSaver({ memoryId: 'x-0123456789', maxAttempts: '3' })).message, /'maxAttempts' must be a number/)
  t.regex(t.throws(() => new AgentCoreSaver({ memoryId: 'x-0123456789', maxAttempts: 0 })).message, /'maxAttempts' must be a positive integer/)
  t.regex(t.throws(() => new AgentCoreSaver({ memoryId: 'x-0123456789', credentials: { accessKeyId: 'a' } })).message, /'credentials'/)
  t.regex(t.throws(() => new AgentCoreSaver({ memoryId: 'x-0123456789', logger: {} })).message, /'logger'/)
  t.throws(() => new AgentCoreSaver('x-0123456789'), { message: /options must be an object/ })
})

test('memoryId and endpoint come from the environment when not given', async (t) => {
  const id = memoryId()
  process.env.AGENTCORE_MEMORY_ID = id
  process.env.AWS_ENDPOINT_URL_BEDROCK_AGENTCORE = server.endpoint
  try {
    const saver = new AgentCoreSaver()
    const written = await saver.put(config('env-thread'), checkpoint(newId()), { source: 'input', step: -1, parents: {} }, {})
    const direct = new AgentCoreSaver({ memoryId: id, endpoint: server.endpoint })
    t.is((await direct.getTuple(config('env-thread')))?.config.configurable.checkpoint_id, written.configurable.checkpoint_id)
  } finally {
    delete process.env.AGENTCORE_MEMORY_ID
    delete process.env.AWS_ENDPOINT_URL_BEDROCK_AGENTCORE
  }
})

test('a loopback endpoint needs no AWS credentials at all', async (t) => {
  for (const key of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_PROFILE', 'AWS_REGION']) delete process.env[key]
  const saver = new AgentCoreSaver({ memoryId: memoryId(), endpoint: server.endpoint })
  const id = newId()
  await saver.put(config('no-creds'), checkpoint(id), { source: 'input', step: -1, parents: {} }, {})
  t.is((await saver.getTuple(config('no-creds')))?.checkpoint.id, id)
})

test('actorId routes configs without actor_id; configs carry an explicit one back', async (t) => {
  const id = memoryId()
  const saver = new AgentCoreSaver({ memoryId: id, endpoint: server.endpoint, actorId: 'team-a' })
  const other = new AgentCoreSaver({ memoryId: id, endpoint: server.endpoint })
  await saver.put(config('shared'), checkpoint(newId()), { source: 'input', step: -1, parents: {} }, {})
  t.is(await other.getTuple(config('shared')), undefined)
  const viaConfig = await other.getTuple({ configurable: { thread_id: 'shared', actor_id: 'team-a' } })
  t.is(viaConfig?.config.configurable.actor_id, 'team-a')
  t.is((await saver.getTuple(config('shared')))?.config.configurable.actor_id, undefined)
})
