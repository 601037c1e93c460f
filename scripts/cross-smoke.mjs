// The smoke test of a cross-built addon, run by scripts/build-cross.sh with
// the target's own Node (under qemu for arm64): the package entry as users
// load it, one put and one getTuple against a running local server.
// Usage: node scripts/cross-smoke.mjs ENDPOINT MEMORY_ID
// (NAPI_RS_NATIVE_LIBRARY_PATH names the .node that native.js loads.)
import assert from 'node:assert/strict'

import { emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint'

import { AgentCoreSaver } from '../index.js'

const [endpoint, memoryId] = process.argv.slice(2)
assert.ok(endpoint && memoryId, 'usage: cross-smoke.mjs ENDPOINT MEMORY_ID')

async function requestCounts() {
  const response = await fetch(`${endpoint}/_local/stats`)
  return (await response.json()).requests
}

const saver = new AgentCoreSaver({ memoryId, endpoint })
const config = { configurable: { thread_id: `cross-smoke-${process.arch}`, checkpoint_ns: '' } }
const checkpoint = {
  ...emptyCheckpoint(),
  id: uuid6(-1),
  channel_values: { answer: 'forty-two', bytes: new Uint8Array([0, 1, 254, 255]) },
  channel_versions: { answer: 1, bytes: 1 },
}
const before = await requestCounts()
const written = await saver.put(config, checkpoint, { source: 'input', step: -1, parents: {} }, { answer: 1, bytes: 1 })
const tuple = await saver.getTuple(config)
const after = await requestCounts()

assert.equal(written.configurable.checkpoint_id, checkpoint.id)
assert.equal(tuple?.checkpoint.id, checkpoint.id)
assert.deepEqual(tuple.checkpoint.channel_values, checkpoint.channel_values)
assert.deepEqual(tuple.metadata, { source: 'input', step: -1, parents: {} })
// Through the server, not from some cache: one CreateEvent, at least one read.
assert.equal(after.CreateEvent - before.CreateEvent, 1)
assert.ok(after.ListEvents + after.GetEvent > before.ListEvents + before.GetEvent)
console.log(`cross smoke (${process.version} ${process.platform}-${process.arch}): put + getTuple ok`)
