// `npm test`: every suite of the repository, from a fresh clone: the Rust
// tests, then the JavaScript and Python clients against the built addon.
// Arguments go to ava, e.g. `npm test -- --match '*SIGINT*'`.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

import { actionlint } from './actionlint.mjs'
import { ensureBoto3Env } from './python-env.mjs'
import { run } from './run.mjs'
import { binOf, cargoEnv, ensureBuilt, ensureDeps, root } from './setup.mjs'

// The lines in which each runner sums up its results, repeated at the end.
const CARGO_SUMMARY = /^test result: /
const AVA_SUMMARY =
  /^\d+ (tests? (passed|failed|skipped|todo|remained)|known failures?|hooks? failed|unhandled rejections?|uncaught exceptions?)/

// A `stop` step is one the later steps cannot do without.
const steps = [
  { name: 'npm dependencies', stop: true, run: ensureDeps },
  { name: 'cargo test --workspace --no-fail-fast', run: cargoTest },
  { name: 'Python .venv with boto3', run: ensureBoto3Env },
  { name: 'native addon (debug build)', stop: true, run: () => ensureBuilt({ release: false }) },
  { name: 'conformance suite (vitest)', run: conformance },
  { name: 'ava', run: ava },
  { name: 'installed package (npm pack, npm install, ESM, CJS, tsc, a graph)', run: packTest },
  { name: 'actionlint .github/workflows', run: actionlint },
  { name: 'npm audit of the runtime dependencies', run: audit },
]

async function cargoTest() {
  // --no-fail-fast: one crate's failure should not hide the other crates' results.
  const args = ['test', '--workspace', '--no-fail-fast']
  try {
    return withCargoTotal(await run('cargo', args, { cwd: root, env: cargoEnv(), keep: CARGO_SUMMARY }))
  } catch (error) {
    throw Object.assign(error, { kept: withCargoTotal(error.kept ?? []) })
  }
}

// cargo prints one summary per test binary, more than twenty here: add them up.
function withCargoTotal(lines) {
  const total = (word) => lines.reduce((n, line) => n + countOf(line, word), 0)
  return [...lines, `(${lines.length} test binaries: ${total('passed')} passed, ${total('failed')} failed in all)`]
}

/** The number before `word` in a summary line: 12 for ('... 12 passed; ...', 'passed'). */
function countOf(line, word) {
  return Number(line.match(new RegExp(`(\\d+) ${word}`))?.[1] ?? 0)
}

// LangGraph's checkpointer conformance suite, which is written for vitest.
// Every case must run: a skipped case fails this step.
async function conformance() {
  const dir = mkdtempSync(path.join(tmpdir(), 'conformance-'))
  const report = path.join(dir, 'report.json')
  const args = [binOf('vitest', 'vitest'), 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`]
  try {
    await run(process.execPath, args, { cwd: root, env: process.env, keep: /^\s*Tests\s/ })
    const r = JSON.parse(readFileSync(report, 'utf8'))
    const skipped = r.numPendingTests + r.numTodoTests
    const line = `conformance: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`
    if (skipped > 0 || r.numTotalTests === 0) throw Object.assign(new Error(line), { kept: [line] })
    return [line]
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

function ava() {
  // ava's output is piped through to pick its summary; keep its colours.
  const env = process.stdout.isTTY && !process.env.NO_COLOR ? { ...process.env, FORCE_COLOR: '1' } : process.env
  const args = [binOf('ava', 'ava'), ...process.argv.slice(2)]
  return run(process.execPath, args, { cwd: root, env, keep: AVA_SUMMARY })
}

// scripts/pack-test.mjs, which prints `pack-test: N passed, M failed`.
function packTest() {
  return run(process.execPath, [path.join(root, 'scripts', 'pack-test.mjs')], { cwd: root, env: process.env, keep: /^pack-test: / })
}

// scripts/audit.mjs: no known vulnerability in the runtime dependencies. It
// needs the registry's audit endpoint, which mirrors may lack (answering
// 405): then the step is reported SKIPPED, "not checked", which neither
// passes it nor fails the run, since the code under test is not at fault.
async function audit() {
  try {
    return await run(process.execPath, [path.join(root, 'scripts', 'audit.mjs')], { cwd: root, env: process.env, keep: /^audit: / })
  } catch (error) {
    throw Object.assign(error, { unchecked: error.kept?.some((line) => line.startsWith('audit: NOT CHECKED')) })
  }
}

async function runSteps() {
  const results = []
  for (const step of steps) {
    console.log(`\n=== ${step.name}`)
    try {
      results.push({ step, ok: true, kept: (await step.run()) ?? [] })
    } catch (error) {
      console.error(`\n${step.name} ${error.unchecked ? 'could not run' : 'failed'}: ${error.message}`)
      results.push({ step, ok: false, unchecked: error.unchecked === true, kept: error.kept ?? [] })
      if (step.stop) break
    }
  }
  return results
}

function printSummary(results) {
  console.log('\n=== summary')
  for (const step of steps) {
    const result = results.find((r) => r.step === step)
    console.log(`${result ? (result.ok ? 'ok     ' : result.unchecked ? 'SKIPPED' : 'FAILED ') : 'not run'} ${step.name}`)
    for (const line of result?.kept ?? []) console.log(`          ${line}`)
  }
}

/** One closing line over every runner: "all: N passed, M failed". */
function printTotal(results) {
  const lines = results.flatMap((r) => r.kept)
  // The cargo total, the conformance line and ava's own summary lines; not
  // cargo's per-binary lines, which the cargo total already adds up.
  const counted = lines.filter((l) => !CARGO_SUMMARY.test(l))
  const sum = (word) => counted.reduce((n, line) => n + countOf(line, `(?:tests? )?${word}`), 0)
  console.log(`all: ${sum('passed')} passed, ${sum('failed')} failed`)
}

const results = await runSteps()
printSummary(results)
printTotal(results)
const passed = results.length === steps.length && results.every((r) => r.ok || r.unchecked)
process.exitCode = passed ? 0 : 1
