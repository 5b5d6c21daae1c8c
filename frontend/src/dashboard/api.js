// The dashboard's only door to the server: the REST API under /api/, with the session cookie and CSRF token.

let csrfFallback = ''

export function setCsrf(token) {
  csrfFallback = token || ''
}

function cookie(name) {
  const match = document.cookie.split('; ').find((c) => c.startsWith(name + '='))
  return match ? decodeURIComponent(match.slice(name.length + 1)) : ''
}

// An HTML error page (a proxy's 502, a server's 500 page) said in words, not shown as markup: its title if any.
function htmlPageMessage(text, status) {
  const title = /<title[^>]*>([^<]{1,200})<\/title>/i.exec(text)?.[1]?.trim()
  const what = title ? (title.includes(String(status)) ? title : `${status} ${title}`) : String(status)
  return `HTTP ${what}: the server could not answer; try again in a moment`
}

// DRF errors come as {detail}, {field: [msgs]}, or lists; make one readable line of them.
export function errorMessage(data, status) {
  if (!data) return `HTTP ${status}`
  if (typeof data === 'string' && /^\s*<(!doctype|html|head|body|title|h1|p)\b/i.test(data)) return htmlPageMessage(data, status)
  if (typeof data === 'string') return data.slice(0, 300) || `HTTP ${status}`
  if (Array.isArray(data)) return data.map((d) => errorMessage(d, status)).join('; ')
  if (data.detail && Object.keys(data).length === 1) return String(data.detail)
  return Object.entries(data)
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.map((x) => (typeof x === 'object' ? JSON.stringify(x) : x)).join(' ') : typeof v === 'object' ? JSON.stringify(v) : v}`)
    .join('; ')
}

export class ApiError extends Error {
  constructor(status, data) {
    super(errorMessage(data, status))
    this.status = status
    this.data = data
  }
}

export function apiUrl(path, query) {
  const url = new URL('/api/' + path.replace(/^\/+/, ''), window.location.origin)
  for (const [k, v] of Object.entries(query || {})) {
    if (v !== undefined && v !== null && v !== '') url.searchParams.set(k, v)
  }
  return url.pathname + url.search
}

export async function api(path, { method = 'GET', body, form, query } = {}) {
  const headers = { Accept: 'application/json' }
  let payload
  if (form) payload = form
  else if (body !== undefined) {
    headers['Content-Type'] = 'application/json'
    payload = JSON.stringify(body)
  }
  if (method !== 'GET') headers['X-CSRFToken'] = cookie('csrftoken') || csrfFallback
  const res = await fetch(apiUrl(path, query), { method, headers, body: payload, credentials: 'same-origin' })
  const text = await res.text()
  let data = null
  try {
    data = text ? JSON.parse(text) : null
  } catch {
    data = text
  }
  if (!res.ok) throw new ApiError(res.status, data)
  return data
}

// Every page of a list (bounded: the dashboard never needs more than `cap` rows at once).
export async function all(path, query = {}, cap = 5000) {
  const rows = []
  let page = 1
  for (;;) {
    const data = await api(path, { query: { ...query, page, page_size: 500 } })
    rows.push(...data.results)
    if (!data.next || rows.length >= cap) return rows
    page += 1
  }
}

// Poll a Job until it ends; onUpdate sees every state (progress bars).
export async function watchJob(id, onUpdate, intervalMs = 600) {
  for (;;) {
    const job = await api(`jobs/${id}/`)
    onUpdate(job)
    if (job.status === 'done' || job.status === 'failed') return job
    await new Promise((r) => setTimeout(r, intervalMs))
  }
}
