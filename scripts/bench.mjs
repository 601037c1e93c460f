// `npm run bench`: installs and builds what is missing (npm dependencies,
// the release addon, a virtualenv with the Python saver), then runs
// bench/run.mjs, which writes bench/results/report.md, report.json and
// chart.svg. Arguments go to bench/run.mjs: --quick for a short run,
// --no-build to use the addon as it is, --no-python to leave Python out.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'

import { run } from './run.mjs'
import { ensureBuilt, ensureDeps, root } from './setup.mjs'

const args = process.argv.slice(2)
const venv = path.join(root, 'bench', '.venv')
const venvPython = process.platform === 'win32' ? path.join(venv, 'Scripts', 'python.exe') : path.join(venv, 'bin', 'python')

/** The virtualenv's Python with the Python saver installed, or undefined (and why) if Python is missing. */
async function pythonSaverEnv() {
  const system = ['python3', 'python'].find((p) => spawnSync(p, ['--version'], { stdio: 'ignore' }).status === 0)
  if (!system) {
    console.log('> no Python found: the benchmark leaves the Python saver out')
    return undefined
  }
  if (!existsSync(venvPython)) await run(system, ['-m', 'venv', venv])
  const probe = spawnSync(venvPython, ['-c', 'import langgraph_checkpoint_aws, langgraph'], { stdio: 'ignore' })
  if (probe.status !== 0) {
    console.log('> pip install -r bench/requirements.txt')
    await run(venvPython, ['-m', 'pip', 'install', '--quiet', '-r', path.join(root, 'bench', 'requirements.txt')])
  }
  return venvPython
}

try {
  await ensureDeps()
  const build = args.includes('--no-build') ? 'as found (--no-build)' : 'release'
  if (build === 'release') await ensureBuilt({ release: true })
  const python = args.includes('--no-python') ? undefined : await pythonSaverEnv()
  const passed = args.filter((a) => a !== '--no-build')
  const pythonArgs = python ? ['--python', python] : ['--no-python']
  await run(process.execPath, [path.join(root, 'bench', 'run.mjs'), ...passed.filter((a) => a !== '--no-python'), ...pythonArgs, '--build', build], { cwd: root })
} catch (error) {
  console.error(`\nnpm run bench: ${error.message}`)
  process.exitCode = 1
}
