// Summaries of the raw measurements, shared by the report and the chart.

export function percentile(values, p) {
  if (!values.length) return NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
}

/** Requests of every kind per call. */
export const requestsOf = (m) => Object.values(m.requests).reduce((a, b) => a + b, 0)

/** `1 ListEvents`, `2 CreateEvent + 1 DeleteEvent`, or `0`. */
export function requestText(m) {
  const parts = Object.entries(m.requests).map(([op, n]) => `${round(n)} ${op}`)
  return parts.length ? parts.join(' + ') : '0'
}

export function round(x) {
  if (!Number.isFinite(x)) return '–'
  if (x === 0) return '0'
  if (Math.abs(x) >= 100) return x.toFixed(0)
  if (Math.abs(x) >= 10) return x.toFixed(1)
  return x.toFixed(2).replace(/\.?0+$/, '') || '0'
}
