// `npm run demo`: installs and builds what the example needs, then runs it.
import { run } from './run.mjs'
import { ensureBuilt, ensureDeps, root } from './setup.mjs'

try {
  await ensureDeps()
  // A debug build: it shares its compiled dependencies with `npm test`,
  // while a release build (full LTO) would take minutes more for a demo.
  await ensureBuilt({ release: false })
  console.log('> node examples/demo.mjs\n')
  await run(process.execPath, ['examples/demo.mjs', ...process.argv.slice(2)], { cwd: root })
} catch (error) {
  // The tool has already said what went wrong; this names the step.
  console.error(`\nnpm run demo: ${error.message}`)
  process.exitCode = 1
}
