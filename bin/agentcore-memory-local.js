#!/usr/bin/env node
'use strict'
// `agentcore-memory-local`: the local AgentCore Memory server as a command.
// It serves until SIGINT or SIGTERM. stdout carries exactly one line, the
// endpoint, so scripts can read it; everything else goes to stderr.

const { parseArgs } = require('node:util')

const NAME = 'agentcore-memory-local'
const U32_MAX = 2 ** 32 - 1

// Each flag: its value's name in the usage, its help text, and how to read
// its value (throws a message naming the flag when the value is bad).
const FLAGS = {
  host: { value: 'HOST', help: 'address to bind (default 127.0.0.1)', read: text },
  port: { value: 'PORT', help: 'port to bind; 0 picks a free one (default 0)', read: integer(0, 65535) },
  'data-dir': { value: 'DIR', help: 'keep events in SQLite under DIR (default: in memory)', read: text },
  'max-request-bytes': {
    value: 'N',
    help: 'refuse larger request bodies with HTTP 413 (default 10000000)',
    read: integer(1, U32_MAX),
  },
  'latency-ms': { value: 'MS', help: 'milliseconds added to every request (default 0)', read: integer(0, U32_MAX) },
  'throttle-rate': { value: 'P', help: 'fraction of requests answered 429 ThrottledException (default 0)', read: rate },
  'error-rate': { value: 'P', help: 'fraction of requests answered 500 ServiceException (default 0)', read: rate },
  seed: { value: 'S', help: 'seed of the fault injection, for repeatable runs', read: integer(0, U32_MAX) },
  'max-in-flight': { value: 'N', help: 'requests served at once; more get 429 (default 512)', read: integer(1, U32_MAX) },
  'memory-id': { value: 'ID', help: 'the memoryId to report on stderr (default: a fresh one)', read: text },
  'list-order': {
    value: 'ORDER',
    help: 'newest-first (as AWS, default) or oldest-first, to test clients that must not rely on it',
    read: oneOf('newest-first', 'oldest-first'),
  },
}

function oneOf(...allowed) {
  return (flag, raw) => {
    if (!allowed.includes(raw)) throw new Error(`--${flag} must be one of ${allowed.join(', ')}, got '${raw}'`)
    return raw
  }
}

function usage() {
  const rows = Object.entries(FLAGS).map(([flag, { value, help }]) => [`--${flag} ${value}`, help])
  rows.push(['-h, --help', 'print this help'])
  const width = Math.max(...rows.map(([left]) => left.length))
  return [
    `Usage: ${NAME} [options]`,
    '',
    'A local Amazon Bedrock AgentCore Memory data plane (events, sessions, actors).',
    'Prints "agentcore-memory-local listening on http://HOST:PORT" and serves',
    'until SIGINT or SIGTERM.',
    '',
    'Options:',
    ...rows.map(([left, help]) => `  ${left.padEnd(width)}  ${help}`),
    '',
  ].join('\n')
}

/** The startLocalMemory options of a command line, or null for --help. */
function parseCommandLine(args) {
  const options = Object.fromEntries(Object.keys(FLAGS).map((flag) => [flag, { type: 'string' }]))
  options.help = { type: 'boolean', short: 'h' }
  const { values } = parseArgs({ args, options, strict: true, allowPositionals: false })
  if (values.help) return null
  const result = {}
  for (const [flag, raw] of Object.entries(values)) {
    if (flag !== 'help') result[camelCase(flag)] = FLAGS[flag].read(flag, raw)
  }
  return result
}

function text(flag, raw) {
  if (raw === '') throw new Error(`--${flag} needs a non-empty value`)
  return raw
}

function integer(min, max) {
  return (flag, raw) => {
    const n = /^\d+$/.test(raw) ? Number(raw) : NaN
    if (!(n >= min && n <= max)) throw new Error(`--${flag} must be an integer from ${min} to ${max}, got '${raw}'`)
    return n
  }
}

function rate(flag, raw) {
  const p = raw.trim() === '' ? NaN : Number(raw)
  if (!(p >= 0 && p <= 1)) throw new Error(`--${flag} must be a number from 0 to 1, got '${raw}'`)
  return p
}

function camelCase(flag) {
  return flag.replace(/-([a-z])/g, (_, c) => c.toUpperCase())
}

/** Runs `stop` on the first of `signals`; a second signal takes its default action, a forced exit. */
function onFirstSignal(signals, stop) {
  const handler = (signal) => {
    for (const s of signals) process.removeListener(s, handler)
    stop(signal)
  }
  for (const s of signals) process.on(s, handler)
}

async function serve(options) {
  // Loaded here, not above, so --help and flag errors work without the addon.
  // The loader alone: the server needs no LangGraph packages installed.
  const { startLocalMemory } = require('../lib/load-native.js')
  const server = await startLocalMemory(options)
  // The server runs on native threads, which do not keep Node's event loop
  // alive: this timer does, until a signal stops the server.
  const keepAlive = setInterval(() => {}, 2 ** 30)
  // Handlers first, then the line: whoever reads the endpoint may signal at
  // once, and a signal without a handler would kill the process uncleanly.
  onFirstSignal(['SIGINT', 'SIGTERM'], () => {
    clearInterval(keepAlive)
    server.close().then(() => process.exit(0), fail)
  })
  process.stdout.write(`${NAME} listening on ${server.endpoint}\n`)
  process.stderr.write(`${NAME}: memoryId ${server.memoryId} (any well-formed memoryId works)\n`)
}

function fail(error) {
  process.stderr.write(`${NAME}: ${error.message}\n`)
  process.exit(1)
}

function main() {
  let options
  try {
    options = parseCommandLine(process.argv.slice(2))
  } catch (error) {
    process.stderr.write(`${NAME}: ${error.message}\nRun '${NAME} --help' for the options.\n`)
    process.exit(2)
  }
  if (options === null) {
    process.stdout.write(usage())
    return
  }
  serve(options).catch(fail)
}

main()
