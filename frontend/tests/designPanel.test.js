// The batch screen's study-design panel: what it asks the server (GET projects/<id>/design with only the filled-in
// fields), what it shows of the answer, the located 400 it shows, and the design handed back to the launch form.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { flushPromises, mount } from '@vue/test-utils'
import DesignPanel from '../src/dashboard/components/DesignPanel.vue'

function reply(body, status = 200) {
  return Promise.resolve(new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } }))
}

const design = { project: 'p', level: 'qa', metric: 'kappa', target_ci: 0.1, annotators_per_item: 4, items: 356,
  items_are: 'items', labels: 1424, hours: 5.93, cost: 71.2, budget: null, within_budget: null,
  simulated_coverage: 0.959, simulated_draws: 200, source: 'pilot' }

afterEach(() => vi.unstubAllGlobals())

describe('DesignPanel', () => {
  it('asks for the filled-in fields only and shows the recommended design and its coverage', async () => {
    const urls = []
    vi.stubGlobal('fetch', vi.fn((url) => { urls.push(String(url)); return reply(design) }))
    const w = mount(DesignPanel, { props: { projectId: 12 } })
    await w.find('input[name=target_ci]').setValue('0.08')
    await w.find('select[name=metric]').setValue('alpha')
    await w.find('form').trigger('submit')
    await flushPromises()
    const url = new URL(urls[0], 'http://x')
    expect(url.pathname).toBe('/api/projects/12/design')
    expect(Object.fromEntries(url.searchParams)).toEqual({ target_ci: '0.08', metric: 'alpha' })
    expect(w.find('[data-testid=design-annotators]').text()).toBe('4')
    expect(w.find('[data-testid=design-items]').text()).toBe('356')
    expect(w.find('[data-testid=design-coverage]').text()).toBe('95.9%')
    await w.find('[data-testid=design-use]').trigger('click')
    expect(w.emitted('use')[0][0].annotators_per_item).toBe(4)
  })

  it('shows the server’s located error and no stale design', async () => {
    vi.stubGlobal('fetch', vi.fn(() => reply({ target_ci: ['must be a number'] }, 400)))
    const w = mount(DesignPanel, { props: { projectId: 12 } })
    await w.find('input[name=target_ci]').setValue('wide')
    await w.find('form').trigger('submit')
    await flushPromises()
    expect(w.find('[data-testid=design-error]').text()).toContain('target_ci: must be a number')
    expect(w.find('[data-testid=design-result]').exists()).toBe(false)
  })
})
