// `npm run test:pack`: the package as a user gets it. `npm pack` makes the
// main tarball and the tarball of this machine's platform package (with the
// built .node in it, as `napi prepublish` publishes it); both are installed
// with LangGraph from the registry (or npm's cache) into a fresh directory
// outside the repository, where an ES module, a CommonJS module and a
// TypeScript project (strict; node16 and bundler resolution) use them and a
// LangGraph graph runs against startLocalMemory.
//
// Prints `pack-test: N passed, M failed` (the line `npm test` counts).
// Needs a built addon (`npm run build` or `npm run build:debug`).
import { execFileSync, spawnSync } from 'node:child_process'
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import path from 'node:path'

import { root } from './setup.mjs'

const require = createRequire(import.meta.url)
const { thisPlatform } = require('../lib/platform.js')

const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'))
const platform = thisPlatform()
const platformPackage = `${pkg.name}-${platform}`
const binaryName = `${pkg.napi.binaryName}.${platform}.node`

// What may ship in the main package: its entry, the generated loader, the JS
// layer, the CLI, and the documents. No tests, Rust, scripts or binaries.
const SHIPPED = [
  /^package\.json$/,
  /^README\.md$/,
  /^LICENSE$/,
  /^CHANGELOG\.md$/,
  /^index\.(js|d\.ts)$/,
  /^native\.(js|d\.ts)$/,
  /^lib\/[\w-]+\.js$/,
  /^bin\/[\w-]+\.js$/,
]
const REQUIRED = ['package.json', 'README.md', 'LICENSE', 'index.js', 'index.d.ts', 'native.js', 'lib/agentcore-saver.js', 'lib/load-native.js', 'bin/agentcore-memory-local.js']

const results = []

/** Runs one named check; a failure is reported and counted, and the next check runs. */
function check(name, body) {
  try {
    body()
    results.push({ name, ok: true })
    console.log(`ok     ${name}`)
  } catch (error) {
    results.push({ name, ok: false })
    console.log(`FAILED ${name}\n${indent(error.message)}`)
  }
}

function indent(text) {
  return String(text).trimEnd().replace(/^/gm, '         ')
}

function assert(condition, message) {
  if (!condition) throw new Error(message)
}

