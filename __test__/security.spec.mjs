// Credentials and payload contents never reach errors or logs at default
// levels, whatever goes wrong.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'

import { BedrockAgentCoreClient, CreateEventCommand } from '@aws-sdk/client-bedrock-agentcore'
import test from 'ava'

import { startLocalMemory } from '../index.js'

const SECRETS = {
  AWS_ACCESS_KEY_ID: 'AKIASECRETACCESSKEY9',
  AWS_SECRET_ACCESS_KEY: 'secret-access-key-never-printed',
  AWS_SESSION_TOKEN: 'session-token-never-printed',
}

test('a failing workload prints neither credentials nor payload contents', async (t) => {
  t.timeout(120_000)
  const server = await startLocalMemory({ throttleRate: 0.4, errorRate: 0.3, seed: 5 })
  t.teardown(() => server.close())
  const memoryId = `secure-${randomBytes(5).toString('hex')}`
  // A foreign event with secret text in the thread, so warnings are printed too.
  const sdk = new BedrockAgentCoreClient({ endpoint: server.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' }, maxAttempts: 20 })
  await sdk.send(
    new CreateEventCommand({
      memoryId,
      actorId: 'langgraph',
      sessionId: 'secrets',
      eventTimestamp: new Date(),
      payload: [{ conversational: { content: { text: 'CHAT-SECRET' }, role: 'USER' } }, { blob: { lgc: 1, enc: 'msgpack', data: 'BLOB-SECRET' } }],
    }),
  )
  const child = spawn(process.execPath, [fileURLToPath(new URL('./helpers/secret-workload.mjs', import.meta.url)), server.endpoint, memoryId], {
    env: { ...process.env, ...SECRETS, AWS_REGION: 'us-east-1', RUST_LOG: undefined },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (d) => (output += d))
  child.stderr.on('data', (d) => (output += d))
  const [code] = await once(child, 'exit')
  t.is(code, 0)
  t.regex(output, /failed: (ThrottledException|ServiceException)/, 'the workload did fail and log')
  t.regex(output, /skipped event/, 'and warned about the foreign events')
  for (const secret of [...Object.values(SECRETS), 'PAYLOAD-SECRET-VALUE', 'METADATA-SECRET', 'WRITE-SECRET', 'CHAT-SECRET', 'BLOB-SECRET']) {
    t.false(output.includes(secret), `${secret} was printed`)
  }
})
