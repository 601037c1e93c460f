// chart.svg: requests and p50 latency of getTuple (the newest checkpoint)
// against history length, one line per saver; a small SVG written by hand,
// as it needs no more than lines, points and labels.
import { percentile, requestsOf } from './stats.mjs'

const COLORS = ['#1f77b4', '#2ca02c', '#7f7f7f', '#d62728', '#ff7f0e', '#9467bd']
const W = 460
const H = 300
const PAD = { left: 60, right: 20, top: 40, bottom: 50 }

function panel(x0, title, yLabel, series, lengths) {
  const max = Math.max(1, ...series.flatMap((s) => s.points.map((p) => p[1])))
  const xs = (n) => x0 + PAD.left + (lengths.indexOf(n) / Math.max(1, lengths.length - 1)) * (W - PAD.left - PAD.right)
  const ys = (v) => PAD.top + (1 - v / max) * (H - PAD.top - PAD.bottom)
  const out = [
    `<text x="${x0 + W / 2}" y="20" text-anchor="middle" font-weight="bold">${title}</text>`,
    `<line x1="${x0 + PAD.left}" y1="${H - PAD.bottom}" x2="${x0 + W - PAD.right}" y2="${H - PAD.bottom}" stroke="#333"/>`,
    `<line x1="${x0 + PAD.left}" y1="${PAD.top}" x2="${x0 + PAD.left}" y2="${H - PAD.bottom}" stroke="#333"/>`,
    `<text x="${x0 + 14}" y="${H / 2}" transform="rotate(-90 ${x0 + 14} ${H / 2})" text-anchor="middle">${yLabel}</text>`,
    `<text x="${x0 + W / 2}" y="${H - 12}" text-anchor="middle">checkpoints in the thread (log scale)</text>`,
  ]
  for (const n of lengths) out.push(`<text x="${xs(n)}" y="${H - PAD.bottom + 16}" text-anchor="middle">${n}</text>`)
  for (const v of [0, max / 2, max]) {
    out.push(`<text x="${x0 + PAD.left - 6}" y="${ys(v) + 4}" text-anchor="end">${Number(v.toPrecision(3))}</text>`)
  }
  series.forEach((s, i) => {
    const d = s.points.map(([n, v], j) => `${j ? 'L' : 'M'}${xs(n).toFixed(1)},${ys(v).toFixed(1)}`).join(' ')
    out.push(`<path d="${d}" fill="none" stroke="${COLORS[i % COLORS.length]}" stroke-width="2"/>`)
    for (const [n, v] of s.points) out.push(`<circle cx="${xs(n).toFixed(1)}" cy="${ys(v).toFixed(1)}" r="3" fill="${COLORS[i % COLORS.length]}"/>`)
  })
  return out.join('\n')
}

export function chart(results) {
  const lengths = results.plan.lengths
  const serversOf = (latency, pick) =>
    Object.entries(results.operations[latency]).map(([label, byLength]) => ({
      label,
      points: lengths.map((n) => [n, pick(byLength[n].getTuple)]),
    }))
  const requests = serversOf(0, requestsOf)
  const latency = serversOf(10, (m) => percentile(m.latenciesMs, 50))
  const legend = requests
    .map((s, i) => `<g transform="translate(${20 + (i % 3) * 300},${H + 10 + Math.floor(i / 3) * 20})"><rect width="12" height="12" fill="${COLORS[i % COLORS.length]}"/><text x="18" y="11">${s.label}</text></g>`)
    .join('\n')
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${2 * W}" height="${H + 60}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
${panel(0, 'getTuple (newest): requests per call', 'requests', requests, lengths)}
${panel(W, 'getTuple (newest): p50 latency at 10 ms', 'milliseconds', latency, lengths)}
${legend}
</svg>
`
}
