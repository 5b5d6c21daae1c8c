// The element's only connection to the backend (docs/annotator-api.md).

export class ApiError extends Error {
  constructor(status, body, message) {
    super(message || `HTTP ${status}`)
    this.status = status
    this.body = body
  }
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
    if (!res.ok) throw new ApiError(res.status, data)
    return data
  }

  return {
    base,
    getUnit: () => call('GET', '/unit'),
    putDraft: (draft, { keepalive = false } = {}) => call('PUT', '/draft', { draft }, keepalive ? { keepalive: true } : {}),
    submit: (labels, timeOnTaskMs) => call('POST', '/submit', { labels, time_on_task_ms: Math.round(timeOnTaskMs) }),
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