/** Runs a command to completion; throws with its output unless it exits 0. */
function exec(command, args, { cwd, env } = {}) {
  const result = spawnSync(command, args, {
    cwd,
    env: env ?? process.env,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    // npm is a .cmd script on Windows, which only a shell can start.
    shell: process.platform === 'win32' && command === 'npm',
  })
  if (result.error) throw result.error
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} exited with ${result.status ?? result.signal}\n${result.stdout}${result.stderr}`)
  }
  return result.stdout
}

function npm(args, cwd) {
  return exec('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd })
}

/** The built binary: where `napi build --platform` puts it, or its platform package. */
function builtBinary() {
  const candidates = [path.join(root, binaryName), path.join(root, 'npm', platform, binaryName)]
  const found = candidates.find((file) => existsSync(file))
  assert(found, `no ${binaryName}: build the addon first (npm run build)`)
  return found
}

function installedVersion(name) {
  return JSON.parse(readFileSync(path.join(root, 'node_modules', ...name.split('/'), 'package.json'), 'utf8')).version
}

const work = mkdtempSync(path.join(tmpdir(), 'lgca-pack-'))
const app = path.join(work, 'app')
let tarballs = null

try {
  check('versions: package.json, Cargo.toml, npm/*/package.json and native.js agree', () => {
    const cargo = readFileSync(path.join(root, 'Cargo.toml'), 'utf8').match(/^\[package\][^[]*?^version\s*=\s*"([^"]+)"/m)?.[1]
    const found = { 'Cargo.toml': cargo }
    for (const dir of readdirSync(path.join(root, 'npm'))) {
      found[`npm/${dir}`] = JSON.parse(readFileSync(path.join(root, 'npm', dir, 'package.json'), 'utf8')).version
    }
    // The generated loader checks a platform package's version against the
    // version it was generated with.
    found['native.js'] = readFileSync(path.join(root, 'native.js'), 'utf8').match(/bindingPackageVersion !== '([^']+)'/)?.[1]
    const wrong = Object.entries(found).filter(([, version]) => version !== pkg.version)
    assert(wrong.length === 0, `package.json has ${pkg.version}, but ${wrong.map(([where, v]) => `${where} has ${v}`).join(', ')}`)
  })

  check('platform packages: one per napi target, with os, cpu, libc, main, files and repository', () => {
    const dirs = readdirSync(path.join(root, 'npm')).sort()
    const { platformOf } = require('../lib/platform.js')
    const expected = pkg.napi.targets.map(platformOf).sort()
    assert(JSON.stringify(dirs) === JSON.stringify(expected), `npm/ has ${dirs.join(', ')}; napi.targets need ${expected.join(', ')}`)
    for (const dir of dirs) {
      const p = JSON.parse(readFileSync(path.join(root, 'npm', dir, 'package.json'), 'utf8'))
      const [os, cpu, abi] = dir.split('-')
      const file = `${pkg.napi.binaryName}.${dir}.node`
      const libc = abi === 'gnu' ? ['glibc'] : abi === 'musl' ? ['musl'] : undefined
      assert(p.name === `${pkg.name}-${dir}`, `npm/${dir}: name ${p.name}`)
      assert(JSON.stringify(p.os) === JSON.stringify([os]), `npm/${dir}: os ${JSON.stringify(p.os)}`)
      assert(JSON.stringify(p.cpu) === JSON.stringify([cpu]), `npm/${dir}: cpu ${JSON.stringify(p.cpu)}`)
      assert(JSON.stringify(p.libc) === JSON.stringify(libc), `npm/${dir}: libc ${JSON.stringify(p.libc)}`)
      assert(p.main === file && JSON.stringify(p.files) === JSON.stringify([file]), `npm/${dir}: main/files ${p.main} ${p.files}`)
      // npm's provenance check wants every published package's repository.
      assert(p.repository?.url === pkg.repository?.url && p.license === pkg.license, `npm/${dir}: repository or license differs from the main package's (run napi create-npm-dirs)`)
    }
  })

  check('npm pack --dry-run: the main package ships only what users need', () => {
    const [listing] = JSON.parse(npm(['pack', '--dry-run', '--json'], root))
    const files = listing.files.map((f) => f.path.replaceAll('\\', '/'))
    const extra = files.filter((file) => !SHIPPED.some((pattern) => pattern.test(file)))
    const missing = REQUIRED.filter((file) => !files.includes(file))
    assert(extra.length === 0, `ships files users do not need: ${extra.join(', ')}`)
    assert(missing.length === 0, `does not ship ${missing.join(', ')}`)
  })

  check(`npm pack: the main package and ${platformPackage}`, () => {
    const main = path.join(work, npm(['pack', '--pack-destination', work], root).trim().split('\n').pop())
    // The platform package as `napi prepublish` publishes it: its directory
    // under npm/ with the binary copied in.
    const staged = path.join(work, platform)
    cpSync(path.join(root, 'npm', platform), staged, { recursive: true })
    const binary = path.join(staged, binaryName)
    copyFileSync(builtBinary(), binary)
    stripDebugBuild(binary)
    const native = path.join(work, npm(['pack', '--pack-destination', work], staged).trim().split('\n').pop())
    tarballs = { main, native }
  })

  check('npm install of both tarballs and LangGraph into a fresh directory', () => {
    assert(tarballs, 'no tarballs')
    mkdirSync(app)
    // No "type": app.cjs and consumer.ts are CommonJS, app.mjs and
    // consumer-esm.mts ES modules.
    writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'lgca-pack-test-app', private: true }))
    // Exact versions of what the repository installed, so npm's cache serves them.
    const deps = ['@langchain/langgraph', '@langchain/langgraph-checkpoint', '@langchain/core'].map((n) => `${n}@${installedVersion(n)}`)
    npm(['install', '--prefer-offline', tarballs.main, tarballs.native, ...deps], app)
    const resolved = realpathSync(createRequire(path.join(app, 'index.js')).resolve(pkg.name))
    assert(resolved.startsWith(realpathSync(app)), `${pkg.name} resolves to ${resolved}, not into the fresh directory`)
  })

  const appReady = () => assert(existsSync(path.join(app, 'node_modules', pkg.name)), 'not installed')

  check('ESM: import { AgentCoreSaver, startLocalMemory } runs a LangGraph graph', () => {
    appReady()
    writeFileSync(path.join(app, 'app.mjs'), graphProgram('esm'))
    const out = exec(process.execPath, ['app.mjs'], { cwd: app })
    assert(out.includes('graph ok (esm)'), out)
  })

  check('CJS: require() runs a LangGraph graph', () => {
    appReady()
    writeFileSync(path.join(app, 'app.cjs'), graphProgram('cjs'))
    const out = exec(process.execPath, ['app.cjs'], { cwd: app })
    assert(out.includes('graph ok (cjs)'), out)
  })

  // The typings test's consumer (every public name, strictly typed, with
  // @ts-expect-error lines for misuse), now against the installed package.
  const fixture = path.join(root, '__test__', 'fixtures', 'typescript')
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc')
  for (const [resolution, config] of [['node16', 'tsconfig.json'], ['bundler', 'tsconfig.bundler.json']]) {
    check(`tsc --strict, moduleResolution ${resolution}`, () => {
      appReady()
      for (const file of ['consumer.ts', 'consumer-esm.mts', config]) copyFileSync(path.join(fixture, file), path.join(app, file))
      const options = JSON.parse(readFileSync(path.join(fixture, config), 'utf8').replace(/^\s*\/\/.*$/gm, '')).compilerOptions
      assert(options.strict === true && options.moduleResolution === resolution, `${config} is not strict ${resolution}`)
      exec(process.execPath, [tsc, '-p', config, '--noEmit', '--pretty', 'false'], { cwd: app })
    })
  }

  check(`without ${platformPackage}, the error names the platform and what to do`, () => {
    appReady()
    rmSync(path.join(app, 'node_modules', platformPackage), { recursive: true, force: true })
    const result = spawnSync(process.execPath, ['-e', `require(${JSON.stringify(pkg.name)})`], { cwd: app, encoding: 'utf8' })
    assert(result.status !== 0, 'loaded without its binary')
    for (const expected of [platform, `${platformPackage}@${pkg.version}`, 'ERR_AGENTCORE_NATIVE_BINDING']) {
      assert(result.stderr.includes(expected), `the error does not mention ${expected}:\n${result.stderr}`)
    }
  })
} finally {
  rmSync(work, { recursive: true, force: true })
}

