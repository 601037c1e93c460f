// startLocalMemory() in this process, driven by the official JavaScript SDK.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'

import {
  CreateEventCommand,
  DeleteEventCommand,
  GetEventCommand,
  ListActorsCommand,
  ListEventsCommand,
  ListSessionsCommand,
  paginateListEvents,
} from '@aws-sdk/client-bedrock-agentcore'
import test from 'ava'

import { startLocalMemory } from '../index.js'
import { EVENT_ID, blobEvent, clientFor, eventIdPrefix, rejectsWith } from './fixtures/agentcore-client.mjs'

const T0 = Date.UTC(2025, 0, 1)
const NO_REQUESTS = { CreateEvent: 0, GetEvent: 0, DeleteEvent: 0, ListEvents: 0, ListSessions: 0, ListActors: 0 }

async function serverFor(t, options) {
  const server = await startLocalMemory(options)
  t.teardown(() => server.close())
  return server
}

async function tempDir(t) {
  const dir = await mkdtemp(path.join(tmpdir(), 'lgca-local-memory-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/** Creates one event per blob, a second apart from T0; resolves to the created events. */
async function createEvents(client, memoryId, blobs) {
  const events = []
  for (const [i, blob] of blobs.entries()) {
    const input = blobEvent({ memoryId, timestamp: T0 + i * 1000, blob })
    events.push((await client.send(new CreateEventCommand(input))).event)
  }
  return events
}

async function createEventIds(client, memoryId, blobs) {
  return (await createEvents(client, memoryId, blobs)).map((e) => e.eventId)
}

async function listEventIds(client, where) {
  const { events } = await client.send(new ListEventsCommand(where))
  return events.map((e) => e.eventId)
}

test('endpoint and memoryId have the expected shapes', async (t) => {
  const server = await serverFor(t)
  t.regex(server.endpoint, /^http:\/\/127\.0\.0\.1:\d+$/)
  t.regex(server.memoryId, /^[a-zA-Z][a-zA-Z0-9_-]{0,99}-[a-zA-Z0-9]{10}$/)
  const named = await serverFor(t, { memoryId: 'mem-0123456789' })
  t.is(named.memoryId, 'mem-0123456789')
})

const BLOBS = [{ turn: 0, text: 'hello' }, { turn: 1, nested: { list: [1, 2, 3] } }, { turn: 2, text: 'bye' }]

/** A server holding the three BLOBS events in actor-1/session-1. */
async function seeded(t) {
  const server = await serverFor(t)
  const client = clientFor(server.endpoint)
  const where = { memoryId: server.memoryId, actorId: 'actor-1', sessionId: 'session-1' }
  const created = await createEvents(client, server.memoryId, BLOBS)
  return { server, client, where, created, ids: created.map((e) => e.eventId) }
}

test('CreateEvent returns the event with an eventId of its timestamp', async (t) => {
  const { created, where } = await seeded(t)
  for (const [i, event] of created.entries()) {
    t.regex(event.eventId, EVENT_ID)
    t.true(event.eventId.startsWith(eventIdPrefix(T0 + i * 1000)), event.eventId)
    t.is(event.eventTimestamp.getTime(), T0 + i * 1000)
    t.like(event, where)
    t.deepEqual(event.payload, [{ blob: BLOBS[i] }])
  }
})

test('GetEvent returns the stored event', async (t) => {
  const { client, where, ids } = await seeded(t)
  const { event } = await client.send(new GetEventCommand({ ...where, eventId: ids[1] }))
  t.like(event, { ...where, eventId: ids[1] })
  t.deepEqual(event.payload, [{ blob: BLOBS[1] }])
})

test('ListEvents is newest first, with payloads unless includePayloads is false', async (t) => {
  const { client, where, ids } = await seeded(t)
  const { events } = await client.send(new ListEventsCommand(where))
  t.deepEqual(
    events.map((e) => e.eventId),
    [...ids].reverse(),
  )
  t.deepEqual(
    events.map((e) => e.payload),
    [...BLOBS].reverse().map((blob) => [{ blob }]),
  )
  const bare = await client.send(new ListEventsCommand({ ...where, includePayloads: false }))
  t.true(bare.events.every((e) => e.payload === undefined))
})

test('DeleteEvent removes the event; GetEvent then gives ResourceNotFoundException', async (t) => {
  const { client, where, ids } = await seeded(t)
  const deleted = await client.send(new DeleteEventCommand({ ...where, eventId: ids[2] }))
  t.is(deleted.eventId, ids[2])
  await rejectsWith(t, client.send(new GetEventCommand({ ...where, eventId: ids[2] })), 'ResourceNotFoundException', 404)
  await rejectsWith(t, client.send(new DeleteEventCommand({ ...where, eventId: ids[2] })), 'ResourceNotFoundException', 404)
  t.deepEqual(await listEventIds(client, where), [ids[1], ids[0]])
})

test('ListSessions and ListActors list what was written', async (t) => {
  const { client, where } = await seeded(t)
  const { sessionSummaries } = await client.send(new ListSessionsCommand({ memoryId: where.memoryId, actorId: 'actor-1' }))
  t.deepEqual(
    sessionSummaries.map((s) => [s.actorId, s.sessionId]),
    [['actor-1', 'session-1']],
  )
  t.true(sessionSummaries[0].createdAt instanceof Date)
  const { actorSummaries } = await client.send(new ListActorsCommand({ memoryId: where.memoryId }))
  t.deepEqual(actorSummaries, [{ actorId: 'actor-1' }])
})

test('ListEvents is newest first and pages with nextToken (20 per page by default)', async (t) => {
  const { endpoint, memoryId } = await serverFor(t)
  const client = clientFor(endpoint)
  const ids = await createEventIds(client, memoryId, Array.from({ length: 25 }, (_, i) => ({ i })))
  const pages = []
  const input = { memoryId, actorId: 'actor-1', sessionId: 'session-1' }
  for await (const page of paginateListEvents({ client }, input)) pages.push(page.events.map((e) => e.eventId))
  t.deepEqual(
    pages.map((p) => p.length),
    [20, 5],
  )
  t.deepEqual(pages.flat(), [...ids].reverse())
})

test('stats() counts requests per operation, failed ones included; resetStats() zeroes them', async (t) => {
  const server = await serverFor(t)
  const { endpoint, memoryId } = server
  const client = clientFor(endpoint)
  t.deepEqual(server.stats(), { requests: NO_REQUESTS, bytesIn: 0, bytesOut: 0, throttled: 0, errors: 0 })

  const [eventId] = await createEventIds(client, memoryId, [{ a: 1 }])
  const where = { memoryId, actorId: 'actor-1', sessionId: 'session-1' }
  await client.send(new GetEventCommand({ ...where, eventId }))
  await client.send(new GetEventCommand({ ...where, eventId }))
  await client.send(new ListEventsCommand(where))
  await client.send(new ListSessionsCommand({ memoryId, actorId: 'actor-1' }))
  await client.send(new ListActorsCommand({ memoryId }))
  await client.send(new DeleteEventCommand({ ...where, eventId }))
  await rejectsWith(t, client.send(new GetEventCommand({ ...where, eventId })), 'ResourceNotFoundException', 404)

  const stats = server.stats()
  t.deepEqual(stats.requests, { ...NO_REQUESTS, CreateEvent: 1, GetEvent: 3, ListEvents: 1, ListSessions: 1, ListActors: 1, DeleteEvent: 1 })
  t.true(stats.bytesIn > 0 && stats.bytesOut > 0, JSON.stringify(stats))
  server.resetStats()
  t.deepEqual(server.stats(), { requests: NO_REQUESTS, bytesIn: 0, bytesOut: 0, throttled: 0, errors: 0 })
})

test('/_local/stats reports the counters over HTTP and /_local/stats/reset zeroes them', async (t) => {
  const server = await serverFor(t)
  await createEvents(clientFor(server.endpoint), server.memoryId, [{ a: 1 }])
  const response = await fetch(`${server.endpoint}/_local/stats`)
  t.is(response.status, 200)
  const body = await response.json()
  t.like(body, { requests: { CreateEvent: 1 }, throttled: 0, errors: 0 })
  t.true(body.bytesIn > 0)
  const reset = await fetch(`${server.endpoint}/_local/stats/reset`, { method: 'POST' })
  t.is(reset.status, 204)
  t.deepEqual(server.stats().requests, NO_REQUESTS)
})

test('invalid requests are HTTP 400 ValidationException naming the field', async (t) => {
  const { endpoint, memoryId } = await serverFor(t)
  const client = clientFor(endpoint)
  const badSession = blobEvent({ memoryId, sessionId: 'not:valid', timestamp: T0, blob: {} })
  const error = await rejectsWith(t, client.send(new CreateEventCommand(badSession)), 'ValidationException', 400)
  t.regex(error.message, /sessionId/)
  const tooMany = { memoryId, actorId: 'actor-1', sessionId: 'session-1', maxResults: 101 }
  const listError = await rejectsWith(t, client.send(new ListEventsCommand(tooMany)), 'ValidationException', 400)
  t.regex(listError.message, /maxResults/)
})

test('a request body over maxRequestBytes gets HTTP 413', async (t) => {
  const { endpoint, memoryId } = await serverFor(t, { maxRequestBytes: 2000 })
  const client = clientFor(endpoint, { maxAttempts: 1 })
  const big = blobEvent({ memoryId, timestamp: T0, blob: { text: 'x'.repeat(5000) } })
  const error = await t.throwsAsync(client.send(new CreateEventCommand(big)))
  t.is(error.$metadata?.httpStatusCode, 413, error.message)
  await t.notThrowsAsync(createEvents(client, memoryId, [{ text: 'small' }]))
})

test('events in dataDir survive close() and a restart', async (t) => {
  const dataDir = path.join(await tempDir(t), 'store')
  const before = await serverFor(t, { dataDir })
  const blobs = [{ n: 1 }, { n: 2 }]
  const ids = await createEventIds(clientFor(before.endpoint), before.memoryId, blobs)
  const memoryId = before.memoryId
  await before.close()

  const after = await serverFor(t, { dataDir })
  const client = clientFor(after.endpoint)
  t.deepEqual(await listEventIds(client, { memoryId, actorId: 'actor-1', sessionId: 'session-1' }), [...ids].reverse())
  const got = await client.send(new GetEventCommand({ memoryId, actorId: 'actor-1', sessionId: 'session-1', eventId: ids[0] }))
  t.deepEqual(got.event.payload, [{ blob: blobs[0] }])
})

test('throttleRate 1 answers every request with 429 ThrottledException', async (t) => {
  const server = await serverFor(t, { throttleRate: 1, seed: 1 })
  const client = clientFor(server.endpoint, { maxAttempts: 1 })
  const input = blobEvent({ memoryId: server.memoryId, timestamp: T0, blob: {} })
  await rejectsWith(t, client.send(new CreateEventCommand(input)), 'ThrottledException', 429)
  await rejectsWith(t, client.send(new ListActorsCommand({ memoryId: server.memoryId })), 'ThrottledException', 429)
  t.like(server.stats(), { requests: { CreateEvent: 1, ListActors: 1 }, throttled: 2, errors: 0 })
})

test('errorRate 1 answers every request with 500 ServiceException', async (t) => {
  const server = await serverFor(t, { errorRate: 1, seed: 1 })
  const client = clientFor(server.endpoint, { maxAttempts: 1 })
  const input = blobEvent({ memoryId: server.memoryId, timestamp: T0, blob: {} })
  await rejectsWith(t, client.send(new CreateEventCommand(input)), 'ServiceException', 500)
  await rejectsWith(t, client.send(new ListActorsCommand({ memoryId: server.memoryId })), 'ServiceException', 500)
  t.like(server.stats(), { requests: { CreateEvent: 1, ListActors: 1 }, throttled: 0, errors: 2 })
})

test('requests must carry a SigV4 Authorization header', async (t) => {
  const { endpoint, memoryId } = await serverFor(t)
  const response = await fetch(`${endpoint}/memories/${memoryId}/actors`, { method: 'POST', body: '{}' })
  t.is(response.status, 403)
  t.is(response.headers.get('x-amzn-errortype'), 'MissingAuthenticationTokenException')
})

test('bad options and a taken port reject with a message saying why', async (t) => {
  await t.throwsAsync(startLocalMemory({ throttleRate: 2 }), { message: /throttle.?rate/i })
  const server = await serverFor(t)
  const port = Number(new URL(server.endpoint).port)
  await t.throwsAsync(startLocalMemory({ port }), { message: new RegExp(`${port}`) })
})

test('close() twice is harmless; a closed server stops serving', async (t) => {
  const server = await startLocalMemory()
  await server.close()
  await t.notThrowsAsync(server.close())
  t.throws(() => server.stats(), { message: /closed/ })
  await t.throwsAsync(fetch(`${server.endpoint}/_local/health`))
})
