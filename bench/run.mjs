// The benchmark: every saver against the same local server (a separate
// process, so the client's CPU is measured apart from the server's), at 0
// and 10 ms injected latency; then a report in bench/results/. Run through
// `npm run bench` (scripts/bench.mjs), which builds what is missing first.
//   node bench/run.mjs [--quick] [--python PATH | --no-python]
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
import { chart } from './chart.mjs'
import { report } from './report.mjs'
import { chatBytes, graphWall, operations } from './workload.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.join(here, '..')
const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    python: { type: 'string' },
    'no-python': { type: 'boolean', default: false },
    build: { type: 'string', default: 'release' },
  },
})

const plan = {
  latencies: [0, 10],
  lengths: args.quick ? [1, 100] : [1, 100, 1000],
  reps: args.quick ? 10 : 50,
  chatSizes: [10, 100, 500],
  scaleThreads: args.quick ? 100 : 1000,
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

const memoryId = (label) => `bench-${label.replace(/[^a-z0-9]/gi, '').slice(0, 20)}-${Math.random().toString(36).slice(2, 12).padEnd(10, '0')}`

const jsSavers = (endpoint) => ({
  AgentCoreSaver: () => new AgentCoreSaver({ memoryId: memoryId('acs'), endpoint }),
  'AgentCoreSaver (cache)': () => new AgentCoreSaver({ memoryId: memoryId('cache'), endpoint, cache: true }),
  'MemorySaver (floor)': () => new MemorySaver(),
})

function runPython(python, job) {
  return new Promise((resolve, reject) => {
    const child = spawn(python, [path.join(here, 'python_saver.py'), JSON.stringify(job)], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`python_saver.py exited with ${code}`))))
  })
}

async function scale() {
  const server = await startServer(0, ['--max-in-flight', '4096'])
  try {
    const child = spawn(process.execPath, [path.join(here, 'scale.mjs'), server.endpoint, memoryId('scale'), String(plan.scaleThreads)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    const [code] = await once(child, 'exit')
    if (code !== 0) throw new Error(`bench/scale.mjs exited with ${code}`)
    return { ...JSON.parse(out), serverCpuSeconds: server.cpuMs() / 1000 }
  } finally {
    await server.close()
  }
}

async function main() {
  const python = args['no-python'] ? undefined : args.python
  const results = {
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model,
      memoryGiB: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
      python: python ? 'see pythonVersion' : undefined,
      addonBuild: args.build,
    },
    plan,
    python: python ? 'included' : 'skipped: no Python (pass --python or install Python 3)',
    operations: {},
    chatBytes: {},
    graphWallMs: {},
  }
  for (const latencyMs of plan.latencies) {
    const server = await startServer(latencyMs)
    const common = { endpoint: server.endpoint, reps: plan.reps, lengths: plan.lengths, serverCpuMs: server.cpuMs }
    try {
      const ops = (results.operations[latencyMs] = {})
      const walls = (results.graphWallMs[latencyMs] = {})
      for (const [label, make] of Object.entries(jsSavers(server.endpoint))) {
        console.error(`bench: ${label}, ${latencyMs} ms latency`)
        ops[label] = await operations(make(), { ...common, label: label.replace(/\W/g, '') })
        walls[label] = await graphWall(make(), { label: label.replace(/\W/g, '') })
      }
      if (latencyMs === 0) {
        results.chatBytes.AgentCoreSaver = await chatBytes(new AgentCoreSaver({ memoryId: memoryId('chat'), endpoint: server.endpoint }), {
          endpoint: server.endpoint,
          sizes: plan.chatSizes,
          label: 'chat',
        })
        results.chatBytes['AgentCoreSaver (compress: false)'] = await chatBytes(
          new AgentCoreSaver({ memoryId: memoryId('plain'), endpoint: server.endpoint, compress: false }),
          { endpoint: server.endpoint, sizes: plan.chatSizes, label: 'plain' },
        )
      }
      for (const layout of python ? ['legacy', 'snapshot'] : []) {
        const label = `Python AgentCoreMemorySaver (${layout})`
        console.error(`bench: ${label}, ${latencyMs} ms latency`)
        const job = { endpoint: server.endpoint, memoryId: memoryId(layout), layout, serverPid: server.pid }
        ops[label] = await runPython(python, { ...job, kind: 'operations', reps: plan.reps, lengths: plan.lengths })
        walls[label] = await runPython(python, { ...job, kind: 'graphWall' })
        if (latencyMs === 0) results.chatBytes[label] = await runPython(python, { ...job, kind: 'chatBytes', chatSizes: plan.chatSizes })
      }
    } finally {
      await server.close()
    }
  }
  console.error(`bench: ${plan.scaleThreads} threads x 20 supersteps`)
  results.scale = await scale()

  const dir = path.join(here, 'results')
  mkdirSync(dir, { recursive: true })
  writeFileSync(path.join(dir, 'report.json'), JSON.stringify(results, null, 2) + '\n')
  writeFileSync(path.join(dir, 'chart.svg'), chart(results))
  writeFileSync(path.join(dir, 'report.md'), report(results, process.argv.slice(2)))
  console.log(`bench: wrote ${path.relative(root, dir)}/report.md, report.json and chart.svg`)
  const { scale: s } = results
  if (s.completed !== s.threads || s.readBack !== s.threads || s.peakRssMb >= 300) {
    console.error(`bench: scale target missed: ${s.completed}/${s.threads} completed, ${s.readBack} read back, peak RSS ${s.peakRssMb.toFixed(0)} MB`)
    process.exitCode = 1
  }
}

await main()
