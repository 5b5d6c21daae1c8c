// Small display helpers shared by the screens.
export const pct = (v, digits = 1) => (v === null || v === undefined ? '—' : `${Number(v).toFixed(digits)}%`)
export const num = (v, digits = 3) => (v === null || v === undefined ? '—' : Number(v).toFixed(digits))
export const share = (v) => (v === null || v === undefined ? '—' : `${(100 * v).toFixed(1)}%`)
export const secs = (v) => (v === null || v === undefined ? '—' : v < 90 ? `${Math.round(v)} s` : `${(v / 60).toFixed(1)} min`)
export const when = (iso) => (iso ? new Date(iso).toLocaleString() : '—')
export const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`
// Imported QASem / FActScore responses arrive decomposed: they count as parsed (the parser leaves them alone).
export const parsedLabel = (r) => (r.parsed_at ? 'yes' : r.qa_count || r.fact_count ? 'imported' : 'no')

export const STATUS_COLORS = {
  open: '#5b8def', complete: '#2f9e66', closed: '#8a94a6',
  assigned: '#5b8def', submitted: '#e0a526', approved: '#2f9e66', rejected: '#d9534f', expired: '#8a94a6', returned: '#b07cc6',
  draft: '#8a94a6', published: '#5b8def', imported: '#b07cc6',
  unknown: '#8a94a6', valid: '#2f9e66', invalid: '#d9534f',
  kept: '#2f9e66', fixed: '#5b8def', split: '#b07cc6', dropped: '#d9534f',
}
