// One thread's data is never returned for another's config. AgentCore's ids
// are narrow, so the saver maps thread ids, namespaces and actor ids by
// using them as they are or hashing them: ids that differ only in the
// characters that mapping touches, and ids spelled like the mapped form of
// another (read back from the server), must still stay apart through
// getTuple, list and deleteThread.
import { randomBytes } from 'node:crypto'

import { BedrockAgentCoreClient, ListActorsCommand, ListSessionsCommand } from '@aws-sdk/client-bedrock-agentcore'
import { uuid6 } from '@langchain/langgraph-checkpoint'
import test from 'ava'

import { AgentCoreSaver, startLocalMemory } from '../index.js'
import { collect } from './fixtures/graphs.mjs'

const DEFAULT_ACTOR = 'langgraph'
const prefix = (n, tail) => 'p'.repeat(n) + tail

// Lookalike thread ids: escaped characters, unicode spellings, and lengths
// around the 64-character limit of plain ids and the 100 of a sessionId.
const THREADS = [
  'a/b', 'a_b', 'a:b', 'a b', 'a|b', 'ab', 'a-b', 'a__b', 'A-B',
  'caf\u00e9', 'cafe\u0301', 'cafe',
  prefix(63, 'x'), prefix(64, 'x'), prefix(64, 'y'), prefix(99, 'x'), prefix(100, 'x'), prefix(100, 'y'),
  'h_0123456789abcdef0123456789abcdef',
]
// Namespaces of one thread that differ only in `|`, `:` and `_`.
const NAMESPACES = ['', 'a|b', 'a:b', 'a_b', 'a|b:c', 'a:b|c', 'sub:1|inner:2']
const NS_THREAD = 'ns-thread'
// Actors that differ in what the actor mapping escapes; one thread id for all.
const ACTORS = [undefined, 'user:1', 'user|1', 'user_1', 'user/1', '\u00fcser:1', 'user::1', prefix(199, 'a'), prefix(200, 'a'), prefix(200, 'b')]
const ACTOR_THREAD = 'shared'

const sdk = (endpoint) =>
  new BedrockAgentCoreClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } })

/** Every page of a listing, bounded. */
async function allPages(send, key) {
  const items = []
  let nextToken
  for (let page = 0; page < 100; page++) {
    const out = await send(nextToken)
    items.push(...out[key])
    nextToken = out.nextToken
    if (!nextToken) return items
  }
  throw new Error(`more than 100 pages of ${key}`)
}

const sessionsOf = (client, memoryId, actorId) =>
  allPages((nextToken) => client.send(new ListSessionsCommand({ memoryId, actorId, maxResults: 100, nextToken })), 'sessionSummaries').then(
    (s) => s.map((x) => x.sessionId),
  )

let server
test.before(async () => {
  server = await startLocalMemory()
})
test.after.always(() => server?.close())

/**
 * A store of places (actor, thread, namespace), each written with two
 * checkpoints and a pending write that name their place, and read back.
 */
