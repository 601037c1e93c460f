// `npm run demo`: a LangGraph.js graph checkpointed in AgentCore Memory.
//
// The first process runs a small support agent until it pauses on
// `interrupt()` for a human's approval. A second process, sharing nothing
// with the first but the local server's data directory, resumes the thread
// from AgentCore Memory and prints its state history.
//
// Against real AWS, drop startLocalMemory and pass your memoryId (and
// region) to AgentCoreSaver; nothing else changes.
import { spawnSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

import { AIMessage, HumanMessage } from '@langchain/core/messages'
import { Command, END, interrupt, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph'

import { AgentCoreSaver, startLocalMemory } from '../index.js'

const DATA_DIR = fileURLToPath(new URL('../.demo-data', import.meta.url))
const MEMORY_ID = 'demo-0123456789'
const THREAD = { configurable: { thread_id: 'ticket-4711', actor_id: 'customer:ada' } }

function buildGraph(checkpointer) {
  return new StateGraph(MessagesAnnotation)
    .addNode('draft', () => ({ messages: [new AIMessage('Refund of 30 EUR approved, pending review.')] }))
    .addNode('review', () => {
      const verdict = interrupt({ question: 'Send this reply to the customer?' })
      return { messages: [new HumanMessage(`Reviewer: ${verdict}`)] }
    })
    .addNode('send', () => ({ messages: [new AIMessage('Reply sent.')] }))
    .addEdge(START, 'draft')
    .addEdge('draft', 'review')
    .addEdge('review', 'send')
    .addEdge('send', END)
    .compile({ checkpointer })
}

/** Runs `work` with a saver on the local server kept in DATA_DIR. */
async function withSaver(work) {
  const server = await startLocalMemory({ dataDir: DATA_DIR, memoryId: MEMORY_ID })
  try {
    return await work(new AgentCoreSaver({ memoryId: server.memoryId, endpoint: server.endpoint }), server)
  } finally {
    await server.close()
  }
}

async function start() {
  rmSync(DATA_DIR, { recursive: true, force: true })
  await withSaver(async (saver) => {
    const result = await buildGraph(saver).invoke({ messages: [new HumanMessage('My order arrived broken.')] }, THREAD)
    const [pause] = result.__interrupt__
    console.log(`process ${process.pid}: the graph paused: "${pause.value.question}"`)
  })
  console.log(`process ${process.pid}: state saved under ${DATA_DIR}; resuming in a new process\n`)
  const second = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--resume'], { stdio: 'inherit' })
  process.exitCode = second.status ?? 1
}

async function resume() {
  await withSaver(async (saver, server) => {
    const graph = buildGraph(saver)
    const final = await graph.invoke(new Command({ resume: 'yes, send it' }), THREAD)
    console.log(`process ${process.pid}: resumed from AgentCore Memory; the conversation:`)
    for (const m of final.messages) console.log(`  ${m.constructor.name.padEnd(12)} ${m.content}`)
    console.log('\nstate history, newest first:')
    for await (const state of graph.getStateHistory(THREAD)) {
      const { step, source } = state.metadata
      const next = state.next.length ? state.next.join(', ') : '(done)'
      console.log(`  step ${String(step).padStart(2)}  ${source.padEnd(6)} next: ${next.padEnd(10)} ${state.config.configurable.checkpoint_id}`)
    }
    const { requests } = server.stats()
    const used = Object.entries(requests).filter(([, n]) => n > 0)
    console.log(`\nrequests this process made: ${used.map(([op, n]) => `${op} ${n}`).join(', ')}`)
  })
}

await (process.argv.includes('--resume') ? resume() : start())