const failed = results.filter((r) => !r.ok).length
console.log(`pack-test: ${results.length - failed} passed, ${failed} failed`)
process.exitCode = failed ? 1 : 0

/**
 * Users get a release build, which Cargo strips. A debug build (what `npm
 * test` makes) carries some 300 MB of debug info that would only slow npm
 * pack down; where `strip` exists, the staged copy loses it. The code stays
 * the one that was built.
 */
function stripDebugBuild(file) {
  if (process.platform !== 'linux' || statSync(file).size < 50e6) return
  try {
    execFileSync('strip', ['--strip-debug', file], { stdio: 'ignore' })
  } catch {
    // No strip: pack the binary as it is.
  }
}

/**
 * A program that runs a three-step graph twice on one thread against an
 * in-process local server, then reads the state back through a second
 * saver, and checks what it reads and that the server saw the writes.
 */
function graphProgram(kind) {
  const imports =
    kind === 'esm'
      ? `import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { Annotation, END, START, StateGraph } from '@langchain/langgraph'
import { AgentCoreSaver, startLocalMemory } from '${pkg.name}'
const require = createRequire(import.meta.url)`
      : `const assert = require('node:assert/strict')
const { Annotation, END, START, StateGraph } = require('@langchain/langgraph')
const { AgentCoreSaver, startLocalMemory } = require('${pkg.name}')`
  return `${imports}

const State = Annotation.Root({
  steps: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),
  total: Annotation({ reducer: (a, b) => a + b, default: () => 0 }),
})

function graph(checkpointer) {
  return new StateGraph(State)
    .addNode('one', () => ({ steps: ['one'], total: 1 }))
    .addNode('two', () => ({ steps: ['two'], total: 2 }))
    .addNode('three', () => ({ steps: ['three'], total: 3 }))
    .addEdge(START, 'one')
    .addEdge('one', 'two')
    .addEdge('two', 'three')
    .addEdge('three', END)
    .compile({ checkpointer })
}

async function main() {
  const server = await startLocalMemory()
  try {
    const config = { configurable: { thread_id: 'pack-test-${kind}' } }
    const saver = new AgentCoreSaver({ memoryId: server.memoryId, endpoint: server.endpoint })
    const first = await graph(saver).invoke({ steps: ['in'] }, config)
    assert.deepEqual(first, { steps: ['in', 'one', 'two', 'three'], total: 6 })
    const second = await graph(saver).invoke({ steps: ['again'] }, config)
    assert.deepEqual(second, { steps: ['in', 'one', 'two', 'three', 'again', 'one', 'two', 'three'], total: 12 })

    // A second saver shares nothing with the first but the server.
    const reader = graph(new AgentCoreSaver({ memoryId: server.memoryId, endpoint: server.endpoint }))
    assert.deepEqual((await reader.getState(config)).values, second)
    let history = 0
    for await (const _ of reader.getStateHistory(config)) history++
    assert.equal(history, 10) // per run: input, three steps, and the end
    assert.ok(server.stats().requests.CreateEvent >= 10, JSON.stringify(server.stats()))

    // The binary came from the platform package, not from the repository.
    const binary = Object.keys(require.cache).find((file) => file.endsWith('.node'))
    assert.match(binary, /node_modules[\\\\/]${platformPackage}[\\\\/]/)
  } finally {
    await server.close()
  }
  console.log('graph ok (${kind})')
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
`
}