function places(memoryId) {
  const saver = () => new AgentCoreSaver({ memoryId, endpoint: server.endpoint })
  const written = new Map()
  let seq = 0
  const keyOf = ({ actor, thread, ns }) => JSON.stringify([actor ?? null, thread, ns])
  const configOf = ({ actor, thread, ns }, checkpointId) => ({
    configurable: {
      thread_id: thread,
      checkpoint_ns: ns,
      ...(actor === undefined ? {} : { actor_id: actor }),
      ...(checkpointId ? { checkpoint_id: checkpointId } : {}),
    },
  })

  async function write(place) {
    const key = keyOf(place)
    const s = saver()
    const ids = []
    for (let step = 0; step < 2; step++) {
      const checkpoint = {
        v: 4,
        id: uuid6(seq++),
        ts: new Date().toISOString(),
        channel_values: { owner: key, step },
        channel_versions: { owner: step + 1, step: step + 1 },
        versions_seen: {},
      }
      const stored = await s.put(configOf(place, ids.at(-1)), checkpoint, { source: 'loop', step, parents: {}, owner: key }, checkpoint.channel_versions)
      await s.putWrites(stored, [['owner', `write of ${key}`]], `task-${step}`)
      ids.push(stored.configurable.checkpoint_id)
    }
    written.set(key, { place, ids })
  }

  /** Asserts that a place reads back exactly what was written to it, and nothing else. */
  async function check(t, place, reader = saver()) {
    const key = keyOf(place)
    const { ids } = written.get(key)
    const newest = await reader.getTuple(configOf(place))
    t.is(newest?.checkpoint.id, ids[1], `newest of ${key}`)
    t.is(newest?.checkpoint.channel_values.owner, key)
    t.is(newest?.metadata.owner, key)
    t.deepEqual(newest?.pendingWrites.map(([, , v]) => v), [`write of ${key}`])
    t.is(newest?.config.configurable.thread_id, place.thread)
    t.is(newest?.config.configurable.checkpoint_ns, place.ns)
    t.is(newest?.config.configurable.actor_id, place.actor)
    const first = await reader.getTuple(configOf(place, ids[0]))
    t.is(first?.checkpoint.channel_values.owner, key, `first of ${key} by id`)
    const listed = await collect(reader.list(configOf(place)))
    t.deepEqual(
      listed.map((c) => [c.checkpoint.id, c.checkpoint.channel_values.owner, c.config.configurable.checkpoint_ns]),
      [
        [ids[1], key, place.ns],
        [ids[0], key, place.ns],
      ],
      `list of ${key}`,
    )
  }

  /** Asserts that another place's checkpoint ids do not resolve under this place. */
  async function checkForeignIds(t, place, others, reader = saver()) {
    for (const other of others) {
      if (keyOf(other) === keyOf(place)) continue
      const id = written.get(keyOf(other)).ids[1]
      t.is(await reader.getTuple(configOf(place, id)), undefined, `${keyOf(other)}'s checkpoint under ${keyOf(place)}`)
    }
  }

  return { saver, write, check, checkForeignIds, keyOf, written }
}

test('lookalike thread ids, and ids spelled like the mapped form of another, stay apart', async (t) => {
  const memoryId = `iso-${randomBytes(5).toString('hex')}`
  const p = places(memoryId)
  const threads = THREADS.map((thread) => ({ thread, ns: '' }))
  for (const place of threads) await p.write(place)
  await p.write({ thread: 'n1', ns: 'sub:1' })

  // The sessionIds the server now holds, used as thread ids in their own
  // right: a hashed one (`h_<digest>`) and a namespace's (`n1__<digest>`).
  const sessions = await sessionsOf(sdk(server.endpoint), memoryId, DEFAULT_ACTOR)
  const hashed = sessions.filter((s) => s.startsWith('h_') && !s.includes('__'))
  const namespaced = sessions.find((s) => s.startsWith('n1__'))
  t.true(hashed.length >= 8, `hashed sessions: ${hashed.length}`)
  t.truthy(namespaced, 'the namespace has its own session')
  const mimics = [...hashed, namespaced, `${hashed[0]}__${namespaced.slice(4)}`].map((thread) => ({ thread, ns: '' }))
  for (const place of mimics) await p.write(place)
  // ...and the thread whose namespace session was mimicked, at its root.
  await p.write({ thread: 'n1', ns: '' })

  const all = [...threads, ...mimics, { thread: 'n1', ns: 'sub:1' }, { thread: 'n1', ns: '' }]
  t.is(new Set(all.map(p.keyOf)).size, all.length, 'the places are distinct')
  const reader = p.saver()
  for (const place of all) {
    await p.check(t, place, reader)
    await p.checkForeignIds(t, place, all, reader)
  }

  // Listing every thread gives each checkpoint once, under its own place.
  const everything = await collect(reader.list({}))
  t.is(everything.length, all.length * 2)
  for (const c of everything) {
    const { thread_id: thread, checkpoint_ns: ns } = c.config.configurable
    t.is(c.checkpoint.channel_values.owner, p.keyOf({ thread, ns }))
  }

  // Deleting one thread leaves every lookalike, and the mimics, alone.
  const [gone, ...kept] = all
  await reader.deleteThread(gone.thread)
  await reader.deleteThread(namespaced) // a thread named like n1's namespace session
  const fresh = p.saver()
  for (const place of [gone, { thread: namespaced, ns: '' }]) {
    t.is(await fresh.getTuple({ configurable: { thread_id: place.thread } }), undefined, `${place.thread} is deleted`)
    t.deepEqual(await collect(fresh.list({ configurable: { thread_id: place.thread } })), [])
  }
  for (const place of kept.filter((k) => k.thread !== namespaced)) await p.check(t, place, fresh)
})

