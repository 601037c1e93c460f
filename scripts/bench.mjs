// `npm run bench`: installs and builds what is missing (npm dependencies,
// the release addon, a virtualenv with the Python saver), then runs
// bench/run.mjs, which writes bench/results/report.md, report.json and
// chart.svg.
//   npm run bench [-- --quick] [-- --no-build] [-- --no-python]
// --quick: smaller sizes, for development. --no-build: use the addon as it
// is (the report says which build it is). --no-python: leave the Python
// saver out.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'

import { run } from './run.mjs'
import { ensureBuilt, ensureDeps, root } from './setup.mjs'

let args
try {
  args = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      'no-build': { type: 'boolean', default: false },
      'no-python': { type: 'boolean', default: false },
    },
  }).values
} catch (error) {
  console.error(`npm run bench: ${error.message}; the options are --quick, --no-build and --no-python`)
  process.exit(2)
}
const venv = path.join(root, 'bench', '.venv')
const venvPython = process.platform === 'win32' ? path.join(venv, 'Scripts', 'python.exe') : path.join(venv, 'bin', 'python')
const requirements = path.join(root, 'bench', 'requirements.txt')

/**
 * bench/.venv's Python with the Python saver installed, or the reason the
 * benchmark goes without it.
 */
async function pythonSaver() {
  if (args['no-python']) return { skipped: 'left out with --no-python' }
  const system = ['python3', 'python'].find((p) => spawnSync(p, ['--version'], { stdio: 'ignore' }).status === 0)
  if (!system && !existsSync(venvPython)) {
    console.log('> no Python found: the benchmark leaves the Python saver out')
    return { skipped: 'no Python on this machine' }
  }
  try {
    if (!existsSync(venvPython)) {
      console.log('> python -m venv bench/.venv')
      await run(system, ['-m', 'venv', venv])
    }
    const probe = spawnSync(venvPython, ['-c', 'import langgraph_checkpoint_aws, langgraph, boto3'], { stdio: 'ignore' })
    if (probe.status !== 0) {
      console.log('> pip install -r bench/requirements.txt (into bench/.venv)')
      await run(venvPython, ['-m', 'pip', 'install', '--quiet', '-r', requirements])
    }
    return { python: venvPython }
  } catch (error) {
    console.log(`> the Python saver could not be installed, the benchmark leaves it out: ${error.message}`)
    return { skipped: `could not be installed (${error.message})` }
  }
}

try {
  await ensureDeps()
  if (!args['no-build']) await ensureBuilt({ release: true })
  const { python, skipped } = await pythonSaver()
  const typed = process.argv.slice(2)
  const command = `npm run bench${typed.length ? ` -- ${typed.join(' ')}` : ''}`
  await run(
    process.execPath,
    [
      path.join(root, 'bench', 'run.mjs'),
      ...(args.quick ? ['--quick'] : []),
      ...(python ? ['--python', python] : ['--python-skipped', skipped]),
      '--command',
      command,
    ],
    { cwd: root },
  )
} catch (error) {
  console.error(`\nnpm run bench: ${error.message}`)
  process.exitCode = 1
}
