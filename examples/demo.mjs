// A round trip through the local AgentCore Memory server with the official
// AWS SDK: write a few events, restart the server from the same data
// directory, and read them back. Run it with `npm run demo`, which builds
// the addon first. (The checkpoint saver's demo will replace this one.)
import { fileURLToPath } from 'node:url'

import { CreateEventCommand, BedrockAgentCoreClient, paginateListEvents } from '@aws-sdk/client-bedrock-agentcore'

import { startLocalMemory } from '../index.js'

// Kept between runs, so each run finds the events of the earlier ones.
// Delete the directory to start over.
const DATA_DIR = fileURLToPath(new URL('../.demo-data', import.meta.url))
// Any well-formed memoryId works locally; a fixed one finds earlier runs' events.
const WHERE = { memoryId: 'demo-memory-0123456789', actorId: 'demo-user', sessionId: 'demo-thread' }

function clientFor(endpoint) {
  // The local server requires SigV4 signatures but does not check them.
  return new BedrockAgentCoreClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  })
}

async function writeTurns(client, turns) {
  const ids = []
  for (const [i, text] of turns.entries()) {
    const { event } = await client.send(
      new CreateEventCommand({
        ...WHERE,
        // A millisecond apart: events are ordered by time, to the millisecond.
        eventTimestamp: new Date(Date.now() + i),
        payload: [{ blob: { role: i % 2 ? 'assistant' : 'user', text } }],
      }),
    )
    ids.push(event.eventId)
  }
  return ids
}

async function readAll(client) {
  const events = []
  for await (const page of paginateListEvents({ client }, WHERE)) events.push(...page.events)
  return events
}

async function main() {
  const writer = await startLocalMemory({ dataDir: DATA_DIR })
  console.log(`local AgentCore Memory on ${writer.endpoint}, data in ${DATA_DIR}`)
  const written = await writeTurns(clientFor(writer.endpoint), ['Hi!', 'Hello. How can I help?', 'Remember me.'])
  console.log(`wrote ${written.length} events; restarting the server from the same directory\n`)
  await writer.close()

  const reader = await startLocalMemory({ dataDir: DATA_DIR })
  try {
    const events = await readAll(clientFor(reader.endpoint))
    console.log(`${events.length} events in ${WHERE.actorId}/${WHERE.sessionId}, newest first:`)
    for (const event of events) {
      const { role, text } = event.payload[0].blob
      const mark = written.includes(event.eventId) ? '*' : ' '
      console.log(`${mark} ${event.eventId}  ${event.eventTimestamp.toISOString()}  ${role}: ${text}`)
    }
    if (events.length > written.length) console.log('\n* written by this run; the others by earlier runs')
  } finally {
    await reader.close()
  }
}

await main()
