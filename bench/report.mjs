// report.md: the measurements as tables, and the ratios against the
// baselines of the same run.
import { percentile, requestText, requestsOf, round } from './stats.mjs'

const OPS = {
  put: 'put',
  putWrites: 'putWrites',
  getTuple: 'getTuple (newest)',
  getTupleById: 'getTuple (id 10 back, seen by this saver)',
  getTupleByIdFresh: 'getTuple (id 10 back, new saver)',
  list: 'list (limit 10)',
}
const OURS = 'AgentCoreSaver'
const FLOOR = 'MemorySaver (floor)'
const PYTHON = ['Python AgentCoreMemorySaver (legacy)', 'Python AgentCoreMemorySaver (snapshot)']

function table(header, rows) {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n')
}

const p50 = (m) => percentile(m.latenciesMs, 50)
const ratio = (a, b) => (Number.isFinite(a / b) && b > 0 ? `${round(a / b)}×` : '–')
const short = (label) => label.replace('Python AgentCoreMemorySaver ', 'Python ')

/** One table per operation: savers down, history lengths across. */
function perOperation(results, latency, cell) {
  const lengths = results.plan.lengths
  const byLabel = results.operations[latency]
  return Object.entries(OPS)
    .map(([op, title]) => {
      const rows = Object.entries(byLabel)
        .filter(([, byLength]) => byLength[lengths[0]][op])
        .map(([label, byLength]) => [label, ...lengths.map((n) => cell(byLength[n][op]))])
      return `**${title}**\n\n${table(['saver', ...lengths.map((n) => `${n} checkpoints`)], rows)}`
    })
    .join('\n\n')
}

/** AgentCoreSaver against each Python layout, at the longest history. */
function againstPython(results) {
  const longest = results.plan.lengths.at(-1)
  const [fast, slow] = [results.plan.latencies[0], results.plan.latencies.at(-1)]
  const at = (latency, label, op) => results.operations[latency]?.[label]?.[longest]?.[op]
  const rows = []
  for (const other of PYTHON) {
    if (!at(fast, other, 'getTuple') || !at(fast, OURS, 'getTuple')) continue
    for (const op of Object.keys(OPS)) {
      const [ours, theirs, ours10, theirs10] = [at(fast, OURS, op), at(fast, other, op), at(slow, OURS, op), at(slow, other, op)]
      if (!ours || !theirs) continue
      rows.push([
        OPS[op],
        short(other),
        `${round(requestsOf(theirs))} → ${round(requestsOf(ours))}`,
        ratio(p50(theirs), p50(ours)),
        ratio(p50(theirs10), p50(ours10)),
        ratio(theirs.cpuMs, ours.cpuMs),
        ratio(theirs.bytesIn + theirs.bytesOut, ours.bytesIn + ours.bytesOut),
      ])
    }
  }
  if (!rows.length) return `_The Python saver was not measured in this run: ${results.python.skipped ?? 'see above'}._`
  return [
    `At ${longest} checkpoints. Each "×" is the Python saver's figure divided by AgentCoreSaver's: above 1×, AgentCoreSaver is faster, or uses less.`,
    '',
    table(
      ['operation', 'against', 'requests per call (theirs → ours)', `p50 latency, ${fast} ms`, `p50 latency, ${slow} ms`, `client CPU, ${fast} ms`, 'bytes on the wire'],
      rows,
    ),
  ].join('\n')
}

/** AgentCoreSaver against MemorySaver, the floor: what keeping state remotely costs. */
function againstFloor(results) {
  const longest = results.plan.lengths.at(-1)
  const fast = results.plan.latencies[0]
  const at = (label, op) => results.operations[fast]?.[label]?.[longest]?.[op]
  const rows = Object.keys(OPS)
    .filter((op) => at(OURS, op) && at(FLOOR, op))
    .map((op) => {
      const [ours, floor] = [at(OURS, op), at(FLOOR, op)]
      return [OPS[op], `${round(p50(ours))} / ${round(p50(floor))}`, ratio(p50(ours), p50(floor)), `${round(ours.cpuMs)} / ${round(floor.cpuMs)}`, round(ours.serverCpuMs)]
    })
  if (!rows.length) return '_Not measured._'
  return [
    `At ${longest} checkpoints, ${fast} ms injected latency. "×" is AgentCoreSaver's figure divided by MemorySaver's: how many times the in-process floor.`,
    '',
    table(['operation', 'p50 ms (ours / floor)', 'p50 × floor', 'client CPU ms (ours / floor)', 'server CPU ms (the request\'s own floor)'], rows),
  ].join('\n')
}

