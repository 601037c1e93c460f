// The benchmark: every saver against the same local server (a separate
// process, so the client's CPU is measured apart from the server's), at 0
// and 10 ms injected latency; then a report in bench/results/. Run through
// `npm run bench` (scripts/bench.mjs), which builds what is missing first.
//   node bench/run.mjs [--quick] [--python PATH | --python-skipped REASON]
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

import { MemorySaver } from '@langchain/langgraph-checkpoint'

import { AgentCoreSaver } from '../index.js'
import { addonBuild } from './addon-build.mjs'
import { chart } from './chart.mjs'
import { report } from './report.mjs'
import { chatMessages, gzipRatio } from './text.mjs'
import { chatBytes, graphWall, operations, smallMessages, stepReply } from './workload.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.join(here, '..')
const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    // The virtualenv's Python with langgraph-checkpoint-aws installed.
    python: { type: 'string' },
    // Why the Python saver is left out, when it is.
    'python-skipped': { type: 'string' },
    // The command as the user typed it, for the report.
    command: { type: 'string', default: 'node bench/run.mjs' },
  },
})

const plan = {
  latencies: [0, 10],
  lengths: args.quick ? [1, 100] : [1, 100, 1000],
  reps: args.quick ? 20 : 100,
  chatSizes: [10, 100, 500],
  graphRuns: args.quick ? 3 : 7,
  scaleThreads: args.quick ? 100 : 1000,
  scaleSupersteps: 20,
  rssTargetMb: 300,
}

/** A local server as its own process; resolves once it prints its endpoint. */
async function startServer(latencyMs, extra = []) {
  const cli = path.join(root, 'bin', 'agentcore-memory-local.js')
  const child = spawn(process.execPath, [cli, '--port', '0', '--latency-ms', String(latencyMs), ...extra], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const lines = createInterface({ input: child.stdout })
  const [line] = await once(lines, 'line')
  const endpoint = line.match(/listening on (\S+)/)?.[1]
  if (!endpoint) throw new Error(`unexpected first line from the local server: ${line}`)
  return {
    endpoint,
    pid: child.pid,
    cpuMs: () => processCpuMs(child.pid),
    close: async () => {
      child.kill('SIGTERM')
      await once(child, 'exit')
    },
  }
}

/** A process's user + system CPU time, from /proc (0 where there is none). */
function processCpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    // utime and stime, in clock ticks: 100 a second on Linux.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
  } catch {
    return 0
  }
}

// A memoryId of the form the saver requires (a name, a dash, 10 letters or
// digits), new for each series so that no two share a session.
const memoryId = (label) => `bench${label.replace(/[^a-z0-9]/gi, '').slice(0, 20)}-${Math.random().toString(36).slice(2, 12).padEnd(10, '0')}`

/** The JS savers of the operations and graph measurements. */
const jsSeries = (endpoint) => [
  { label: 'AgentCoreSaver', make: (id) => new AgentCoreSaver({ memoryId: id, endpoint }) },
  { label: 'AgentCoreSaver (cache)', make: (id) => new AgentCoreSaver({ memoryId: id, endpoint, cache: true }) },
  { label: 'MemorySaver (floor)', make: () => new MemorySaver(), inProcess: true },
]

/** The JS savers of the chat bytes measurement (MemorySaver sends nothing). */
const chatSeries = (endpoint) => [
  { label: 'AgentCoreSaver', make: (id) => new AgentCoreSaver({ memoryId: id, endpoint }) },
  { label: 'AgentCoreSaver (compress: false)', make: (id) => new AgentCoreSaver({ memoryId: id, endpoint, compress: false }) },
]

/**
 * The saver of a series, or undefined after noting in `unavailable` why
 * the constructor refused it (an option this build does not have yet).
 */
function construct(series, id, unavailable) {
  try {
    return series.make(id)
  } catch (error) {
    unavailable[series.label] = error.message
    return undefined
  }
}

/** Runs bench/python_saver.py on one job (passed on stdin) and returns its JSON answer. */
function runPython(python, job) {
  return new Promise((resolve, reject) => {
    const child = spawn(python, [path.join(here, 'python_saver.py')], { stdio: ['pipe', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.on('error', reject)
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`bench/python_saver.py (${job.kind}) exited with ${code}`))))
    child.stdin.end(JSON.stringify(job))
  })
}

/**
 * Node's flags for the bounded runs: an old space capped at 200 MB and
 * young semispaces of 4 MB, as a memory-limited deployment sets them. With
 * the defaults on this 24 GiB machine V8 lets garbage grow to hundreds of
 * megabytes before collecting it, LangGraph's included.
 */
const BOUNDED_FLAGS = ['--max-old-space-size=200', '--max-semi-space-size=4']

/** bench/scale.mjs in a child process of its own, so that its peak RSS is its own. */
async function scale(flags, kind, durability, endpoint, rate = 0) {
  const argv = [...flags, path.join(here, 'scale.mjs'), kind, endpoint ?? '-', memoryId('scale'), String(plan.scaleThreads), durability, String(rate)]
  console.error(`bench: ${kind}, ${durability}, ${plan.scaleThreads} threads x ${plan.scaleSupersteps} supersteps at once${flags.length ? ` (${flags.join(' ')})` : ''}`)
  const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  child.stdout.on('data', (d) => (out += d))
  const [code] = await once(child, 'exit')
  if (code !== 0) throw new Error(`bench/scale.mjs ${kind} ${durability} exited with ${code}`)
  return JSON.parse(out)
}

