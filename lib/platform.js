'use strict'
// Platform names as napi-rs spells them (`linux-x64-gnu`, `darwin-arm64`,
// `win32-x64-msvc`): the suffix of each platform package's name and of its
// `.node` file.

const ARCH = { x86_64: 'x64', aarch64: 'arm64', i686: 'ia32', armv7: 'arm' }
const SYSTEM = [
  [/-unknown-linux-gnu$/, 'linux', '-gnu'],
  [/-unknown-linux-musl$/, 'linux', '-musl'],
  [/-apple-darwin$/, 'darwin', ''],
  [/-pc-windows-msvc$/, 'win32', '-msvc'],
]

/** The platform of a Rust target of `napi.targets`, e.g. `linux-arm64-musl`. */
function platformOf(triple) {
  const arch = ARCH[triple.split('-')[0]]
  const system = SYSTEM.find(([pattern]) => pattern.test(triple))
  return arch && system ? `${system[1]}-${arch}${system[2]}` : triple
}

/** This machine in the same naming, e.g. `linux-x64-musl`. */
function thisPlatform() {
  const base = `${process.platform}-${process.arch}`
  if (process.platform === 'win32') return `${base}-msvc`
  if (process.platform !== 'linux') return base
  // glibc reports its version in the process report; musl does not.
  const glibc = process.report?.getReport?.()?.header?.glibcVersionRuntime
  return `${base}-${glibc ? 'gnu' : 'musl'}`
}

module.exports = { platformOf, thisPlatform }
