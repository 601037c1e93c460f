'use strict'
// Errors from the native layer arrive as `[code status operation] message`
// (napi carries only a message across an async boundary). This turns them
// into Errors whose `name` is the service's error name, with `status` and
// `operation` set, so callers can branch on `err.name === 'ThrottledException'`.

const TAG = /^\[(\S+) (\d+|-) (\S+)\] /

class AgentCoreError extends Error {
  constructor(message, { name, status, operation, cause } = {}) {
    super(message, cause ? { cause } : undefined)
    this.name = name ?? 'AgentCoreError'
    this.code = this.name
    if (status !== undefined) this.status = status
    if (operation !== undefined) this.operation = operation
  }
}

function fromNative(err) {
  const match = typeof err?.message === 'string' ? TAG.exec(err.message) : null
  if (!match) return err
  const [tag, name, status, operation] = match
  return new AgentCoreError(err.message.slice(tag.length), {
    name,
    status: status === '-' ? undefined : Number(status),
    operation: operation === '-' ? undefined : operation,
  })
}

/** Runs a native call, rethrowing its errors in their JS form. */
async function native(call) {
  try {
    return await call()
  } catch (err) {
    throw fromNative(err)
  }
}

function nativeSync(call) {
  try {
    return call()
  } catch (err) {
    throw fromNative(err)
  }
}

module.exports = { AgentCoreError, fromNative, native, nativeSync }
