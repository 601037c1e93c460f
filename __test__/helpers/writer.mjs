// A child process for the concurrent-writers test: one saver writing a chain
// of checkpoints, each with one pending write, to a thread another process
// writes at the same time. Reports each checkpoint once it is stored.
import { uuid6 } from '@langchain/langgraph-checkpoint'

import { AgentCoreSaver } from '../../index.js'

const [endpoint, memoryId, name, stepsArg] = process.argv.slice(2)
const saver = new AgentCoreSaver({ memoryId, endpoint })
// Start together with the other writer: the parent says go once both are loaded.
const go = new Promise((resolve) => process.once('message', resolve))
process.send({ ready: true })
await go
let parent
for (let step = 0; step < Number(stepsArg); step++) {
  const checkpoint = {
    v: 4,
    id: uuid6(step),
    ts: new Date().toISOString(),
    channel_values: { owner: name, step },
    channel_versions: { owner: 1, step: step + 1 },
    versions_seen: {},
  }
  const config = { configurable: { thread_id: 'shared', ...(parent ? { checkpoint_id: parent } : {}) } }
  const stored = await saver.put(config, checkpoint, { source: 'loop', step, parents: {}, writer: name }, { owner: 1, step: step + 1 })
  await saver.putWrites(stored, [['step', `${name}:${step}`]], `task-${name}-${step}`)
  parent = stored.configurable.checkpoint_id
  process.send({ id: parent, step, parentId: config.configurable.checkpoint_id })
}
process.send({ done: true })
