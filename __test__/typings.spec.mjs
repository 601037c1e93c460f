// The package's TypeScript declarations, checked by tsc the way a user's
// project sees them: __test__/fixtures/typescript/ is copied to a temporary
// directory whose node_modules/langgraph-checkpoint-agentcore links to this
// repository, then type-checked (strict) under node16 and bundler
// resolution. Its `@ts-expect-error` lines prove the typings strict; the
// mutation tests prove the check fails when a declaration is wrong.
import { execFile } from 'node:child_process'
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import test from 'ava'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const FIXTURE = path.join(ROOT, '__test__', 'fixtures', 'typescript')
const TSC = path.join(ROOT, 'node_modules', '.bin', 'tsc')
const PACKAGE = 'langgraph-checkpoint-agentcore'

/** Runs tsc; resolves to its exit code and output, never rejects on a type error. */
function tsc(project) {
  return new Promise((resolve) => {
    execFile(TSC, ['-p', project, '--noEmit', '--pretty', 'false'], { cwd: path.dirname(project), maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, output: `${stdout}${stderr}` })
    })
  })
}

/**
 * A consumer project: the fixture's files, with node_modules holding
 * @langchain (linked to this repository's) and the package, either linked
 * to the repository or, with `declarations`, a copy of its package.json
 * next to the given index.d.ts text.
 */
async function consumerProject(t, { declarations } = {}) {
  const dir = await mkdtemp(path.join(tmpdir(), 'lgca-typings-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await cp(FIXTURE, dir, { recursive: true })
  await mkdir(path.join(dir, 'node_modules'))
  await symlink(path.join(ROOT, 'node_modules', '@langchain'), path.join(dir, 'node_modules', '@langchain'), 'dir')
  const pkg = path.join(dir, 'node_modules', PACKAGE)
  if (declarations === undefined) {
    await symlink(ROOT, pkg, 'dir')
  } else {
    await mkdir(pkg)
    await cp(path.join(ROOT, 'package.json'), path.join(pkg, 'package.json'))
    await writeFile(path.join(pkg, 'index.d.ts'), declarations)
  }
  return dir
}

function expectClean(t, { code, output }) {
  if (code !== 0) t.log(output)
  t.is(code, 0, `tsc failed:\n${output}`)
  t.is(output.trim(), '')
}

test.serial('the TypeScript consumer type-checks under strict node16 resolution', async (t) => {
  const dir = await consumerProject(t)
  expectClean(t, await tsc(path.join(dir, 'tsconfig.json')))
})

test.serial('the TypeScript consumer and index.d.ts type-check under strict bundler resolution', async (t) => {
  const dir = await consumerProject(t)
  expectClean(t, await tsc(path.join(dir, 'tsconfig.bundler.json')))
})

test.serial('a copy of the unchanged index.d.ts type-checks (the baseline of the mutations below)', async (t) => {
  const dir = await consumerProject(t, { declarations: await readFile(path.join(ROOT, 'index.d.ts'), 'utf8') })
  expectClean(t, await tsc(path.join(dir, 'tsconfig.bundler.json')))
  expectClean(t, await tsc(path.join(dir, 'tsconfig.json')))
})

/**
 * Replaces `from` (which must occur exactly once) in index.d.ts and expects
 * tsc to fail with every one of `errors` (regexps on its output). The node16
 * config is the default as the faster one; errors inside index.d.ts itself
 * need the bundler config, which does not skip library checks.
 */
const wrongDeclaration = test.macro({
  async exec(t, { from, to, config = 'tsconfig.json', errors }) {
    const original = await readFile(path.join(ROOT, 'index.d.ts'), 'utf8')
    t.is(original.split(from).length, 2, `index.d.ts has ${JSON.stringify(from)} exactly once`)
    const dir = await consumerProject(t, { declarations: original.replace(from, to) })
    const { code, output } = await tsc(path.join(dir, config))
    t.not(code, 0, 'tsc accepted the wrong declaration')
    for (const error of errors) t.regex(output, error)
  },
  title: (name) => `tsc fails when index.d.ts is wrong: ${name}`,
})

test.serial('an option loosened to any', wrongDeclaration, {
  from: '  maxAttempts?: number\n',
  to: '  maxAttempts?: any\n',
  errors: [/consumer\.ts\(\d+,\d+\): error TS2578: Unused '@ts-expect-error' directive/],
})

test.serial('options open to unknown keys', wrongDeclaration, {
  from: 'export interface AgentCoreSaverOptions {\n',
  to: 'export interface AgentCoreSaverOptions {\n  [key: string]: unknown\n',
  errors: [/consumer\.ts\(\d+,\d+\): error TS2578/, /consumer-esm\.mts\(\d+,\d+\): error TS2578/],
})

test.serial('a getTuple that does not match BaseCheckpointSaver', wrongDeclaration, {
  from: 'getTuple(config: CheckpointConfig): Promise<AgentCoreCheckpointTuple | undefined>',
  to: 'getTuple(config: CheckpointConfig): Promise<string | undefined>',
  config: 'tsconfig.bundler.json', // checks index.d.ts itself
  errors: [/index\.d\.ts\(\d+,\d+\): error TS2416: Property 'getTuple'/],
})

test.serial('a saver that is not a BaseCheckpointSaver', wrongDeclaration, {
  from: 'export declare class AgentCoreSaver extends BaseCheckpointSaver<number> {',
  to: 'export declare class AgentCoreSaver {',
  errors: [/consumer\.ts\(\d+,\d+\): error TS2322/, /consumer-esm\.mts\(\d+,\d+\): error TS2322/],
})

test.serial('configs typed as the CommonJS RunnableConfig (unusable from an ES module under node16)', wrongDeclaration, {
  from: 'export interface CheckpointConfig {\n  configurable?: Record<string, any>\n}',
  to: 'export type CheckpointConfig = import("@langchain/core/runnables").RunnableConfig',
  errors: [/consumer-esm\.mts\(\d+,\d+\): error TS2322: Type 'AgentCoreSaver' is not assignable/],
})

test.serial('inner typed as any', wrongDeclaration, {
  from: '  readonly inner: unknown\n',
  to: '  readonly inner: any\n',
  errors: [/consumer\.ts\(\d+,\d+\): error TS2578/],
})

test.serial('a writable endpoint on the local server', wrongDeclaration, {
  from: '  readonly endpoint: string\n',
  to: '  endpoint: string\n',
  errors: [/consumer\.ts\(\d+,\d+\): error TS2578/],
})

test.serial('AgentCoreError missing', wrongDeclaration, {
  from: 'export declare class AgentCoreError extends Error {',
  to: 'export declare class AgentCoreFailure extends Error {',
  errors: [/consumer\.ts\(\d+,\d+\): error TS(2305|2724)/, /consumer-esm\.mts\(\d+,\d+\): error TS(2305|2724)/],
})
