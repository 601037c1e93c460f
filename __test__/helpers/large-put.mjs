// A child process for the crash test: stores a small checkpoint, says so,
// then starts a put of a large state in many parts and waits to be killed.
import { AgentCoreSaver } from '../../index.js'

const [endpoint, memoryId, megabytes] = process.argv.slice(2)
const saver = new AgentCoreSaver({ memoryId, endpoint, maxEventBytes: 256 * 1024, compress: false })
const config = { configurable: { thread_id: 'crash' } }
const checkpoint = (id, value) => ({
  v: 4,
  id,
  ts: new Date().toISOString(),
  channel_values: { state: value },
  channel_versions: { state: id.slice(0, 8) },
  versions_seen: {},
})
const metadata = { source: 'loop', step: 0, parents: {} }

const first = '1f1e6e60-0000-6000-8000-000000000001'
const stored = await saver.put(config, checkpoint(first, 'small'), metadata, { state: first.slice(0, 8) })
process.send({ stored: stored.configurable.checkpoint_id })
// Random text does not compress: the put is as big as the value.
const big = Buffer.alloc(Number(megabytes) * 1024 * 1024)
for (let i = 0; i < big.length; i++) big[i] = 97 + ((i * 7919) % 26)
const second = '1f1e6e60-0000-6000-8000-000000000002'
await saver.put({ configurable: { thread_id: 'crash', checkpoint_id: first } }, checkpoint(second, big.toString('latin1')), metadata, {
  state: second.slice(0, 8),
})
process.send({ finished: true })
