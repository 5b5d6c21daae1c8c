// The Batches view's launch box (Units & launch): publishing sends exactly the reward and assignments that were
// estimated, and a changed input makes the estimate out of date; closing a batch takes a second, inline confirm;
// a failed load says so in the error line instead of showing an empty list.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { flushPromises, mount } from '@vue/test-utils'
import Batches from '../src/dashboard/views/Batches.vue'
import { setManifest } from '../src/dashboard/manifest.js'
import manifest from './fixtures/manifest.json'

const batchRow = (status) => ({ id: 7, name: 'b', provider: 'local', status, unit_count: 2, publishable: status === 'draft',
  publish_blockers: [], units_by_status: {}, settings: {}, published_at: null })

// A stub server: every request is recorded (method, path, query, body); the estimate answers from its query.
function server(status) {
  const calls = []
  const reply = (data, code = 200) => Promise.resolve(new Response(JSON.stringify(data), { status: code }))
  vi.stubGlobal('fetch', vi.fn((url, opts = {}) => {
    const u = new URL(url, 'http://x.test')
    const path = u.pathname
    calls.push({ method: opts.method || 'GET', path, query: Object.fromEntries(u.searchParams),
      body: opts.body ? JSON.parse(opts.body) : null })
    if (path.endsWith('/estimate/')) {
      const reward = u.searchParams.get('reward')
      const n = Number(u.searchParams.get('assignments_per_unit'))
      return reply({ units: 2, assignments_per_unit: n, reward, currency: 'USD', fees: '0.00',
        total: (2 * n * Number(reward)).toFixed(2), balance: null, publishable: true, publish_blockers: [] })
    }
    if (path.endsWith('/publish/')) return reply({ id: 5, kind: 'publish', status: 'queued', done: 0, total: 2, result: {} }, 202)
    if (path.includes('/jobs/')) return reply({ id: 5, kind: 'publish', status: 'done', done: 2, total: 2, result: { published: 2 } })
    if (path.endsWith('/close/')) return reply({})
    if (path.endsWith('/batches/')) return reply({ results: [batchRow(status)] })
    if (path.endsWith('/units/')) return reply({ count: 0, results: [] })
    return reply({})
  }))
  return calls
}

const posts = (calls, end) => calls.filter((c) => c.method === 'POST' && c.path.endsWith(end))

async function mounted() {
  setManifest(manifest)
  const w = mount(Batches, { props: { project: { id: 1, annotations_per_item: 3 } } })
  await flushPromises()
  return w
}

async function estimate(w, reward, n) {
  await w.find('input[name=reward]').setValue(reward)
  await w.find('input[name=assignments_per_unit]').setValue(n)
  await w.find('[data-testid="estimate"]').trigger('submit')
  await flushPromises()
}

afterEach(() => vi.unstubAllGlobals())

