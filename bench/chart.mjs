// chart.svg: requests per call (at 0 ms) and p50 latency (at 10 ms) against
// history length, one panel per operation, one line per saver. A small SVG
// written here: it needs only axes, lines, points and labels, and the npm
// charting libraries draw through a browser or a canvas.
import { percentile, requestsOf } from './stats.mjs'

const COLORS = ['#1f77b4', '#2ca02c', '#7f7f7f', '#d62728', '#ff7f0e', '#9467bd']
// Series often coincide (two savers at 1 request, two at 0): each later one
// is drawn thinner and dashed over the earlier, so that all stay visible.
const DASHES = ['', '8 4', '', '3 3', '8 3 2 3', '']
const style = (i, count) => ({
  color: COLORS[i % COLORS.length],
  width: 1.5 + 1.2 * (count - 1 - i),
  dash: DASHES[i % DASHES.length],
})
const W = 400
const H = 240
const PAD = { left: 56, right: 16, top: 30, bottom: 42 }
const OPS = [
  ['getTuple', 'getTuple, newest'],
  ['getTupleByIdFresh', 'getTuple, older id, new saver'],
  ['list', 'list, limit 10'],
  ['put', 'put'],
]

/** A round tick step (1, 2 or 5 times a power of ten) giving about four ticks up to `max`. */
function niceStep(max) {
  const raw = max / 4
  const magnitude = 10 ** Math.floor(Math.log10(raw))
  const n = raw / magnitude
  return (n <= 1 ? 1 : n <= 2 ? 2 : n <= 5 ? 5 : 10) * magnitude
}

const escape = (text) => String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
const fmt = (v) => String(Number(v.toPrecision(2)))

/** One panel at (x0, y0): x on a log scale; y linear from 0, or log when `logY`. */
function panel(x0, y0, { title, series, lengths, logY }) {
  const values = series.flatMap((s) => s.points.map(([, v]) => v)).filter((v) => Number.isFinite(v) && (!logY || v > 0))
  const step = logY ? undefined : niceStep(Math.max(1, ...values))
  const [lo, hi] = logY
    ? [10 ** Math.floor(Math.log10(Math.min(...values, 1))), 10 ** Math.ceil(Math.log10(Math.max(...values, 1)))]
    : [0, Math.ceil((Math.max(1, ...values) * 1.05) / step) * step]
  const xMin = Math.log10(lengths[0])
  const xMax = Math.log10(lengths.at(-1))
  const xs = (n) => x0 + PAD.left + ((Math.log10(n) - xMin) / Math.max(1e-9, xMax - xMin)) * (W - PAD.left - PAD.right)
  const yFrac = (v) => (logY ? (Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo)) : (v - lo) / (hi - lo))
  const ys = (v) => y0 + PAD.top + (1 - yFrac(v)) * (H - PAD.top - PAD.bottom)
  const bottom = y0 + H - PAD.bottom
  const out = [
    `<text x="${x0 + W / 2}" y="${y0 + 18}" text-anchor="middle" font-weight="bold">${escape(title)}</text>`,
    `<line x1="${x0 + PAD.left}" y1="${bottom}" x2="${x0 + W - PAD.right}" y2="${bottom}" stroke="#333"/>`,
    `<line x1="${x0 + PAD.left}" y1="${y0 + PAD.top}" x2="${x0 + PAD.left}" y2="${bottom}" stroke="#333"/>`,
    `<text x="${x0 + W / 2}" y="${y0 + H - 8}" text-anchor="middle" fill="#555">checkpoints in the thread (log scale)</text>`,
  ]
  for (const n of lengths) out.push(`<text x="${xs(n)}" y="${bottom + 15}" text-anchor="middle">${n}</text>`)
  const ticks = logY
    ? Array.from({ length: Math.round(Math.log10(hi / lo)) + 1 }, (_, i) => lo * 10 ** i)
    : Array.from({ length: Math.round(hi / step) + 1 }, (_, i) => i * step)
  for (const v of ticks) {
    out.push(`<line x1="${x0 + PAD.left}" y1="${ys(v)}" x2="${x0 + W - PAD.right}" y2="${ys(v)}" stroke="#eee"/>`)
    out.push(`<text x="${x0 + PAD.left - 6}" y="${ys(v) + 4}" text-anchor="end">${fmt(v)}</text>`)
  }
  series.forEach((s, i) => {
    const { color, width, dash } = style(i, series.length)
    const points = s.points.filter(([, v]) => Number.isFinite(v) && (!logY || v > 0))
    if (!points.length) return
    const d = points.map(([n, v], j) => `${j ? 'L' : 'M'}${xs(n).toFixed(1)},${ys(v).toFixed(1)}`).join(' ')
    out.push(`<path d="${d}" fill="none" stroke="${color}" stroke-width="${width}"${dash ? ` stroke-dasharray="${dash}"` : ''}/>`)
    for (const [n, v] of points) out.push(`<circle cx="${xs(n).toFixed(1)}" cy="${ys(v).toFixed(1)}" r="${1 + width / 2 + 1}" fill="${color}"/>`)
  })
  return out.join('\n')
}

export function chart(results) {
  const lengths = results.plan.lengths
  const labels = [...new Set(Object.values(results.operations).flatMap(Object.keys))]
  const seriesOf = (latency, op, pick) =>
    labels.map((label) => ({
      label,
      points: lengths.map((n) => [n, results.operations[latency]?.[label]?.[n]?.[op] ? pick(results.operations[latency][label][n][op]) : NaN]),
    }))
  const slow = results.plan.latencies.at(-1)
  const panels = OPS.flatMap(([op, title], row) => [
    panel(0, row * H, { title: `${title}: requests`, series: seriesOf(0, op, requestsOf), lengths }),
    panel(W, row * H, { title: `${title}: p50 ms at ${slow} ms (log)`, series: seriesOf(slow, op, (m) => percentile(m.latenciesMs, 50)), lengths, logY: true }),
  ])
  const top = OPS.length * H + 8
  const legend = labels.map((label, i) => {
    const { color, width, dash } = style(i, labels.length)
    const line = `<line x1="0" y1="6" x2="28" y2="6" stroke="${color}" stroke-width="${width}"${dash ? ` stroke-dasharray="${dash}"` : ''}/>`
    return `<g transform="translate(${20 + (i % 2) * W},${top + Math.floor(i / 2) * 20})">${line}<text x="36" y="11">${escape(label)}</text></g>`
  })
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${2 * W}" height="${top + Math.ceil(labels.length / 2) * 20 + 10}" viewBox="0 0 ${2 * W} ${top + Math.ceil(labels.length / 2) * 20 + 10}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
${panels.join('\n')}
${legend.join('\n')}
</svg>
`
}
