'use strict'
// Checks of put/putWrites arguments that the native layer would otherwise
// reject with a conversion message naming its own structs ("Failed to
// convert JavaScript value `Number 5` into rust type `String` on
// NativePut.checkpointId", "writes.map is not a function"): here the error
// names the argument as the caller wrote it. Messages give the type of a
// bad value, never the value, which may be payload.

const { describe } = require('./options.js')

/** `put`'s checkpoint needs a string id; the parent id in the config, if any, a string. */
function checkPut(config, checkpoint) {
  if (checkpoint === null || typeof checkpoint !== 'object') {
    throw new TypeError(`AgentCoreSaver.put: checkpoint must be an object, got ${describe(checkpoint)}`)
  }
  if (typeof checkpoint.id !== 'string' || checkpoint.id === '') {
    throw new TypeError(`AgentCoreSaver.put: checkpoint.id must be a non-empty string, got ${describe(checkpoint.id)}`)
  }
  const parent = config.configurable.checkpoint_id
  if (parent !== undefined && typeof parent !== 'string') {
    throw new TypeError(`AgentCoreSaver.put: config.configurable.checkpoint_id must be a string, got ${describe(parent)}`)
  }
}

/** `putWrites`' writes are an array of [channel, value] pairs with string channels. */
function checkWrites(writes) {
  if (!Array.isArray(writes)) {
    throw new TypeError(`AgentCoreSaver.putWrites: writes must be an array of [channel, value] pairs, got ${describe(writes)}`)
  }
  writes.forEach((write, i) => {
    if (!Array.isArray(write) || typeof write[0] !== 'string') {
      throw new TypeError(`AgentCoreSaver.putWrites: writes[${i}] must be a [channel, value] pair with a string channel`)
    }
  })
}

/** A thread (or run) id: a non-empty string. */
function checkThreadId(method, name, value) {
  if (typeof value !== 'string' || value === '') {
    throw new TypeError(`AgentCoreSaver.${method}: ${name} must be a non-empty string, got ${describe(value)}`)
  }
}

function checkIdList(method, name, values) {
  if (!Array.isArray(values)) {
    throw new TypeError(`AgentCoreSaver.${method}: ${name} must be an array of strings, got ${describe(values)}`)
  }
  values.forEach((value, i) => checkThreadId(method, `${name}[${i}]`, value))
  return [...values]
}

module.exports = { checkIdList, checkPut, checkThreadId, checkWrites }
