// Chat-like text for the benchmark's channel values. Repeated filler would
// compress far better than real conversations and flatter any saver that
// compresses, so the words are drawn at random (from a fixed seed, so every
// run and both languages get the same text): mostly common English words,
// with made-up words and numbers standing in for names, code and figures.
// The report states how well the result compresses (gzip) for reference.
import { gzipSync } from 'node:zlib'

const COMMON = (
  'the of and to a in is it you that he was for on are with as his they be at one have this from or had by not ' +
  'word but what some we can out other were all there when up use your how said an each she which do their time ' +
  'if will way about many then them write would like so these her long make thing see him two has look more day ' +
  'could go come did number sound no most people my over know water than call first who may down side been now ' +
  'find any new work part take get place made live where after back little only round man year came show every ' +
  'good me give our under name very through just form sentence great think say help low line differ turn cause ' +
  'much mean before move right boy old too same tell does set three want air well also play small end put home ' +
  'read hand port large spell add even land here must big high such follow act why ask men change went light'
).split(' ')
const SYLLABLES = 'ka ri to me sa lu ne po vi da the ron gal mis tor pen wex qua bri sol dan fu zel mar kin hol vy tres nor bam'.split(' ')

/** A seeded generator (mulberry32): the same text on every run. */
function random(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32
  }
}

function word(next) {
  const r = next()
  if (r < 0.78) return COMMON[Math.floor(next() * COMMON.length)]
  if (r < 0.95) {
    const n = 2 + Math.floor(next() * 2)
    return Array.from({ length: n }, () => SYLLABLES[Math.floor(next() * SYLLABLES.length)]).join('')
  }
  return String(Math.floor(next() * 100000))
}

function sentence(next, chars) {
  const words = []
  let length = 0
  while (length < chars) {
    const w = word(next)
    words.push(w)
    length += w.length + 1
  }
  const text = words.join(' ')
  return text[0].toUpperCase() + text.slice(1) + '.'
}

/**
 * `count` chat messages, alternating user (about 120 characters) and
 * assistant (about 480): `{ role, content }`, as a messages channel holds.
 */
export function chatMessages(count, seed = 1) {
  const next = random(seed)
  return Array.from({ length: count }, (_, i) =>
    i % 2 === 0 ? { role: 'user', content: sentence(next, 120) } : { role: 'assistant', content: sentence(next, 480) },
  )
}

/** How many times smaller gzip makes the JSON of `value`: the text's own compressibility. */
export function gzipRatio(value) {
  const json = Buffer.from(JSON.stringify(value))
  return json.length / gzipSync(json).length
}
