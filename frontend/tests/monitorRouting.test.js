// The monitor shows the labels routing by information saved against fixed N (docs: adaptive routing), and
// nothing of it when no batch routes.
import { describe, expect, it, vi } from 'vitest'
import { flushPromises, mount } from '@vue/test-utils'

const base = {
  units_by_status: { open: 1, complete: 2 }, assignments_by_status: { submitted: 3 },
  time_on_task: { count: 3, mean_s: 20, median_s: 20, p90_s: 30 }, submitted_by_verification: {},
}
let routing = null
vi.mock('../src/dashboard/api.js', () => ({
  api: vi.fn(async (path) => (path.startsWith('projects/') ? { ...base, routing }
    : path === 'workers/' ? { results: [] } : { count: 0, results: [] })),
}))

async function mounted() {
  const { default: Monitor } = await import('../src/dashboard/views/Monitor.vue')
  const w = mount(Monitor, { props: { project: { id: 7 } } })
  await flushPromises()
  return w
}

describe('Monitor routing savings', () => {
  it('shows labels saved so far and the projection', async () => {
    routing = { batches: 1, units: 10, units_decided: 3, units_stopped: 2, labels_collected: 12, labels_fixed_n: 24,
      labels_saved: 12, saved_pct: 50.0, projected_labels_saved: 40 }
    const w = await mounted()
    expect(w.get('[data-testid=labels-saved]').text()).toBe('12')
    expect(w.get('[data-testid=labels-projected]').text()).toBe('40')
    expect(w.get('[data-testid=routing-savings]').text()).toContain('2 of 3 decided units stopped early, 50% of their fixed-N labels')
    w.unmount()
  }, 30000) // the first import compiles the view: slow on a loaded box
  it('shows nothing when no batch routes', async () => {
    routing = null
    const w = await mounted()
    expect(w.find('[data-testid=routing-savings]').exists()).toBe(false)
    w.unmount()
  })
})
