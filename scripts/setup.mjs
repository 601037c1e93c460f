// Makes a fresh clone runnable: npm dependencies installed and matching the
// lockfile, and the native addon built. Plain Node only: this runs before
// node_modules exists.
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import { run } from './run.mjs'

export const root = fileURLToPath(new URL('..', import.meta.url))

// Written after a successful install: the digest of the manifests it installed.
const depsStamp = path.join(root, 'node_modules', '.lgca-deps-stamp')

/** Installs npm dependencies when node_modules is missing or older than the manifests. */
export async function ensureDeps() {
  if (readStamp() === manifestDigest()) return
  const locked = existsSync(path.join(root, 'package-lock.json'))
  console.log(`> npm ${locked ? 'ci' : 'install'} (node_modules is missing or stale)`)
  await run('npm', [locked ? 'ci' : 'install'], { cwd: root })
  // `npm install` may rewrite the lockfile: stamp what is there now.
  writeFileSync(depsStamp, manifestDigest())
}

/**
 * Builds the addon and regenerates its loader (native.js, native.d.ts).
 * Always invokes cargo: it is incremental, so an up-to-date build is cheap,
 * and cargo alone knows whether the Rust sources changed.
 */
export async function ensureBuilt({ release = false } = {}) {
  const args = ['build', '--platform', ...(release ? ['--release'] : [])]
  console.log(`> napi ${args.join(' ')} --js native.js --dts native.d.ts`)
  await run(process.execPath, [napiCli(), ...args, '--js', 'native.js', '--dts', 'native.d.ts'], {
    cwd: root,
    env: cargoEnv(),
  })
}

/**
 * The environment for cargo: one target directory outside the clone, shared
 * by `cargo test`, debug and release builds, so each builds the
 * dependencies once.
 */
export function cargoEnv() {
  const CARGO_TARGET_DIR = process.env.CARGO_TARGET_DIR || path.join(homedir(), '.cache', 'lgca', 'target')
  return { ...process.env, CARGO_TARGET_DIR }
}

/** The path of an installed package's command-line entry, run with this Node. */
export function binOf(packageName, binName) {
  const dir = path.join(root, 'node_modules', ...packageName.split('/'))
  const { bin } = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'))
  return path.join(dir, typeof bin === 'string' ? bin : bin[binName])
}

function napiCli() {
  return binOf('@napi-rs/cli', 'napi')
}

// What decides node_modules: the dependency fields of package.json and the
// lockfile. Scripts, metadata and the rest may change without a reinstall.
const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies', 'overrides']

function manifestDigest() {
  const hash = createHash('sha256')
  const manifest = path.join(root, 'package.json')
  const fields = existsSync(manifest) ? JSON.parse(readFileSync(manifest, 'utf8')) : {}
  hash.update(JSON.stringify(DEPENDENCY_FIELDS.map((field) => fields[field] ?? null)))
  const lock = path.join(root, 'package-lock.json')
  hash.update(existsSync(lock) ? readFileSync(lock) : '')
  return hash.digest('hex')
}

function readStamp() {
  return existsSync(depsStamp) ? readFileSync(depsStamp, 'utf8') : null
}
