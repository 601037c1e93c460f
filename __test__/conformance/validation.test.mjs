// LangGraph's official checkpointer conformance suite, plus its opt-in
// delta channel history tests, against AgentCoreSaver. Run by vitest (the
// suite is written for it); `npm test` runs it and fails on any failure or
// skipped case.
import { deltaChannelHistoryTests, validate } from '@langchain/langgraph-checkpoint-validation'

import initializer from './initializer.mjs'

validate(initializer)
deltaChannelHistoryTests(initializer)
