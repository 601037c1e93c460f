// A child for pending-writes.spec.mjs: starts a put and a putWrites and
// awaits nothing else, so only the pending writes can keep it alive. Prints
// how each one ended, then exits on its own.
import { uuid6 } from '@langchain/langgraph-checkpoint'

import { AgentCoreSaver } from '../../index.js'

const [endpoint, memoryId] = process.argv.slice(2)
const saver = new AgentCoreSaver({ memoryId, endpoint, maxAttempts: 2 })
const config = { configurable: { thread_id: 'lone', checkpoint_ns: '' } }
const checkpoint = { v: 4, id: uuid6(0), ts: new Date().toISOString(), channel_values: {}, channel_versions: {}, versions_seen: {} }
const report = (what) => [() => console.log(`${what}: landed`), (err) => console.log(`${what}: ${err.name} ${err.operation}`)]

saver.put(config, checkpoint, { source: 'input', step: -1, parents: {} }, {}).then(...report('put'))
saver.putWrites({ configurable: { ...config.configurable, checkpoint_id: checkpoint.id } }, [['a', 1]], 'task').then(...report('putWrites'))
