// The Python virtual environment (.venv) with boto3, for the test that
// drives the local server with the official Python SDK.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'

import { run } from './run.mjs'
import { root } from './setup.mjs'

const venvDir = path.join(root, '.venv')
const requirements = path.join(root, '__test__', 'fixtures', 'requirements.txt')

/** The interpreter of .venv, whether or not it exists yet. */
export const venvPython =
  process.platform === 'win32' ? path.join(venvDir, 'Scripts', 'python.exe') : path.join(venvDir, 'bin', 'python')

/** Creates .venv and installs boto3 into it unless boto3 already knows the service. */
export async function ensureBoto3Env() {
  if (!existsSync(venvPython)) {
    console.log('> python -m venv .venv')
    await run(systemPython(), ['-m', 'venv', venvDir])
  }
  if (knowsAgentCore()) return
  console.log('> pip install -r __test__/fixtures/requirements.txt')
  await run(venvPython, ['-m', 'pip', 'install', '--quiet', '--upgrade', '-r', requirements])
}

// An old boto3 imports fine but has no 'bedrock-agentcore' client.
function knowsAgentCore() {
  const probe =
    "import sys, boto3; sys.exit('bedrock-agentcore' not in boto3.session.Session().get_available_services())"
  return spawnSync(venvPython, ['-c', probe], { stdio: 'ignore' }).status === 0
}

function systemPython() {
  return process.platform === 'win32' ? 'python' : 'python3'
}
