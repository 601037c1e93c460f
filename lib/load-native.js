'use strict'
// The native binding, through the loader `napi build` generates (native.js).
// When no binary matches this machine, the generated loader's error blames an
// npm bug and names neither the platform nor the package it looked for; this
// replaces it with one that says both and what to do, keeping the loader's
// errors as `cause`.

const { name, version, napi } = require('../package.json')
const { platformOf, thisPlatform } = require('./platform.js')

/** The messages of the loader error's `cause` chain, one per place it tried. */
function attempts(loaderError) {
  const messages = []
  for (let e = loaderError.cause; e && messages.length < 100; e = e.cause) messages.push(String(e.message))
  return messages
}

function noBinding(cause) {
  const platform = thisPlatform()
  const error = new Error(`${name}: no native binary loads on ${platform} (Node.js ${process.version}). ${advice(platform, cause)}`)
  error.code = 'ERR_AGENTCORE_NATIVE_BINDING'
  error.cause = cause
  return error
}

function advice(platform, cause) {
  // A binary that is there but cannot be loaded (too old a glibc, another
  // architecture) fails otherwise than with "Cannot find module".
  const broken = attempts(cause).find((message) => !message.startsWith('Cannot find module'))
  if (broken) return `A binary was found but failed to load: ${broken}`
  const supported = napi.targets.map(platformOf)
  if (!supported.includes(platform)) {
    return (
      `There is no prebuilt binary for ${platform}; there are for ${supported.join(', ')}. ` +
      'Run on one of those, or build the addon from source (see the README: Rust, then `npm run build`).'
    )
  }
  return (
    `Its binary comes in the optional dependency ${name}-${platform}@${version}, which was not installed. ` +
    'npm leaves optional dependencies out with --omit=optional (or --no-optional), and when the ' +
    'lockfile was made on another platform (https://github.com/npm/cli/issues/4828). Install with ' +
    'optional dependencies on the machine (or in the image) that runs the code, or add that package ' +
    "explicitly; when copying node_modules into a container, install for the container's platform."
  )
}

let binding
try {
  binding = require('../native.js')
} catch (cause) {
  // Only "nothing to load" is ours to explain; any other failure (a binary
  // that crashes on load, say) is rethrown as it came.
  if (!/^Cannot find native binding|^Failed to load native binding/.test(cause?.message)) throw cause
  throw noBinding(cause)
}

module.exports = binding
