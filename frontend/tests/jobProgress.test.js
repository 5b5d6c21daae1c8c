// JobProgress shows what the server says about a Job: stalled (its worker died) and whether it can be resumed;
// Resume posts to /api/jobs/<id>/resume/ and follows the Job to its end.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { flushPromises, mount } from '@vue/test-utils'
import JobProgress from '../src/dashboard/components/JobProgress.vue'

const stalled = { id: 7, kind: 'parse', status: 'running', stalled: true, can_resume: true, done: 3, total: 60,
  heartbeat_at: '2026-12-01T09:00:00Z', error: '', result: {} }

function reply(body, status = 200) {
  return Promise.resolve(new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } }))
}

afterEach(() => vi.unstubAllGlobals())

describe('JobProgress', () => {
  it('shows a stalled Job as stalled with a Resume button, a live one without', () => {
    const wrapper = mount(JobProgress, { props: { job: stalled } })
    expect(wrapper.find('.job').attributes('data-job-status')).toBe('stalled')
    expect(wrapper.find('[data-testid=job-stalled]').text()).toContain('2026-12-01T09:00:00Z')
    expect(wrapper.find('[role=progressbar]').text()).toContain('stalled')
    expect(wrapper.find('[data-testid=job-resume]').exists()).toBe(true)

    const live = mount(JobProgress, { props: { job: { ...stalled, stalled: false, can_resume: false } } })
    expect(live.find('.job').attributes('data-job-status')).toBe('running')
    expect(live.find('[data-testid=job-stalled]').exists()).toBe(false)
    expect(live.find('[data-testid=job-resume]').exists()).toBe(false)
  })

  it('resumes through the API and follows the Job until it is done', async () => {
    const calls = []
    const states = [
      { ...stalled, status: 'queued', stalled: false, can_resume: false },
      { ...stalled, status: 'done', stalled: false, can_resume: false, done: 60 },
    ]
    vi.stubGlobal('fetch', vi.fn((url, options) => {
      calls.push([url, options.method])
      return reply(url.endsWith('/resume/') ? states[0] : states[1], url.endsWith('/resume/') ? 202 : 200)
    }))
    const wrapper = mount(JobProgress, { props: { job: stalled } })
    await wrapper.find('[data-testid=job-resume]').trigger('click')
    await flushPromises()
    expect(calls[0]).toEqual(['/api/jobs/7/resume/', 'POST'])
    expect(calls[1]).toEqual(['/api/jobs/7/', 'GET'])
    expect(wrapper.find('.job').attributes('data-job-status')).toBe('done')
    expect(wrapper.find('[role=progressbar]').text()).toContain('60 / 60')
    expect(wrapper.find('[data-testid=job-resume]').exists()).toBe(false)
    expect(wrapper.emitted('update').at(-1)[0].status).toBe('done')
  })

  it('says why when the server refuses to resume', async () => {
    vi.stubGlobal('fetch', vi.fn(() => reply({ detail: 'job 7 is running (its worker is alive)' }, 409)))
    const wrapper = mount(JobProgress, { props: { job: stalled } })
    await wrapper.find('[data-testid=job-resume]').trigger('click')
    await flushPromises()
    expect(wrapper.find('[data-testid=job-resume-error]').text()).toBe('job 7 is running (its worker is alive)')
  })
})
