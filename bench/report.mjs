// report.md: the measurements as tables, and the ratios the README quotes.
import { percentile, requestText, requestsOf, round } from './stats.mjs'

const OPS = {
  put: 'put',
  putWrites: 'putWrites',
  getTuple: 'getTuple (newest)',
  getTupleById: 'getTuple (id 10 back)',
  list: 'list (limit 10)',
}
const OURS = 'AgentCoreSaver'
const LEGACY = 'Python AgentCoreMemorySaver (legacy)'
const SNAPSHOT = 'Python AgentCoreMemorySaver (snapshot)'

function table(header, rows) {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n')
}

/** One table per operation: savers down, history lengths across. */
function perOperation(results, latency, cell) {
  const lengths = results.plan.lengths
  const byLabel = results.operations[latency]
  return Object.entries(OPS)
    .map(([op, title]) => {
      const rows = Object.entries(byLabel).map(([label, byLength]) => [label, ...lengths.map((n) => cell(byLength[n][op]))])
      return `**${title}**\n\n${table(['saver', ...lengths.map((n) => `${n} checkpoints`)], rows)}`
    })
    .join('\n\n')
}

const ratio = (a, b) => (Number.isFinite(a / b) && b > 0 ? `${round(a / b)}×` : '–')

function ratios(results) {
  const longest = results.plan.lengths.at(-1)
  const at = (latency, label, op) => results.operations[latency]?.[label]?.[longest]?.[op]
  const lines = []
  for (const other of [LEGACY, SNAPSHOT]) {
    if (!at(0, other, 'getTuple')) continue
    for (const op of ['getTuple', 'put', 'list']) {
      const ours0 = at(0, OURS, op)
      const theirs0 = at(0, other, op)
      const ours10 = at(10, OURS, op)
      const theirs10 = at(10, other, op)
      lines.push(
        `| ${OPS[op]} | ${other.replace('Python AgentCoreMemorySaver ', 'Python ')} | ${round(requestsOf(theirs0))} → ${round(requestsOf(ours0))} | ` +
          `${ratio(percentile(theirs10.latenciesMs, 50), percentile(ours10.latenciesMs, 50))} | ${ratio(theirs0.cpuMs, ours0.cpuMs)} |`,
      )
    }
  }
  if (!lines.length) return '_The Python saver was not measured in this run._'
  return [
    `At ${longest} checkpoints. "Faster" and "less CPU" are the Python saver's figure divided by AgentCoreSaver's, measured in this run.`,
    '',
    '| operation | against | requests per call (theirs → ours) | p50 latency at 10 ms: ours is faster by | client CPU: ours uses less by |',
    '|---|---|---|---|---|',
    ...lines,
  ].join('\n')
}

function graphTable(results) {
  const labels = Object.keys(results.graphWallMs[results.plan.latencies[0]] ?? {})
  const rows = labels.map((label) => [
    label,
    ...results.plan.latencies.flatMap((l) => ['async', 'sync'].map((d) => round(results.graphWallMs[l][label]?.[d]))),
  ])
  const header = ['saver', ...results.plan.latencies.flatMap((l) => [`${l} ms, default (async)`, `${l} ms, sync`])]
  return table(header, rows)
}

function chatTable(results) {
  const sizes = results.plan.chatSizes
  const rows = Object.entries(results.chatBytes).map(([label, bySize]) => [label, ...sizes.map((s) => round(bySize[s] / 1024))])
  return table(['saver', ...sizes.map((s) => `${s} messages (KiB)`)], rows)
}

function scaleTable(s) {
  return table(
    ['threads', 'completed', 'read back', 'wall (s)', 'supersteps/s', 'CreateEvent/s', 'client CPU (s)', 'server CPU (s)', 'peak RSS (MB)', 'throttled'],
    [
      [
        s.threads,
        s.completed,
        s.readBack,
        round(s.seconds),
        round(s.superstepsPerSecond),
        round(s.createEventsPerSecond),
        round(s.cpuSeconds),
        round(s.serverCpuSeconds),
        round(s.peakRssMb),
        s.throttled,
      ],
    ],
  )
}

export function report(results, argv) {
  const m = results.machine
  const sections = [
    '# Benchmark: AgentCoreSaver against the Python saver and MemorySaver',
    '',
    `Command: \`npm run bench${argv.length ? ' -- ' + argv.join(' ') : ''}\`. Machine: ${m.cpus} cores (${m.cpuModel}), ${m.memoryGiB} GiB, Node ${m.node}; addon build: ${m.addonBuild}. ` +
      `Every saver runs against the same local server, a separate process, at 0 ms and then 10 ms injected latency; ${results.plan.reps} calls per operation. ` +
      `Python: ${results.python}.`,
    '',
    '**How to read.** A thread is grown to each history length (each superstep a put and a putWrites), then each operation is called repeatedly on it. ' +
      'Requests and bytes come from the server\'s `/_local/stats`; client CPU is the calling process\'s user + system time per call (Node: `process.cpuUsage()`, Python: `time.process_time()`); ' +
      'server CPU is the server process\'s, from `/proc`, the floor any client pays. MemorySaver keeps everything in process: the floor for latency and CPU. ' +
      'Latency ratios are meaningful at 10 ms, where round trips dominate; CPU ratios at 0 ms.',
    '',
    '![requests and latency against history length](chart.svg)',
    '',
    '## Against the Python saver',
    '',
    ratios(results),
    '',
    '## Requests per call (0 ms)',
    '',
    perOperation(results, 0, requestText),
    '',
  ]
  for (const latency of results.plan.latencies) {
    sections.push(`## Latency per call, p50 / p99 ms (${latency} ms injected)`, '', perOperation(results, latency, (x) => `${round(percentile(x.latenciesMs, 50))} / ${round(percentile(x.latenciesMs, 99))}`), '')
  }
  sections.push(
    '## CPU per call, client / server ms (0 ms)',
    '',
    perOperation(results, 0, (x) => `${round(x.cpuMs)} / ${round(x.serverCpuMs)}`),
    '',
    '## Bytes per call, sent / received (0 ms)',
    '',
    perOperation(results, 0, (x) => `${round(x.bytesIn)} / ${round(x.bytesOut)}`),
    '',
    '## A 20-step graph, end to end (ms)',
    '',
    graphTable(results),
    '',
    '## Bytes uploaded per chat superstep',
    '',
    'A put of the messages channel grown by two messages, and a putWrites of those two, at each conversation length (each message about 170 characters).',
    '',
    chatTable(results),
    '',
    `## ${results.scale.threads} threads × 20 supersteps in one process`,
    '',
    'All threads run at once against a local server at 0 ms; then a new saver reads each thread\'s newest checkpoint back. Target: all complete, peak RSS under 300 MB.',
    '',
    scaleTable(results.scale),
    '',
  )
  return sections.join('\n')
}
