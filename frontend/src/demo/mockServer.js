// A fake backend for demo.html: answers the element's three endpoints from memory (drafts kept in localStorage).
import { sampleUnit } from './sampleUnit.js'

export function installMockServer({ mode, rag, preview, failDrafts = false, latency = 150 }) {
  const storeKey = `factcrowd-demo-draft-${mode}-${rag ? 'rag' : 'plain'}`
  const realFetch = window.fetch.bind(window)
  const log = (...a) => console.info('[mock]', ...a)
  const reply = (status, body) =>
    new Promise((r) => setTimeout(() => r(new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } })), latency))

  window.fetch = async (url, init = {}) => {
    const u = String(url)
    if (!u.includes('/api/work/')) return realFetch(url, init)
    const method = (init.method || 'GET').toUpperCase()
    if (u.endsWith('/unit')) {
      const saved = localStorage.getItem(storeKey)
      return reply(200, sampleUnit({ mode, rag, preview, draft: saved ? JSON.parse(saved) : null }))
    }
    if (u.endsWith('/draft') && method === 'PUT') {
      if (failDrafts) return Promise.reject(new TypeError('Failed to fetch'))
      localStorage.setItem(storeKey, JSON.stringify(JSON.parse(init.body).draft))
      return reply(200, { saved_at: new Date().toISOString() })
    }
    if (u.endsWith('/submit') && method === 'POST') {
      log('submit', JSON.parse(init.body))
      window.__lastSubmit = JSON.parse(init.body)
      return reply(200, { status: 'submitted', duplicate: false })
    }
    return reply(404, { detail: 'not found' })
  }
  return { reset: () => localStorage.removeItem(storeKey) }
}
