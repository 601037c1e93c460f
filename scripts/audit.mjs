// `npm run audit`: the registry's audit of the runtime dependencies. They are
// peer dependencies (devDependencies here, which `npm audit --omit=dev` would
// skip), so the audit runs on the lockfile of a consumer that depends on
// them as a user's app does. Exits non-zero on any known vulnerability, and
// says so plainly, exiting with 2, when the registry offers no audit
// endpoint (some mirrors answer 405) or cannot be reached: that is "not
// checked", never "passed".
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

import { root } from './setup.mjs'

const npm = (args, cwd) =>
  spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, { cwd, encoding: 'utf8', shell: process.platform === 'win32' })

const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'))
const dir = mkdtempSync(path.join(tmpdir(), 'audit-'))
try {
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, dependencies: manifest.peerDependencies }))
  const lock = npm(['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], dir)
  if (lock.status !== 0) throw new Error(`npm install --package-lock-only failed:\n${lock.stderr}`)
  const report = JSON.parse(npm(['audit', '--omit=dev', '--json'], dir).stdout || '{}')
  if (report.error || !report.metadata) {
    // On stdout, where `npm test` picks up the `audit: ` line for its summary.
    console.log(`audit: NOT CHECKED: the registry's audit endpoint failed (${report.error?.summary || report.message || 'no report'})`)
    process.exitCode = 2
  } else {
    const { vulnerabilities, dependencies } = report.metadata
    console.log(`audit: ${dependencies.prod} runtime packages, ${vulnerabilities.total} known vulnerabilities`)
    if (vulnerabilities.total > 0) {
      console.log(npm(['audit', '--omit=dev'], dir).stdout)
      process.exitCode = 1
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
