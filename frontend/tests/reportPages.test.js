// The Report view asks for the summary (each table cut to one page) and then a table's next pages on request, never
// the whole report in one body (issue 25 item 2).
import { afterEach, describe, expect, it, vi } from 'vitest'
import { flushPromises, mount } from '@vue/test-utils'
import Report from '../src/dashboard/views/Report.vue'

const worker = (i) => ({ level: 'qa', worker_id: i, worker: `W-${i}`, name: `W-${i}`, n_labels: 10, n_compared: 200 - i, agreement: 0.8 })
const ALL = Array.from({ length: 120 }, (_, i) => worker(i + 1))

function summary(pageSize) {
  return {
    project: 'P', by: null, counts: { responses: 3, responses_labelled: 3, responses_unlabelled: 0, labels: { qa: 9 }, workers: 120 },
    agreement: [], workers: ALL.slice(0, pageSize), unlabelled_groups: [], confusion: [], time_on_task: { n: 0 },
    consistency: [], factscore: [], pairwise: [], notes: {}, adjudication: [], scores: null,
    tables: { workers: ALL.length, confusion: 0, agreement: 0, consistency: 0, factscore: 0, unlabelled_groups: 0 },
  }
}

afterEach(() => vi.unstubAllGlobals())

describe('Report pages', () => {
  it('asks for the summary with small tables, then the next pages of the workers table', async () => {
    const asked = []
    vi.stubGlobal('fetch', vi.fn(async (url) => {
      const q = new URL(url, 'http://x').searchParams
      if (!url.includes('/report/')) return new Response(JSON.stringify({}), { status: 200 })
      asked.push(Object.fromEntries(q))
      const size = Number(q.get('page_size'))
      if (q.get('section') === 'summary') return new Response(JSON.stringify(summary(size)), { status: 200 })
      const page = Number(q.get('page'))
      return new Response(JSON.stringify({ section: q.get('section'), count: ALL.length, page, page_size: size,
        results: ALL.slice((page - 1) * size, page * size) }), { status: 200 })
    }))
    const w = mount(Report, { props: { project: { id: 5 } }, attachTo: document.body })
    await flushPromises()
    expect(asked[0].section).toBe('summary')
    expect(Number(asked[0].page_size)).toBeLessThanOrEqual(100)
    while (w.find('[data-testid=more-workers]').exists()) {
      await w.find('[data-testid=more-workers]').trigger('click')
      await flushPromises()
    }
    const pages = asked.slice(1)
    expect(pages.every((a) => a.section === 'workers')).toBe(true)
    expect(pages.map((a) => Number(a.page))).toEqual(pages.map((_, i) => i + 2))
    expect(w.findAll('details tbody tr')).toHaveLength(ALL.length)
    w.unmount()
  })
})

describe('Report being built', () => {
  it('says so and asks again until the summary is there', async () => {
    vi.useFakeTimers()
    let calls = 0
    vi.stubGlobal('fetch', vi.fn(async (url) => {
      if (!url.includes('/report/')) return new Response(JSON.stringify({}), { status: 200 })
      calls += 1
      return new Response(JSON.stringify(calls === 1 ? { building: true, section: 'summary' } : summary(50)), { status: 200 })
    }))
    const w = mount(Report, { props: { project: { id: 5 } }, attachTo: document.body })
    await flushPromises()
    expect(w.find('[data-testid=report-building]').exists()).toBe(true)
    await vi.advanceTimersByTimeAsync(3500)
    await flushPromises()
    expect(calls).toBe(2)
    expect(w.find('[data-testid=report-building]').exists()).toBe(false)
    expect(w.find('[data-testid=report-counts]').text()).toContain('120 workers')
    w.unmount()
    vi.useRealTimers()
  })
})

describe('Report summary, then its details', () => {
  it('shows the partial summary at once, then asks for the details until they are built', async () => {
    vi.useFakeTimers()
    const asked = []
    let detailsCalls = 0
    const partial = { project: 'P', by: null, partial: true, details: ['workers', 'consistency'],
      counts: { responses: 3, responses_labelled: 3, responses_unlabelled: 0, labels: { qa: 9 }, workers: 120 },
      agreement: [{ level: 'qa', group: null, n_items: 3, labels_per_item: 3, n_workers: 120, fleiss_kappa: 0.5, krippendorff_alpha: 0.5, percent_unanimous: 50, majority_share: {} }],
      unlabelled_groups: [], time_on_task: { n: 0 }, notes: {}, adjudication: [] }
    vi.stubGlobal('fetch', vi.fn(async (url) => {
      if (!url.includes('/report/')) return new Response(JSON.stringify({}), { status: 200 })
      const q = Object.fromEntries(new URL(url, 'http://x').searchParams)
      asked.push(q.section)
      if (q.section === 'summary') return new Response(JSON.stringify(partial), { status: 200 })
      detailsCalls += 1
      const body = detailsCalls === 1 ? { building: true, section: 'details' } : { ...summary(50), counts: { ...partial.counts, workers: 7 } }
      return new Response(JSON.stringify(body), { status: 200 })
    }))
    const w = mount(Report, { props: { project: { id: 5 } }, attachTo: document.body })
    await flushPromises()
    expect(asked).toEqual(['summary', 'details'])
    expect(w.find('[data-testid=report-counts]').text()).toContain('120 workers')
    expect(w.find('[data-testid=kappa]').text()).toContain('0.5')
    expect(w.find('[data-testid=report-building]').exists()).toBe(true)
    expect(w.find('[data-testid=more-workers]').exists()).toBe(false)
    await vi.advanceTimersByTimeAsync(3500)
    await flushPromises()
    expect(asked).toEqual(['summary', 'details', 'details'])
    expect(w.find('[data-testid=report-building]').exists()).toBe(false)
    // the summary's own figures stay (read fresh); the details bring the workers table and its pages
    expect(w.find('[data-testid=report-counts]').text()).toContain('120 workers')
    expect(w.find('[data-testid=more-workers]').exists()).toBe(true)
    w.unmount()
    vi.useRealTimers()
  })
})
