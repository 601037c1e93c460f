// Which build of the addon (and so of the local server, which runs inside
// it) the benchmark measured: a debug build is many times slower, and the
// report must say so rather than trust how the run was invoked.
import { closeSync, existsSync, openSync, readSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'

const require = createRequire(import.meta.url)
const { thisPlatform } = require('../lib/platform.js')
const { napi } = require('../package.json')

/** The addon file this checkout loads first: the one `napi build --platform` writes at the root. */
export function addonPath(root) {
  const file = path.join(root, `${napi.binaryName}.${thisPlatform()}.node`)
  return existsSync(file) ? file : undefined
}

function read(fd, position, length) {
  const buffer = Buffer.alloc(length)
  readSync(fd, buffer, 0, length, position)
  return buffer
}

/**
 * The names of an ELF64 little-endian file's sections, or undefined for
 * any other format (macOS and Windows binaries).
 */
function elfSections(file) {
  const fd = openSync(file, 'r')
  try {
    const header = read(fd, 0, 64)
    if (header.readUInt32BE(0) !== 0x7f454c46 || header[4] !== 2 || header[5] !== 1) return undefined
    const shoff = Number(header.readBigUInt64LE(0x28))
    const shentsize = header.readUInt16LE(0x3a)
    const shnum = header.readUInt16LE(0x3c)
    const shstrndx = header.readUInt16LE(0x3e)
    const table = read(fd, shoff, shentsize * shnum)
    const strings = table.subarray(shstrndx * shentsize)
    const names = read(fd, Number(strings.readBigUInt64LE(0x18)), Number(strings.readBigUInt64LE(0x20)))
    return Array.from({ length: shnum }, (_, i) => {
      const start = table.readUInt32LE(i * shentsize)
      return names.toString('latin1', start, names.indexOf(0, start))
    })
  } finally {
    closeSync(fd)
  }
}

/**
 * `release` or `debug`, judged from the file: Cargo's dev profile keeps
 * DWARF debug info (`.debug_info`), the release profile strips symbols.
 */
export function addonBuild(root) {
  const file = addonPath(root)
  if (!file) return 'unknown (no addon at the root of the checkout)'
  const sections = elfSections(file)
  if (!sections) return 'unknown (not an ELF file)'
  return sections.includes('.debug_info') ? 'debug' : 'release'
}
