// LangChain messages through a MessagesAnnotation graph: they come back from
// a new saver as the same classes with the same fields.
import { AIMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage } from '@langchain/core/messages'
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph'
import test from 'ava'

import { collect, counters, store, thread, useLocalMemory } from './fixtures/graphs.mjs'

const local = useLocalMemory(test)

const TOOL_CALLS = [
  { id: 'call_1', name: 'weather', args: { city: 'Zürich', units: 'metric', days: [1, 2] }, type: 'tool_call' },
  { id: 'call_2', name: 'time', args: { tz: 'Europe/Zurich' }, type: 'tool_call' },
]

/** agent (scripted) -> tools -> agent -> END */
function agentGraph(count, saver) {
  return new StateGraph(MessagesAnnotation)
    .addNode('agent', (s) => {
      const turn = count.hit('agent')
      if (turn === 1) {
        return { messages: [new AIMessage({ content: 'Let me check.', tool_calls: TOOL_CALLS, id: 'ai-1' })] }
      }
      const tools = s.messages.filter((m) => ToolMessage.isInstance(m))
      return { messages: [new AIMessage({ content: `Done: ${tools.map((m) => m.content).join(' / ')}`, id: `ai-${turn}` })] }
    })
    .addNode('tools', (s) => {
      count.hit('tools')
      const last = s.messages.at(-1)
      return {
        messages: last.tool_calls.map(
          (call) =>
            new ToolMessage({
              content: `${call.name}(${JSON.stringify(call.args)}) = ok`,
              tool_call_id: call.id,
              name: call.name,
              id: `tool-${call.id}`,
            }),
        ),
      }
    })
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', (s) => (s.messages.at(-1).tool_calls?.length ? 'tools' : END), ['tools', END])
    .addEdge('tools', 'agent')
    .compile({ checkpointer: saver })
}

function checkConversation(t, messages) {
  t.is(messages.length, 6)
  const [system, human, ai, tool1, tool2, final] = messages
  t.true(system instanceof SystemMessage)
  t.is(system.content, 'Be brief.')

  t.true(human instanceof HumanMessage)
  t.deepEqual(human.content, [
    { type: 'text', text: 'Weather in Zürich? 🌦' },
    { type: 'text', text: 'and the time' },
  ])
  t.is(human.id, 'human-1')
  t.deepEqual(human.additional_kwargs, { source: 'cli' })

  t.true(ai instanceof AIMessage)
  t.is(ai.content, 'Let me check.')
  t.is(ai.id, 'ai-1')
  t.deepEqual(
    ai.tool_calls.map(({ id, name, args }) => ({ id, name, args })),
    TOOL_CALLS.map(({ id, name, args }) => ({ id, name, args })),
  )

  for (const [message, call] of [
    [tool1, TOOL_CALLS[0]],
    [tool2, TOOL_CALLS[1]],
  ]) {
    t.true(message instanceof ToolMessage)
    t.is(message.tool_call_id, call.id)
    t.is(message.name, call.name)
    t.is(message.content, `${call.name}(${JSON.stringify(call.args)}) = ok`)
  }

  t.true(final instanceof AIMessage)
  t.is(final.content, `Done: ${tool1.content} / ${tool2.content}`)
  t.deepEqual(final.tool_calls, [])
}

const input = () => ({
  messages: [
    new SystemMessage('Be brief.'),
    new HumanMessage({
      content: [
        { type: 'text', text: 'Weather in Zürich? 🌦' },
        { type: 'text', text: 'and the time' },
      ],
      id: 'human-1',
      additional_kwargs: { source: 'cli' },
    }),
  ],
})

test('Human, AI (with tool_calls) and Tool messages come back from a new saver as the same classes', async (t) => {
  const s = store(local)
  const config = thread('messages')
  const count = counters()
  const result = await agentGraph(count, s.saver()).invoke(input(), config)
  checkConversation(t, result.messages)
  t.deepEqual(count.calls, { agent: 2, tools: 1 })

  // Through the graph, with a new saver.
  const state = await agentGraph(counters(), s.saver()).getState(config)
  checkConversation(t, state.values.messages)
  t.deepEqual(
    state.values.messages.map((m) => m.id),
    result.messages.map((m) => m.id),
  )

  // Straight from a new saver's getTuple.
  const tuple = await s.saver().getTuple(config)
  checkConversation(t, tuple.checkpoint.channel_values.messages)

  // An older checkpoint: the AI message with tool calls, before the tools ran.
  const history = await collect(agentGraph(counters(), s.saver()).getStateHistory(config))
  const beforeTools = history.find((h) => h.next[0] === 'tools')
  const last = beforeTools.values.messages.at(-1)
  t.true(last instanceof AIMessage)
  t.deepEqual(
    last.tool_calls.map((c) => c.id),
    ['call_1', 'call_2'],
  )
  t.is(beforeTools.values.messages.length, 3)
})

test('a conversation continues on a new saver and RemoveMessage through updateState sticks', async (t) => {
  const s = store(local)
  const config = thread('messages-continue')
  await agentGraph(counters(), s.saver()).invoke(input(), config)

  // Remove the system prompt; the state read back from another saver lacks it.
  const before = await agentGraph(counters(), s.saver()).getState(config)
  const systemId = before.values.messages[0].id
  t.truthy(systemId)
  await agentGraph(counters(), s.saver()).updateState(config, { messages: [new RemoveMessage({ id: systemId })] })
  const trimmed = await agentGraph(counters(), s.saver()).getState(config)
  t.is(trimmed.values.messages.length, 5)
  t.false(trimmed.values.messages.some((m) => m instanceof SystemMessage))
  t.is(trimmed.metadata.source, 'update')

  // A second turn from yet another saver sees the trimmed conversation.
  const count = counters()
  // The scripted agent answers without tools from its second turn on; its
  // third turn's message gets a new id ('ai-3').
  count.hit('agent')
  count.hit('agent')
  const next = await agentGraph(count, s.saver()).invoke({ messages: [new HumanMessage({ content: 'thanks', id: 'human-2' })] }, config)
  t.is(next.messages.length, 7)
  t.true(next.messages[5] instanceof HumanMessage)
  t.is(next.messages[5].content, 'thanks')
  t.true(next.messages[6] instanceof AIMessage)
  t.is(next.messages[6].id, 'ai-3')
  t.deepEqual(
    next.messages.slice(0, 5).map((m) => m.id),
    trimmed.values.messages.map((m) => m.id),
  )
  t.deepEqual(count.calls, { agent: 3 })
})
