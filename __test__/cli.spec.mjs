// bin/agentcore-memory-local.js as a user runs it: a child process whose one
// line of stdout is the endpoint, stopped with a signal.
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import { CreateEventCommand, ListEventsCommand } from '@aws-sdk/client-bedrock-agentcore'
import test from 'ava'

import { SOME_MEMORY_ID, blobEvent, clientFor, rejectsWith } from './fixtures/agentcore-client.mjs'

const CLI = fileURLToPath(new URL('../bin/agentcore-memory-local.js', import.meta.url))
const LISTENING = /^agentcore-memory-local listening on (http:\/\/127\.0\.0\.1:\d+)$/
const WHERE = { memoryId: SOME_MEMORY_ID, actorId: 'actor-1', sessionId: 'session-1' }

/**
 * Starts the command. `listening` resolves to the endpoint once the first
 * line is out; `exited` to `{ code, signal, stdout, stderr }` once the
 * process is gone and its output read.
 */
function startCli(t, args) {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  const output = { stdout: '', stderr: '' }
  child.stdout.setEncoding('utf8').on('data', (text) => (output.stdout += text))
  child.stderr.setEncoding('utf8').on('data', (text) => (output.stderr += text))
  const exited = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, ...output })))
  const listening = new Promise((resolve, reject) => {
    child.stdout.on('data', () => {
      if (!output.stdout.includes('\n')) return
      const [line] = output.stdout.split('\n', 1)
      const match = LISTENING.exec(line)
      if (match) resolve(match[1])
      else reject(new Error(`unexpected first line: ${JSON.stringify(line)}`))
    })
    exited.then(({ code, stderr }) => reject(new Error(`exited (${code}) before listening: ${stderr}`)))
  })
  // Tests of failing command lines never await `listening`.
  listening.catch(() => {})
  t.teardown(() => child.exitCode === null && child.kill('SIGKILL'))
  return { child, listening, exited }
}

async function tempDir(t) {
  const dir = await mkdtemp(path.join(tmpdir(), 'lgca-cli-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

async function writeAndList(endpoint, blob) {
  const client = clientFor(endpoint)
  await client.send(new CreateEventCommand(blobEvent({ ...WHERE, timestamp: Date.now(), blob })))
  const { events } = await client.send(new ListEventsCommand(WHERE))
  return events.map((e) => e.payload[0].blob)
}

/** Stops the command with `signal` and checks it exited 0 with one line of stdout. */
async function stopsCleanly(t, { child, exited }, signal) {
  child.kill(signal)
  const { code, signal: killedBy, stdout } = await exited
  t.is(code, 0, `exit code after ${signal}`)
  t.is(killedBy, null)
  t.is(stdout.split('\n').length, 2, `one line of stdout: ${JSON.stringify(stdout)}`)
  t.regex(stdout, /\n$/)
}

for (const signal of ['SIGTERM', 'SIGINT']) {
  test(`serves on the printed endpoint and exits 0 on ${signal}`, async (t) => {
    const cli = startCli(t, ['--port', '0'])
    const endpoint = await cli.listening
    t.deepEqual(await writeAndList(endpoint, { signal }), [{ signal }])
    await stopsCleanly(t, cli, signal)
  })
}

test('--data-dir keeps events from one run to the next', async (t) => {
  const dataDir = await tempDir(t)
  const first = startCli(t, ['--port', '0', '--data-dir', dataDir])
  t.deepEqual(await writeAndList(await first.listening, { run: 1 }), [{ run: 1 }])
  await stopsCleanly(t, first, 'SIGTERM')

  const second = startCli(t, ['--data-dir', dataDir])
  t.deepEqual(await writeAndList(await second.listening, { run: 2 }), [{ run: 2 }, { run: 1 }])
  await stopsCleanly(t, second, 'SIGTERM')
})

test('fault and limit flags reach the server', async (t) => {
  const throttled = startCli(t, ['--throttle-rate', '1', '--seed', '7'])
  const client = clientFor(await throttled.listening, { maxAttempts: 1 })
  await rejectsWith(t, client.send(new ListEventsCommand(WHERE)), 'ThrottledException', 429)
  await stopsCleanly(t, throttled, 'SIGTERM')

  const small = startCli(t, ['--max-request-bytes', '100'])
  const big = blobEvent({ ...WHERE, timestamp: Date.now(), blob: 'x'.repeat(500) })
  const error = await t.throwsAsync(clientFor(await small.listening, { maxAttempts: 1 }).send(new CreateEventCommand(big)))
  t.is(error.$metadata?.httpStatusCode, 413)
  await stopsCleanly(t, small, 'SIGTERM')
})

test('--memory-id is reported on stderr, not stdout', async (t) => {
  const cli = startCli(t, ['--memory-id', 'mem-0123456789'])
  await cli.listening
  await stopsCleanly(t, cli, 'SIGTERM')
  t.regex((await cli.exited).stderr, /mem-0123456789/)
})

test('--help prints the usage and exits 0', async (t) => {
  const { exited } = startCli(t, ['--help'])
  const { code, stdout } = await exited
  t.is(code, 0)
  t.regex(stdout, /^Usage: agentcore-memory-local/)
  for (const flag of ['--host', '--port', '--data-dir', '--max-request-bytes', '--latency-ms', '--throttle-rate', '--error-rate', '--seed', '--max-in-flight', '--memory-id']) {
    t.true(stdout.includes(flag), flag)
  }
})

const badCommandLines = [
  [['--bogus'], '--bogus'],
  [['--port', 'abc'], '--port'],
  [['--throttle-rate', '1.5'], '--throttle-rate'],
  [['--latency-ms'], '--latency-ms'],
]
for (const [args, flag] of badCommandLines) {
  test(`${args.join(' ')} exits 2 with a message naming ${flag}`, async (t) => {
    const { code, stdout, stderr } = await startCli(t, args).exited
    t.is(code, 2)
    t.is(stdout, '')
    t.true(stderr.includes(flag), stderr)
  })
}

test('a port in use exits 1 saying so', async (t) => {
  const taken = createServer()
  await new Promise((resolve) => taken.listen(0, '127.0.0.1', resolve))
  t.teardown(() => taken.close())
  const { code, stdout, stderr } = await startCli(t, ['--port', String(taken.address().port)]).exited
  t.is(code, 1)
  t.is(stdout, '')
  t.regex(stderr, /cannot listen/)
})
