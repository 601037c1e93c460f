// The local server driven by boto3, the official Python SDK, from the .venv
// that `npm test` prepares (scripts/python-env.mjs).
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

import test from 'ava'

import { startLocalMemory } from '../index.js'
import { venvPython } from '../scripts/python-env.mjs'
import { EVENT_ID } from './fixtures/agentcore-client.mjs'

const SCRIPT = fileURLToPath(new URL('fixtures/boto3_roundtrip.py', import.meta.url))
const EVENTS = 25

async function runRoundTrip(t) {
  const server = await startLocalMemory()
  t.teardown(() => server.close())
  const { stdout } = await promisify(execFile)(venvPython, [SCRIPT, server.endpoint, server.memoryId])
  return { server, summary: JSON.parse(stdout) }
}

test('boto3 writes, reads, pages through and deletes events', async (t) => {
  // Never a skip: a missing .venv would hide that this suite did not run.
  if (!existsSync(venvPython)) {
    t.fail(`${venvPython} is missing: run \`npm test\`, which creates .venv and installs boto3 into it`)
    return
  }
  const { server, summary } = await runRoundTrip(t)

  t.is(summary.created.length, EVENTS)
  t.true(summary.created.every((id) => EVENT_ID.test(id)), summary.created.join(' '))
  t.deepEqual(summary.got, {
    eventId: summary.created[3],
    payload: [{ blob: { turn: 3, text: 'message 3' } }],
    timestamp: Date.UTC(2025, 0, 1, 0, 0, 3) / 1000,
  })
  t.deepEqual(summary.listed.pageSizes, [20, 5], 'the paginator follows nextToken')
  t.deepEqual(summary.listed.eventIds, [...summary.created].reverse(), 'newest first')
  t.deepEqual(summary.sessions, [['actor-py', 'session-py']])
  t.deepEqual(summary.actors, ['actor-py'])
  t.is(summary.deleted, summary.created[0])
  t.deepEqual(summary.getDeleted, { code: 'ResourceNotFoundException', status: 404 })
  t.is(summary.remaining, EVENTS - 1)
  t.deepEqual(summary.badSession, { code: 'ValidationException', status: 400 })
  t.like(server.stats().requests, { CreateEvent: EVENTS, GetEvent: 2, DeleteEvent: 1, ListEvents: 5, ListSessions: 1, ListActors: 1 })
})
