'use strict'
// AgentCoreSaver's options: checked at construction, so a typo or a bad
// memoryId fails where it is written rather than on the first request.

const OPTIONS = {
  memoryId: 'string',
  actorId: 'string',
  region: 'string',
  endpoint: 'string',
  credentials: 'object',
  serde: 'object',
  logger: 'object',
  maxAttempts: 'number',
  connectTimeoutMs: 'number',
  requestTimeoutMs: 'number',
  operationTimeoutMs: 'number',
  maxEventBytes: 'number',
  compress: 'boolean',
  cache: 'boolean',
  shallow: 'boolean',
}

/** The smallest request-size limit: below it, the envelope of each part would not fit. */
const MIN_EVENT_BYTES = 16 * 1024

function resolveOptions(options) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError('AgentCoreSaver: options must be an object such as { memoryId }')
  }
  for (const [key, value] of Object.entries(options)) {
    const expected = OPTIONS[key]
    if (expected === undefined) throw new TypeError(unknownOption(key))
    if (value !== undefined && typeof value !== expected) {
      throw new TypeError(`AgentCoreSaver: option '${key}' must be a ${expected}, got ${describe(value)}`)
    }
  }
  const memoryId = options.memoryId ?? process.env.AGENTCORE_MEMORY_ID
  if (!memoryId) {
    throw new TypeError("AgentCoreSaver: option 'memoryId' is required (or set AGENTCORE_MEMORY_ID)")
  }
  for (const key of ['maxAttempts', 'connectTimeoutMs', 'requestTimeoutMs', 'operationTimeoutMs', 'maxEventBytes']) {
    const n = options[key]
    if (n !== undefined && !(Number.isInteger(n) && n > 0)) {
      throw new TypeError(`AgentCoreSaver: option '${key}' must be a positive integer, got ${describe(n)}`)
    }
  }
  if (options.maxEventBytes !== undefined && options.maxEventBytes < MIN_EVENT_BYTES) {
    throw new RangeError(`AgentCoreSaver: option 'maxEventBytes' must be at least ${MIN_EVENT_BYTES}, got ${options.maxEventBytes}`)
  }
  return {
    serde: options.serde,
    logger: checkLogger(options.logger),
    native: {
      memoryId,
      actorId: options.actorId,
      region: options.region,
      endpoint: options.endpoint,
      credentials: checkCredentials(options.credentials),
      maxAttempts: options.maxAttempts,
      connectTimeoutMs: options.connectTimeoutMs,
      requestTimeoutMs: options.requestTimeoutMs,
      operationTimeoutMs: options.operationTimeoutMs,
      maxEventBytes: options.maxEventBytes,
      compress: options.compress,
      cache: options.cache,
      shallow: options.shallow,
    },
  }
}

function checkCredentials(credentials) {
  if (credentials === undefined) return undefined
  const { accessKeyId, secretAccessKey, sessionToken } = credentials
  if (typeof accessKeyId !== 'string' || typeof secretAccessKey !== 'string') {
    throw new TypeError("AgentCoreSaver: option 'credentials' needs string 'accessKeyId' and 'secretAccessKey'")
  }
  if (sessionToken !== undefined && typeof sessionToken !== 'string') {
    throw new TypeError("AgentCoreSaver: option 'credentials.sessionToken' must be a string")
  }
  return { accessKeyId, secretAccessKey, sessionToken }
}

function checkLogger(logger) {
  if (logger === undefined) return { warn: (message) => console.warn(`[langgraph-checkpoint-agentcore] ${message}`) }
  if (typeof logger.warn !== 'function') throw new TypeError("AgentCoreSaver: option 'logger' needs a warn(message) method")
  return logger
}

function unknownOption(key) {
  const near = Object.keys(OPTIONS).find((known) => distance(known.toLowerCase(), key.toLowerCase()) <= 2)
  return `AgentCoreSaver: unknown option '${key}'` + (near ? `; did you mean '${near}'?` : '')
}

/** Levenshtein distance, for suggesting the option a typo meant. */
function distance(a, b) {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const next = [i]
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    row = next
  }
  return row[b.length]
}

function describe(value) {
  if (value === '') return 'an empty string'
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value
}

module.exports = { resolveOptions, describe }
