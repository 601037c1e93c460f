// interrupt() and breakpoints, resumed through a new AgentCoreSaver and a
// newly compiled graph, as a new process would resume them.
import { Annotation, Command, END, START, StateGraph, interrupt } from '@langchain/langgraph'
import test from 'ava'

import { appended, counters, store, thread, useLocalMemory } from './fixtures/graphs.mjs'

const local = useLocalMemory(test)

const State = Annotation.Root({
  log: appended(),
  answer: Annotation(),
})

/** draft -> ask (interrupts) -> finish */
function approvalGraph(count) {
  return new StateGraph(State)
    .addNode('draft', () => {
      count.hit('draft')
      return { log: ['drafted'] }
    })
    .addNode('ask', () => {
      count.hit('ask')
      const answer = interrupt({ question: 'approve?', options: ['yes', 'no'], nested: { n: 1 } })
      return { log: [`asked:${answer.verdict}`], answer }
    })
    .addNode('finish', (state) => {
      count.hit('finish')
      return { log: [`finished:${state.answer.verdict}`] }
    })
    .addEdge(START, 'draft')
    .addEdge('draft', 'ask')
    .addEdge('ask', 'finish')
    .addEdge('finish', END)
}

test('interrupt() is resumed with Command({ resume }) through a new saver and a new graph', async (t) => {
  const s = store(local)
  const config = thread('approval-1')
  const first = counters()
  const graph = approvalGraph(first).compile({ checkpointer: s.saver() })

  const paused = await graph.invoke({ log: ['start'] }, config)
  t.deepEqual(paused.log, ['start', 'drafted'])
  t.is(paused.__interrupt__.length, 1)
  t.deepEqual(paused.__interrupt__[0].value, { question: 'approve?', options: ['yes', 'no'], nested: { n: 1 } })
  t.deepEqual(first.calls, { draft: 1, ask: 1 })

  // What a new process sees before resuming.
  const second = counters()
  const resumed = approvalGraph(second).compile({ checkpointer: s.saver() })
  const waiting = await resumed.getState(config)
  t.deepEqual(waiting.next, ['ask'])
  t.deepEqual(waiting.values.log, ['start', 'drafted'])
  t.is(waiting.tasks.length, 1)
  t.is(waiting.tasks[0].name, 'ask')
  t.is(waiting.tasks[0].interrupts.length, 1)
  t.is(waiting.tasks[0].interrupts[0].id, paused.__interrupt__[0].id)
  t.deepEqual(waiting.tasks[0].interrupts[0].value, paused.__interrupt__[0].value)

  const done = await resumed.invoke(new Command({ resume: { verdict: 'yes', note: 'ünï:|' } }), config)
  t.deepEqual(done.log, ['start', 'drafted', 'asked:yes', 'finished:yes'])
  t.deepEqual(done.answer, { verdict: 'yes', note: 'ünï:|' })
  t.is(done.__interrupt__, undefined)
  // Only the interrupted node ran again; draft's result came from the checkpoint.
  t.deepEqual(second.calls, { ask: 1, finish: 1 })

  const final = await approvalGraph(counters()).compile({ checkpointer: s.saver() }).getState(config)
  t.deepEqual(final.next, [])
  t.deepEqual(final.values.log, done.log)
  t.deepEqual(final.tasks, [])
})

test('two interrupt() calls in one node are resumed one at a time, each through a new saver', async (t) => {
  const s = store(local)
  const config = thread('two-questions')
  const count = counters()
  const build = () =>
    new StateGraph(State)
      .addNode('form', () => {
        count.hit('form')
        const name = interrupt('name?')
        const city = interrupt(`city of ${name}?`)
        return { log: [`${name}@${city}`] }
      })
      .addEdge(START, 'form')
      .addEdge('form', END)
      .compile({ checkpointer: s.saver() })

  const first = await build().invoke({ log: [] }, config)
  t.is(first.__interrupt__[0].value, 'name?')

  const second = await build().invoke(new Command({ resume: 'Zoë' }), config)
  t.is(second.__interrupt__.length, 1)
  t.is(second.__interrupt__[0].value, 'city of Zoë?')
  t.deepEqual(second.log, [])

  // (LangGraph itself reports next = [] here, as with MemorySaver: the
  // task has a resume write; the pending interrupt shows in tasks.)
  const waiting = await build().getState(config)
  t.deepEqual(waiting.tasks.map((task) => task.name), ['form'])
  t.is(waiting.tasks[0].interrupts.length, 1)
  t.is(waiting.tasks[0].interrupts[0].value, 'city of Zoë?')
  t.is(waiting.tasks[0].interrupts[0].id, second.__interrupt__[0].id)

  const third = await build().invoke(new Command({ resume: 'Kraków' }), config)
  t.deepEqual(third.log, ['Zoë@Kraków'])
  t.is(third.__interrupt__, undefined)
  t.is(count.of('form'), 3)
})

test('parallel interrupts are resumed together by interrupt id through a new saver', async (t) => {
  const s = store(local)
  const config = thread('parallel-interrupts')
  const count = counters()
  const build = () =>
    new StateGraph(State)
      .addNode('left', () => {
        count.hit('left')
        return { log: [`left:${interrupt('left?')}`] }
      })
      .addNode('right', () => {
        count.hit('right')
        return { log: [`right:${interrupt('right?')}`] }
      })
      .addNode('join', (state) => {
        count.hit('join')
        return { log: [`join:${state.log.length}`] }
      })
      .addEdge(START, 'left')
      .addEdge(START, 'right')
      .addEdge(['left', 'right'], 'join')
      .addEdge('join', END)
      .compile({ checkpointer: s.saver() })

  const paused = await build().invoke({ log: [] }, config)
  t.is(paused.__interrupt__.length, 2)
  const ids = Object.fromEntries(paused.__interrupt__.map((i) => [i.value, i.id]))
  t.deepEqual(Object.keys(ids).sort(), ['left?', 'right?'])

  const waiting = await build().getState(config)
  t.deepEqual([...waiting.next].sort(), ['left', 'right'])
  t.deepEqual(waiting.tasks.flatMap((task) => task.interrupts.map((i) => i.id)).sort(), Object.values(ids).sort())

  const done = await build().invoke(new Command({ resume: { [ids['left?']]: 'L', [ids['right?']]: 'R' } }), config)
  t.deepEqual([...done.log].sort(), ['join:2', 'left:L', 'right:R'])
  t.is(done.__interrupt__, undefined)
  t.deepEqual(count.calls, { left: 2, right: 2, join: 1 })
})

test('a static breakpoint (interruptBefore) is resumed with invoke(null) through a new saver', async (t) => {
  const s = store(local)
  const config = thread('breakpoint')
  const count = counters()
  const build = () =>
    approvalGraph(count)
      .compile({ checkpointer: s.saver(), interruptBefore: ['finish'] })

  // Answer the interrupt first, then stop before 'finish'.
  await build().invoke({ log: [] }, config)
  const stopped = await build().invoke(new Command({ resume: { verdict: 'no' } }), config)
  t.deepEqual(stopped.log, ['drafted', 'asked:no'])
  t.is(count.of('finish'), 0)

  const waiting = await build().getState(config)
  t.deepEqual(waiting.next, ['finish'])
  t.deepEqual(waiting.tasks.map((task) => task.name), ['finish'])

  const done = await build().invoke(null, config)
  t.deepEqual(done.log, ['drafted', 'asked:no', 'finished:no'])
  t.deepEqual(count.calls, { draft: 1, ask: 2, finish: 1 })
})