describe('Batches launch', () => {
  it('publishes only what was estimated; a changed input makes the estimate out of date', async () => {
    const calls = server('draft')
    const w = await mounted()
    await estimate(w, '0.50', 3)
    expect(w.find('[data-testid="estimate-total"]').text()).toBe('3.00 USD')
    expect(w.find('[data-testid="estimate-stale"]').exists()).toBe(false)
    expect(w.find('[data-testid="confirm-publish"]').element.disabled).toBe(false)

    // Change both inputs without estimating again: the old estimate can no longer be confirmed.
    await w.find('input[name=reward]').setValue('9.99')
    await w.find('input[name=assignments_per_unit]').setValue(20)
    expect(w.find('[data-testid="estimate-stale"]').exists()).toBe(true)
    expect(w.find('[data-testid="estimate-stale"]').text()).toContain('out of date')
    const button = w.find('[data-testid="confirm-publish"]')
    expect(!button.exists() || button.element.disabled).toBe(true)
    if (button.exists()) await button.trigger('click')
    await flushPromises()
    expect(posts(calls, '/publish/')).toEqual([])

    // Back to the estimated values: confirmable again, without another request.
    await w.find('input[name=reward]').setValue('0.50')
    await w.find('input[name=assignments_per_unit]').setValue(3)
    expect(w.find('[data-testid="estimate-stale"]').exists()).toBe(false)
    expect(w.find('[data-testid="confirm-publish"]').element.disabled).toBe(false)

    // Estimate the new values, then publish: the body carries exactly the estimated ones.
    await estimate(w, '9.99', 20)
    expect(w.find('[data-testid="estimate-total"]').text()).toBe('399.60 USD')
    await w.find('[data-testid="confirm-publish"]').trigger('click')
    await flushPromises()
    const published = posts(calls, '/publish/')
    expect(published.length).toBe(1)
    expect(published[0].body).toMatchObject({ reward: '9.99', assignments_per_unit: 20, confirm: true })
    expect(w.find('[data-testid="info"]').text()).toBe('Published 2 units on local.')
  })

  it('a failed estimate hides the earlier one; a new estimate clears the error', async () => {
    server('draft')
    const w = await mounted()
    await estimate(w, '0.50', 3)
    expect(w.find('[data-testid="estimate-total"]').text()).toBe('3.00 USD')
    // The stub answers 400 to the next estimate, as the server does for an invalid reward: the earlier estimate
    // (for other inputs) must not stay confirmable next to the error.
    const ok = globalThis.fetch.getMockImplementation()
    globalThis.fetch.mockImplementationOnce(() =>
      Promise.resolve(new Response(JSON.stringify({ reward: ['A valid number is required.'] }), { status: 400 })))
    await estimate(w, 'abc', 3)
    expect(w.find('[data-testid="error"]').text()).toContain('reward: A valid number is required')
    expect(w.find('[data-testid="confirm"]').exists()).toBe(false)
    globalThis.fetch.mockImplementation(ok)
    await estimate(w, '0.50', 3)
    expect(w.find('[data-testid="error"]').exists()).toBe(false)
    expect(w.find('[data-testid="estimate-total"]').text()).toBe('3.00 USD')
  })

  it('closes a batch only after the inline confirm; "Keep it open" sends nothing', async () => {
    const calls = server('published')
    const w = await mounted()
    await w.find('[data-testid="close-batch"]').trigger('click')
    await flushPromises()
    expect(posts(calls, '/close/')).toEqual([])
    expect(w.find('[data-testid="close-confirm"]').text()).toContain(
      'Close this batch? Workers can no longer take its units; it cannot be reopened.')

    await w.find('[data-testid="keep-open"]').trigger('click')
    await flushPromises()
    expect(posts(calls, '/close/')).toEqual([])
    expect(w.find('[data-testid="close-confirm"]').exists()).toBe(false)

    await w.find('[data-testid="close-batch"]').trigger('click')
    await w.find('[data-testid="confirm-close"]').trigger('click')
    await flushPromises()
    expect(posts(calls, '/close/').map((c) => c.path)).toEqual(['/api/batches/7/close/'])
    expect(w.find('[data-testid="close-confirm"]').exists()).toBe(false)
  })

  it('shows a failed load in the error line and throws nothing unhandled', async () => {
    const unhandled = []
    const onUnhandled = (e) => unhandled.push(e)
    process.on('unhandledRejection', onUnhandled)
    const vueErrors = []
    try {
      vi.stubGlobal('fetch', vi.fn(() => Promise.reject(new TypeError('Failed to fetch'))))
      setManifest(manifest)
      const w = mount(Batches, { props: { project: { id: 1, annotations_per_item: 3 } },
        global: { config: { errorHandler: (e) => vueErrors.push(e) } } })
      await flushPromises()
      await new Promise((r) => setTimeout(r, 0))
      expect(vueErrors).toEqual([])
      expect(unhandled).toEqual([])
      expect(w.find('p.error[data-testid="error"]').text()).toBe('Failed to fetch')
    } finally {
      process.off('unhandledRejection', onUnhandled)
    }
  })

  it('keeps what was shown when a later load fails, and a load that succeeds clears the error', async () => {
    server('published')
    const w = await mounted()
    expect(w.findAll('[data-testid="batch-row"]').length).toBe(1)
    const ok = globalThis.fetch.getMockImplementation()
    globalThis.fetch.mockImplementation(() => Promise.reject(new TypeError('Failed to fetch')))
    await w.find('[data-testid="units-search"]').setValue('x')
    await flushPromises()
    expect(w.find('[data-testid="error"]').text()).toBe('Failed to fetch')
    expect(w.findAll('[data-testid="batch-row"]').length).toBe(1)
    globalThis.fetch.mockImplementation(ok)
    await w.find('[data-testid="units-search"]').setValue('')
    await flushPromises()
    expect(w.find('[data-testid="error"]').exists()).toBe(false)
  })
})
