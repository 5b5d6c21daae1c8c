// The element's only connection to the backend (docs/annotator-api.md).

export class ApiError extends Error {
  /** retryAfterMs: the answer's Retry-After in milliseconds (503 database_unavailable, 429), null without one. */
  constructor(status, body, message, { retryAfterMs = null } = {}) {
    super(message || `HTTP ${status}`)
    this.status = status
    this.body = body
    this.retryAfterMs = retryAfterMs
  }
}

/** A Retry-After header (delay-seconds or an HTTP date) in milliseconds from `now`; null when absent or unreadable. */
export function parseRetryAfter(value, now = Date.now()) {
  if (value == null) return null
  const text = String(value).trim()
  if (/^\d+$/.test(text)) return Number(text) * 1000
  if (!/^[A-Za-z]{3}, /.test(text)) return null // an HTTP date ("Tue, 01 Dec 2026 10:00:09 GMT"), nothing else
  const at = Date.parse(text)
  return Number.isNaN(at) ? null : Math.max(0, at - now)
}

async function readJson(res) {
  try {
    return await res.json()
  } catch {
    return null
  }
}

export function createApi({ apiBase = '', token, fetchImpl } = {}) {
  const doFetch = (...a) => (fetchImpl || globalThis.fetch)(...a)
  const base = `${(apiBase || '').replace(/\/$/, '')}/api/work/${encodeURIComponent(token || '')}`
  const json = { 'Content-Type': 'application/json', Accept: 'application/json' }

  async function call(method, path, body, extra = {}) {
    const res = await doFetch(`${base}${path}`, {
      method,
      headers: body === undefined ? { Accept: 'application/json' } : json,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      ...extra,
    })
    const data = await readJson(res)
    if (!res.ok) throw new ApiError(res.status, data, undefined, { retryAfterMs: parseRetryAfter(res.headers?.get?.('Retry-After')) })
    return data
  }

  // The draft's version on the server (the unit's draft_version, then each save's answer): saves and the submit
  // name it (JSON drops it while undefined), so a tab that is behind gets a 409 conflict, never overwrites.
  let version
  const noteVersion = (data) => ((version = data?.draft_version ?? version), data)

  return {
    base,
    getUnit: () => call('GET', '/unit').then(noteVersion),
    /** A unit the page embedded (no getUnit): its draft_version is what the next save names. */
    noteUnit: noteVersion,
    putDraft: (draft, { keepalive = false } = {}) =>
      call('PUT', '/draft', { draft, draft_version: version }, keepalive ? { keepalive: true } : {}).then(noteVersion),
    submit: (labels, timeOnTaskMs) =>
      call('POST', '/submit', { labels, time_on_task_ms: Math.round(timeOnTaskMs), draft_version: version }),
  }
}

/**
 * The platform's own submit (MTurk's externalSubmit): a real HTML form POST of assignmentId to `submitTo`, the full
 * URL the page was given. The element knows no platform paths; the provider that built the page does.
 */
export function postToMturk(submitTo, assignmentId, doc = document) {
  const form = doc.createElement('form')
  form.method = 'POST'
  form.action = submitTo
  form.style.display = 'none'
  for (const [name, value] of [['assignmentId', assignmentId || ''], ['factcrowd', 'submitted']]) {
    const input = doc.createElement('input')
    input.type = 'hidden'
    input.name = name
    input.value = value
    form.appendChild(input)
  }
  doc.body.appendChild(form)
  form.submit()
  return form
}
