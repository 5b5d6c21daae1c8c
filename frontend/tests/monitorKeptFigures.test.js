// A large project's time on task comes from a build the Celery worker keeps (services/monitoring.py kept_quality):
// the monitor says when it is still being figured, and how old the kept figure is, instead of showing nulls.
import { describe, expect, it, vi } from 'vitest'
import { flushPromises, mount } from '@vue/test-utils'

const overview = {
  units_by_status: { open: 1 }, assignments_by_status: { submitted: 3 }, submitted_by_verification: {},
  time_on_task: { count: null, mean_s: null, median_s: null, p90_s: null }, quality_building: true,
  quality_as_of: null,
}
const answers = { 'projects/7/overview/': overview, 'workers/': { results: [] }, 'assignments/': { count: 0, results: [] } }
vi.mock('../src/dashboard/api.js', () => ({ api: vi.fn(async (path) => answers[path]) }))

describe('Monitor of a large project', () => {
  it('says the time on task is being figured, then shows it with its age', async () => {
    const { default: Monitor } = await import('../src/dashboard/views/Monitor.vue')
    let w = mount(Monitor, { props: { project: { id: 7 } } })
    await flushPromises()
    expect(w.find('[data-testid=time-on-task-building]').exists()).toBe(true)
    expect(w.find('[data-testid=time-on-task]').exists()).toBe(false)
    w.unmount()
    const asOf = Date.UTC(2026, 11, 5, 12, 0, 0) / 1000
    Object.assign(overview, { quality_building: false, quality_as_of: asOf,
      time_on_task: { count: 3, mean_s: 20, median_s: 20, p90_s: 30 } })
    w = mount(Monitor, { props: { project: { id: 7 } } })
    await flushPromises()
    const shown = w.get('[data-testid=time-on-task]').text()
    expect(shown).toContain('median 20')
    expect(shown).toContain(`as of ${new Date(asOf * 1000).toLocaleTimeString()}`)
    expect(w.find('[data-testid=time-on-task-building]').exists()).toBe(false)
    w.unmount()
  })
})