function graphTable(results) {
  const latencies = results.plan.latencies
  const labels = Object.keys(results.graphWallMs[latencies[0]] ?? {})
  const rows = labels.map((label) => [label, ...latencies.flatMap((l) => ['async', 'sync'].map((d) => round(results.graphWallMs[l][label]?.[d])))])
  const header = ['saver', ...latencies.flatMap((l) => [`${l} ms, default (async)`, `${l} ms, sync`])]
  const lines = [table(header, rows)]
  const ours = results.graphWallMs[latencies.at(-1)]?.[OURS]
  const ratios = [FLOOR, ...PYTHON]
    .filter((label) => ours && results.graphWallMs[latencies.at(-1)]?.[label])
    .map((label) => {
      const other = results.graphWallMs[latencies.at(-1)][label]
      return `${short(label)}: ${ratio(other.async, ours.async)} (default), ${ratio(other.sync, ours.sync)} (sync)`
    })
  if (ratios.length) lines.push('', `At ${latencies.at(-1)} ms, the other saver's time divided by AgentCoreSaver's: ${ratios.join('; ')}.`)
  return lines.join('\n')
}

function chatTable(results) {
  const sizes = results.plan.chatSizes
  const rows = Object.entries(results.chatBytes).map(([label, bySize]) => [
    label,
    ...sizes.map((s) => `${round(bySize[s].bytesIn / 1024)} (${requestText({ requests: bySize[s].requests })})`),
  ])
  return table(['saver', ...sizes.map((s) => `${s} messages: KiB (requests)`)], rows)
}

function scaleTable(rows) {
  const body = Object.entries(rows).map(([label, s]) => [
    label,
    `${s.completed} / ${s.threads}`,
    s.readBack,
    round(s.seconds),
    round(s.superstepsPerSecond),
    s.requests ? round(s.requests.CreateEvent / s.seconds) : '–',
    round(s.cpuSeconds),
    s.serverCpuSeconds === undefined ? '–' : round(s.serverCpuSeconds),
    `**${round(s.peakRssMb)}**`,
    `${round(s.peakHeapTotalMb)} / ${round(s.peakOutsideHeapMb)}`,
    s.throttled ?? '–',
  ])
  return table(
    ['run', 'completed', 'read back', 'wall (s)', 'supersteps/s', 'CreateEvent/s', 'client CPU (s)', 'server CPU (s)', 'peak RSS (MB)', 'V8 heap / rest of RSS, sampled peaks (MB)', 'throttled'],
    body,
  )
}

function scaleSections(results) {
  return Object.entries(results.scale).flatMap(([, { flags, rows }]) => [
    `### Node ${flags ? `with \`${flags}\`` : 'with its default flags'}`,
    '',
    scaleTable(rows),
    '',
  ])
}

function header(results) {
  const m = results.machine
  const py = results.python
  const python = py.python
    ? `Python ${py.python}, langgraph-checkpoint-aws ${py['langgraph-checkpoint-aws']}, langgraph ${py.langgraph}, boto3 ${py.boto3}`
    : `the Python saver was left out: ${py.skipped}`
  const lines = [
    '# Benchmark: AgentCoreSaver against the Python saver and MemorySaver',
    '',
    `- Command: \`${results.command}\``,
    `- Machine: ${m.cpus} cores (${m.cpuModel}), ${m.memoryGiB} GiB, ${m.os}; Node ${m.node}; ${python}.`,
    `- Addon and local server build: **${m.addonBuild}** (read from the addon file).` +
      (m.addonBuild === 'release' ? '' : ' Not a release build: times and CPU are not representative.'),
    `- Every saver runs against the same local server, a separate process (\`bin/agentcore-memory-local.js\`), at ${results.plan.latencies.join(' and then ')} ms injected latency; ` +
      `${results.plan.reps} calls per operation; history lengths ${results.plan.lengths.join(', ')}.`,
  ]
  const missing = Object.entries(results.unavailable)
  if (missing.length) lines.push(`- Unavailable in this build (the constructor refused the option): ${missing.map(([l, why]) => `${l} (${why})`).join('; ')}.`)
  return lines
}