test('namespaces that differ only in `|`, `:` and `_` stay apart', async (t) => {
  const p = places(`iso-${randomBytes(5).toString('hex')}`)
  const all = NAMESPACES.map((ns) => ({ thread: NS_THREAD, ns }))
  // A thread whose id is the namespaced one spelled out, next to it.
  all.push({ thread: `${NS_THREAD}:a|b`, ns: '' }, { thread: `${NS_THREAD}|a:b`, ns: '' })
  for (const place of all) await p.write(place)
  const reader = p.saver()
  for (const place of all) {
    await p.check(t, place, reader)
    await p.checkForeignIds(t, place, all, reader)
  }
  // The thread's listing without a namespace holds all of its namespaces, and only them.
  const listed = await collect(reader.list({ configurable: { thread_id: NS_THREAD } }))
  t.deepEqual([...new Set(listed.map((c) => c.config.configurable.checkpoint_ns))].sort(), [...NAMESPACES].sort())
  for (const c of listed) t.is(c.checkpoint.channel_values.owner, p.keyOf({ thread: NS_THREAD, ns: c.config.configurable.checkpoint_ns }))

  await reader.deleteThread(NS_THREAD)
  for (const ns of NAMESPACES) t.is(await reader.getTuple({ configurable: { thread_id: NS_THREAD, checkpoint_ns: ns } }), undefined)
  for (const place of all.filter((x) => x.thread !== NS_THREAD)) await p.check(t, place, p.saver())
})

test('a user-supplied actor_id keeps one thread id apart per actor, lookalike actors included', async (t) => {
  const memoryId = `iso-${randomBytes(5).toString('hex')}`
  const p = places(memoryId)
  const all = ACTORS.map((actor) => ({ actor, thread: ACTOR_THREAD, ns: '' }))
  for (const place of all) await p.write(place)
  // The actorIds the server holds, used as actor ids in their own right.
  const client = sdk(server.endpoint)
  const actorIds = (
    await allPages((nextToken) => client.send(new ListActorsCommand({ memoryId, maxResults: 100, nextToken })), 'actorSummaries')
  ).map((a) => a.actorId)
  const mimics = actorIds.filter((a) => a.startsWith('h_')).map((actor) => ({ actor, thread: ACTOR_THREAD, ns: '' }))
  t.true(mimics.length >= 4, `hashed actors: ${mimics.length}`)
  for (const place of mimics) await p.write(place)

  const everyone = [...all, ...mimics]
  const reader = p.saver()
  for (const place of everyone) {
    await p.check(t, place, reader)
    await p.checkForeignIds(t, place, everyone, reader)
  }
  // A saver whose default actor is one of them reads that actor's thread.
  const asUser = new AgentCoreSaver({ memoryId, endpoint: server.endpoint, actorId: 'user|1' })
  const tuple = await asUser.getTuple({ configurable: { thread_id: ACTOR_THREAD } })
  t.is(tuple?.checkpoint.channel_values.owner, p.keyOf({ actor: 'user|1', thread: ACTOR_THREAD, ns: '' }))
})