/**
 * Under each set of Node flags and each durability: AgentCoreSaver; a saver
 * that stores nothing but completes writes at the rate AgentCoreSaver just
 * reached (LangGraph's own cost of the same backlog); then MemorySaver and
 * no checkpointer at all.
 */
async function scaleRuns() {
  const out = {}
  for (const [profile, flags] of [['default', []], ['bounded', BOUNDED_FLAGS]]) {
    const rows = {}
    for (const durability of ['async', 'sync']) {
      const server = await startServer(0, ['--max-in-flight', '4096'])
      try {
        const serverCpu = server.cpuMs()
        const ours = await scale(flags, 'agentcore', durability, server.endpoint)
        ours.serverCpuSeconds = (server.cpuMs() - serverCpu) / 1000
        rows[`AgentCoreSaver, ${durability}`] = ours
        // Each put and putWrites here is one CreateEvent.
        const rate = Math.round(ours.requests.CreateEvent / ours.seconds)
        rows[`no-op saver at the same write rate, ${durability}`] = await scale(flags, 'paced', durability, undefined, rate)
      } finally {
        await server.close()
      }
    }
    rows['MemorySaver'] = await scale(flags, 'memory', 'async')
    rows['no checkpointer (LangGraph alone)'] = await scale(flags, 'none', 'async')
    out[profile] = { flags: flags.join(' '), rows }
  }
  return out
}

async function main() {
  const python = args.python
  const results = {
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model,
      memoryGiB: Math.round(os.totalmem() / 2 ** 30),
      os: `${os.type()} ${os.release()}`,
      node: process.version,
      addonBuild: addonBuild(root),
    },
    command: args.command,
    plan,
    python: python ? await runPython(python, { kind: 'versions' }) : { skipped: args['python-skipped'] ?? 'not asked for' },
    unavailable: {},
    operations: {},
    graphWallMs: {},
    chatBytes: {},
  }
  const chat = chatMessages(Math.max(...plan.chatSizes))
  results.chatGzipRatio = gzipRatio(chat)
  for (const latencyMs of plan.latencies) {
    const server = await startServer(latencyMs)
    const common = { endpoint: server.endpoint, reps: plan.reps, lengths: plan.lengths, serverCpuMs: server.cpuMs }
    try {
      const ops = (results.operations[latencyMs] = {})
      const walls = (results.graphWallMs[latencyMs] = {})
      for (const series of jsSeries(server.endpoint)) {
        const id = memoryId(series.label)
        const saver = construct(series, id, results.unavailable)
        if (!saver) continue
        console.error(`bench: ${series.label}, ${latencyMs} ms latency`)
        const label = series.label.replace(/\W/g, '')
        const fresh = series.inProcess ? undefined : () => series.make(id)
        ops[series.label] = await operations(saver, { ...common, label, fresh })
        walls[series.label] = await graphWall(series.make(memoryId(series.label)), { label, runs: plan.graphRuns })
      }
      if (latencyMs === 0) {
        for (const series of chatSeries(server.endpoint)) {
          const saver = construct(series, memoryId(series.label), results.unavailable)
          if (!saver) continue
          console.error(`bench: ${series.label}, chat bytes`)
          results.chatBytes[series.label] = await chatBytes(saver, { endpoint: server.endpoint, sizes: plan.chatSizes, label: 'chat', messages: chat })
        }
      }
      for (const layout of python ? ['legacy', 'snapshot'] : []) {
        const label = `Python AgentCoreMemorySaver (${layout})`
        console.error(`bench: ${label}, ${latencyMs} ms latency`)
        const job = { endpoint: server.endpoint, memoryId: memoryId(layout), layout, serverPid: server.pid }
        ops[label] = await runPython(python, { ...job, kind: 'operations', reps: plan.reps, lengths: plan.lengths, messages: smallMessages })
        walls[label] = await runPython(python, { ...job, kind: 'graphWall', runs: plan.graphRuns, stepReply })
        if (latencyMs === 0) {
          results.chatBytes[label] = await runPython(python, { ...job, kind: 'chatBytes', chatSizes: plan.chatSizes, chatMessages: chat })
        }
      }
    } finally {
      await server.close()
    }
  }
  results.scale = await scaleRuns()

  const dir = path.join(here, 'results')
  mkdirSync(dir, { recursive: true })
  writeFileSync(path.join(dir, 'report.json'), JSON.stringify(results, null, 2) + '\n')
  writeFileSync(path.join(dir, 'chart.svg'), chart(results))
  writeFileSync(path.join(dir, 'report.md'), report(results))
  console.log(`bench: wrote ${path.relative(root, dir)}/report.md, report.json and chart.svg`)

  // The target holds under the bounded flags, in both durabilities; under
  // V8's defaults LangGraph alone is over it (see the report).
  for (const [label, s] of Object.entries(results.scale.bounded.rows).filter(([l]) => l.startsWith('AgentCoreSaver'))) {
    if (s.completed !== s.threads || s.readBack !== s.threads || s.peakRssMb >= plan.rssTargetMb) {
      console.error(
        `bench: scale target missed (${label}, bounded flags): ${s.completed}/${s.threads} threads completed, ${s.readBack} read back, ` +
          `peak RSS ${s.peakRssMb.toFixed(0)} MB (target < ${plan.rssTargetMb} MB)`,
      )
      process.exitCode = 1
    }
  }
}

await main()
