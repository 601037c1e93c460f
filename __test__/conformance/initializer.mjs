// The conformance suite's initializer: every checkpointer it creates is an
// AgentCoreSaver on its own fresh memory of one local server, reached over
// HTTP through the AWS SDK, exactly as an app would use it.
import { randomBytes } from 'node:crypto'

import { AgentCoreSaver, startLocalMemory } from '../../index.js'

let server

/** A memoryId no other checkpointer uses: the suite reuses thread ids. */
function freshMemoryId() {
  return `conformance-${randomBytes(5).toString('hex')}`
}

export default {
  checkpointerName: 'AgentCoreSaver',
  beforeAllTimeout: 60_000,
  async beforeAll() {
    server = await startLocalMemory()
  },
  async afterAll() {
    await server?.close()
  },
  async createCheckpointer() {
    return new AgentCoreSaver({ memoryId: freshMemoryId(), endpoint: server.endpoint })
  },
}
