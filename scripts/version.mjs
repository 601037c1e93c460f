// `npm version <new>` runs this (the `version` script) after it has set the
// new version in package.json and before it commits: every other place that
// names the package's version follows. `napi version` updates npm/*/package.json
// only; the crate's version in Cargo.toml (and Cargo.lock) and the version
// the generated loader (native.js) expects of its platform packages are set
// here. scripts/pack-test.mjs fails when any of them differs.
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'

import { run } from './run.mjs'
import { binOf, root } from './setup.mjs'

const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'))

await run(process.execPath, [binOf('@napi-rs/cli', 'napi'), 'version'], { cwd: root })

// The root crate's own version: the first `version` under `[package]`.
rewrite('Cargo.toml', /^(\[package\][^[]*?^version\s*=\s*")[^"]+(")/m, `$1${version}$2`)
// Cargo.lock's entry for the workspace's crates, as cargo itself writes it.
await run('cargo', ['update', '--workspace'], { cwd: root })

// What `napi build` would write into the loader for this version, without a
// build: the version its platform-package checks compare against.
rewrite('native.js', /(bindingPackageVersion !== ')[^']+(')/g, `$1${version}$2`)
rewrite('native.js', /(package version mismatch, expected )\S+( but got)/g, `$1${version}$2`)

// Inside `npm version`, stage them so its commit has them too.
if (process.env.npm_lifecycle_event === 'version') {
  const platforms = readdirSync(path.join(root, 'npm')).map((dir) => path.join('npm', dir, 'package.json'))
  execFileSync('git', ['add', 'Cargo.toml', 'Cargo.lock', 'native.js', ...platforms], { cwd: root, stdio: 'inherit' })
}
console.log(`version ${version}: package.json, npm/*/package.json, Cargo.toml, Cargo.lock, native.js`)

function rewrite(file, pattern, replacement) {
  const full = path.join(root, file)
  const before = readFileSync(full, 'utf8')
  if (before.search(pattern) === -1) throw new Error(`${file}: no version found to set`)
  writeFileSync(full, before.replace(pattern, replacement))
}

