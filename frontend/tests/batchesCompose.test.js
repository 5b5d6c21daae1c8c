// The Batches view's compose (issue 25 item 4): a large batch answers 202 with a compose Job; the view follows
// it with JobProgress and reloads the batch list when it is done. A small one keeps its one-step answer.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { flushPromises, mount } from '@vue/test-utils'
import Batches from '../src/dashboard/views/Batches.vue'
import { setManifest } from '../src/dashboard/manifest.js'
import manifest from './fixtures/manifest.json'

const batchRow = (units) => ({ id: 7, name: 'b', provider: 'local', status: 'draft', unit_count: units, publishable: false,
  publish_blockers: [], units_by_status: {}, settings: {}, published_at: null })

function server(composeAnswer) {
  const calls = []
  let units = 0
  let polls = 0
  const reply = (data, status = 200) => Promise.resolve(new Response(JSON.stringify(data), { status }))
  vi.stubGlobal('fetch', vi.fn((url, opts = {}) => {
    const path = new URL(url, 'http://x.test').pathname
    calls.push(`${opts.method || 'GET'} ${path}`)
    if (path.endsWith('/compose/')) return reply(composeAnswer, composeAnswer.kind ? 202 : 201)
    if (path.includes('/jobs/')) {
      polls += 1
      const done = polls >= 2
      if (done) units = 12
      return reply({ ...composeAnswer, status: done ? 'done' : 'running', done: done ? 9 : 4, total: 9,
        result: done ? { created: 12 } : {} })
    }
    if (path.endsWith('/batches/')) return reply({ results: [batchRow(units)] })
    if (path.endsWith('/units/')) return reply({ count: units, results: [] })
    return reply({})
  }))
  return calls
}

afterEach(() => vi.unstubAllGlobals())

describe('Batches compose', () => {
  it('follows a compose Job to its end, then reloads the batch list', async () => {
    setManifest(manifest)
    const calls = server({ id: 3, kind: 'compose', status: 'queued', done: 0, total: 9, result: {} })
    const w = mount(Batches, { props: { project: { id: 1, annotations_per_item: 3 } } })
    await flushPromises()
    expect(w.find('[data-testid="batch-row"]').text()).toContain('0')
    vi.useFakeTimers()
    await w.find('[data-testid="compose"]').trigger('click')
    await flushPromises()
    expect(w.find('[data-testid="batch-job"]').exists()).toBe(true)
    expect(w.find('[data-testid="batch-job"]').text()).toContain('compose #3')
    await vi.advanceTimersByTimeAsync(700)
    await flushPromises()
    vi.useRealTimers()
    expect(w.find('[data-testid="info"]').text()).toBe('12 units composed.')
    expect(w.find('[data-testid="batch-row"]').text()).toContain('12')
    const afterCompose = calls.slice(calls.indexOf('POST /api/batches/7/compose/'))
    expect(afterCompose.filter((c) => c === 'GET /api/jobs/3/').length).toBe(2)
    expect(afterCompose.at(-2)).toBe('GET /api/batches/')
  })

  it('shows the count of a small compose at once', async () => {
    setManifest(manifest)
    server({ created: 3, results: [], units: '/api/units/?batch=7' })
    const w = mount(Batches, { props: { project: { id: 1, annotations_per_item: 3 } } })
    await flushPromises()
    await w.find('[data-testid="compose"]').trigger('click')
    await flushPromises()
    expect(w.find('[data-testid="info"]').text()).toBe('3 units composed.')
    expect(w.find('[data-testid="batch-job"]').exists()).toBe(false)
  })
})
