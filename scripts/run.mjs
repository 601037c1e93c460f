// Runs the tools the scripts drive (npm, cargo, napi, pip, ava) as child
// processes with their output streamed, so a failure reads in the tool's own
// words. Plain Node only: this runs before node_modules exists.
import { spawn } from 'node:child_process'

const ANSI = /\x1b\[[0-9;]*m/g

/**
 * Runs `command` and resolves when it exits with 0; rejects otherwise.
 * With `keep` (a RegExp), stdout is passed through while the lines matching
 * it are collected and resolved, e.g. a test runner's summary lines.
 */
export function run(command, args, { cwd, env, keep } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env,
      stdio: ['inherit', keep ? 'pipe' : 'inherit', 'inherit'],
      // npm is a .cmd script on Windows, which only a shell can start.
      shell: process.platform === 'win32' && command === 'npm',
    })
    const kept = keep ? collectLines(child.stdout, keep) : []
    child.on('error', (error) => reject(new Error(`cannot run ${command}: ${error.message}`)))
    child.on('close', (code, signal) => {
      if (code === 0) resolve(kept)
      else reject(Object.assign(new Error(`${describe(command, args)} ${exitReason(code, signal)}`), { kept }))
    })
  })
}

function collectLines(stream, pattern) {
  const kept = []
  let partial = ''
  stream.on('data', (chunk) => {
    process.stdout.write(chunk)
    const lines = (partial + chunk.toString('utf8')).split('\n')
    partial = lines.pop()
    for (const line of lines) keepIfMatching(kept, line, pattern)
  })
  stream.on('end', () => keepIfMatching(kept, partial, pattern))
  return kept
}

function keepIfMatching(kept, line, pattern) {
  const plain = line.replace(ANSI, '').trim()
  if (pattern.test(plain)) kept.push(plain)
}

function describe(command, args) {
  return [command, ...args].join(' ')
}

function exitReason(code, signal) {
  return signal ? `was stopped by ${signal}` : `exited with code ${code}`
}
