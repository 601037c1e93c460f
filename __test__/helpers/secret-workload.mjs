// A child process for the security test: a saver with secret-looking
// credentials and payloads, run into throttling, server errors and foreign
// events with the default logger, so everything it prints can be searched.
import { AgentCoreSaver } from '../../index.js'

const [endpoint, memoryId] = process.argv.slice(2)
// The credentials both as an option and in the environment (the parent sets
// AWS_*), so neither path may leak them.
const credentials = {
  accessKeyId: process.env.AWS_ACCESS_KEY_ID,
  secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY,
  sessionToken: process.env.AWS_SESSION_TOKEN,
}
const saver = new AgentCoreSaver({ memoryId, endpoint, maxAttempts: 2, credentials })
const fromEnv = new AgentCoreSaver({ memoryId, endpoint, maxAttempts: 2 })
const config = { configurable: { thread_id: 'secrets' } }
const checkpoint = {
  v: 4,
  id: '1f1e6ea0-0000-6000-8000-00000000000a',
  ts: new Date().toISOString(),
  channel_values: { note: 'PAYLOAD-SECRET-VALUE' },
  channel_versions: { note: 1 },
  versions_seen: {},
}
for (let i = 0; i < 20; i++) {
  try {
    await saver.put(config, checkpoint, { source: 'input', step: -1, parents: {}, memo: 'METADATA-SECRET' }, { note: 1 })
    await saver.putWrites({ configurable: { ...config.configurable, checkpoint_id: checkpoint.id } }, [['note', 'WRITE-SECRET']], 'task')
    await saver.getTuple(config)
    for await (const _ of saver.list(config));
  } catch (error) {
    // What an application would typically log: the message and stack, and
    // the whole error as console.error shows it (own properties, cause).
    console.error(`attempt ${i} failed: ${error.name}: ${error.message}\n${error.stack}`)
    console.error(error)
  }
  try {
    await fromEnv.getTuple(config)
  } catch (error) {
    console.error(`attempt ${i} failed: ${error.name}: ${error.message}`)
    console.error(error)
  }
}