const HOW_TO_READ =
  '**How to read.** Each saver grows a thread to each history length as LangGraph would (each superstep a put, then a putWrites against it), ' +
  'then calls each operation repeatedly on it: the reads first, then put and putWrites (whose repetitions pile writes onto one checkpoint, which no superstep does). Requests and bytes come from the local server\'s `/_local/stats`, reset before each operation\'s calls, ' +
  'so they count everything a call sent, retries included. Client CPU is the calling process\'s user + system time per call ' +
  '(Node: `process.cpuUsage()`, Python: `time.process_time()`); server CPU is the server process\'s, from `/proc` (10 ms ticks, so only ' +
  'meaningful summed over many calls). MemorySaver keeps state in the process: it is the floor for latency and CPU, not a competitor. ' +
  'Request counts are exact and machine-independent; latencies depend on the machine: compare them as ratios within one report. ' +
  'At 0 ms injected latency a call\'s time is mostly CPU (client and server); at 10 ms it is mostly round trips, ' +
  'so about 10 ms per request in sequence. "New saver" reads are each made by a saver that never saw the thread, as another process would.'

export function report(results) {
  const fast = results.plan.latencies[0]
  const sections = [
    ...header(results),
    '',
    HOW_TO_READ,
    '',
    '![requests and latency against history length](chart.svg)',
    '',
    '## AgentCoreSaver against the Python saver',
    '',
    againstPython(results),
    '',
    '## AgentCoreSaver against MemorySaver (the floor)',
    '',
    againstFloor(results),
    '',
    `## Requests per call`,
    '',
    perOperation(results, fast, requestText),
    '',
  ]
  for (const latency of results.plan.latencies) {
    sections.push(`## Latency per call, p50 / p99 ms (${latency} ms injected)`, '', perOperation(results, latency, (x) => `${round(p50(x))} / ${round(percentile(x.latenciesMs, 99))}`), '')
  }
  sections.push(
    `## CPU per call, client / server ms (${fast} ms injected)`,
    '',
    perOperation(results, fast, (x) => `${round(x.cpuMs)} / ${round(x.serverCpuMs)}`),
    '',
    `## Bytes per call, sent / received (${fast} ms injected)`,
    '',
    perOperation(results, fast, (x) => `${round(x.bytesIn)} / ${round(x.bytesOut)}`),
    '',
    `## A ${20}-step graph, end to end (ms)`,
    '',
    `One node looping 20 times, appending a message of about 480 characters each step; the median of ${results.plan.graphRuns} runs on new threads, after one untimed run.`,
    '',
    graphTable(results),
    '',
    '## Bytes uploaded per chat superstep',
    '',
    'A conversation grown by two messages a superstep (a putWrites of the two, then a put whose newVersions name only the messages channel and a turn counter); ' +
      `request bytes of the superstep that brings it to each size. Messages alternate about 120 and 480 characters of random words; gzip makes their JSON ${round(results.chatGzipRatio)}× smaller. ` +
      'MemorySaver sends nothing.',
    '',
    chatTable(results),
    '',
    `## ${results.plan.scaleThreads} threads × ${results.plan.scaleSupersteps} supersteps in one process`,
    '',
    `All threads run the 20-step graph at once in one Node process of their own, against a local server at 0 ms; then every thread's newest checkpoint is read back (by a new saver for AgentCoreSaver). ` +
      `Target for AgentCoreSaver: all complete, peak RSS under ${results.plan.rssTargetMb} MB. ` +
      'Under LangGraph\'s default durability ("async") no superstep waits for its writes: a graph whose nodes do no I/O runs all 20 supersteps before the first write completes, so every write of the run is pending at once. ' +
      'The no-op saver rows are LangGraph\'s own cost of that backlog: a saver that stores nothing and completes writes, in order, at the rate AgentCoreSaver reached in the row above. ' +
      'The MemorySaver row is LangGraph with every checkpoint held in memory. Each set of rows runs under one set of Node flags: V8\'s defaults on this machine let garbage reach hundreds of megabytes before a full collection, LangGraph\'s own included.',
    '',
    ...scaleSections(results),
  )
  return sections.join('\n')
}
