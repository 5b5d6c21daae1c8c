// The monitor shows work its platform has not vouched for (docs/crowd.md): counted nowhere, so marked.
import { describe, expect, it, vi } from 'vitest'
import { flushPromises, mount } from '@vue/test-utils'

const answers = {
  'projects/7/overview/': {
    units_by_status: { open: 1 }, assignments_by_status: { submitted: 3 },
    time_on_task: { count: 3, mean_s: 20, median_s: 20, p90_s: 30 },
    submitted_by_verification: { verified: 1, pending: 1, unverified: 2 },
  },
  'workers/': { results: [] },
  'assignments/': {
    count: 2,
    results: [
      { id: 1, unit: 4, worker: { id: 9, name: 'Ann', pseudonym: 'W-1' }, status: 'submitted', verification: 'unverified',
        verification_note: 'the platform does not list this submission', bonus_paid: '0.00' },
      { id: 2, unit: 4, worker: { id: 8, name: 'Bo', pseudonym: 'W-2' }, status: 'submitted', verification: 'verified', bonus_paid: '0.00' },
    ],
  },
}
vi.mock('../src/dashboard/api.js', () => ({ api: vi.fn(async (path) => answers[path]) }))

describe('Monitor', () => {
  it('counts and marks unverified and pending work', async () => {
    const { default: Monitor } = await import('../src/dashboard/views/Monitor.vue')
    const w = mount(Monitor, { props: { project: { id: 7 } } })
    await flushPromises()
    expect(w.get('[data-testid=unverified-count]').text()).toBe('2 unverified')
    expect(w.get('[data-testid=pending-count]').text()).toBe('1 awaiting platform check')
    const badges = w.findAll('[data-testid=unverified-badge]')
    expect(badges).toHaveLength(1)
    expect(badges[0].attributes('title')).toContain('the platform does not list this submission')
    w.unmount()
  })
})
