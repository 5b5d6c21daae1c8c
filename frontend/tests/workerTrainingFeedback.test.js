// The worker screen's training and feedback panel (issue 24 had only the API and the command): it shows the worker's
// training result and the messages sent, and sends a personal message through POST workers/<id>/message/.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { flushPromises, mount } from '@vue/test-utils'
import WorkerTrainingFeedback from '../src/dashboard/components/WorkerTrainingFeedback.vue'

afterEach(() => vi.unstubAllGlobals())

function backend({ refuse = false, workers = [{ worker: 9, passed: false, matched: 3, items: 5, share: 0.6, at: null }] } = {}) {
  const answer = (body, status = 200) => new Response(JSON.stringify(body), { status })
  const fetchImpl = vi.fn((url, options = {}) => {
    const u = new URL(url, 'http://x')
    if (u.pathname.endsWith('/projects/5/training/')) return Promise.resolve(answer({ pass_mark: 0.8, units: [41, 42], workers }))
    if (u.pathname.endsWith('/workers/9/decisions/')) return Promise.resolve(answer({ count: 0, results: [] }))
    if (u.pathname.endsWith('/workers/9/message/') && options.method === 'POST') {
      if (refuse) return Promise.resolve(answer({ text: ['text: give the message, at most 2000 characters'] }, 400))
      const body = JSON.parse(options.body)
      return Promise.resolve(answer({ id: 1, worker: 9, assignment: body.assignment ?? null, action: 'message', reason: body.text,
        metrics: { text: body.text, differed: 2, delivered_by: 'local' }, status: 'done', created_at: '2026-12-04T20:00:00Z' }))
    }
    return Promise.resolve(answer({ detail: 'not found' }, 404))
  })
  return fetchImpl
}
const mountPanel = () => mount(WorkerTrainingFeedback, {
  props: { project: { id: 5 }, workerId: 9, assignments: [{ id: 70, unit: 41 }, { id: 71, unit: 42 }] },
})

describe('WorkerTrainingFeedback', () => {
  it('shows the training result and sends a message about one assignment', async () => {
    const fetchImpl = backend()
    vi.stubGlobal('fetch', fetchImpl)
    const w = mountPanel()
    await flushPromises()
    const result = w.find('[data-testid=training-result]')
    expect(result.attributes('data-passed')).toBe('false')
    expect(result.text()).toContain('3/5')
    expect(result.text()).toContain('80.0%') // the pass mark
    await w.find('[data-testid=feedback-text]').setValue('Read the guide on nominal predicates.')
    await w.find('[data-testid=feedback-assignment]').setValue('71')
    await w.find('[data-testid=feedback-form]').trigger('submit')
    await flushPromises()
    const post = fetchImpl.mock.calls.find(([, o]) => o?.method === 'POST')
    expect(JSON.parse(post[1].body)).toEqual({ project: 5, text: 'Read the guide on nominal predicates.', assignment: 71 })
    expect(w.find('[data-testid=feedback-sent]').text()).toContain('2 items')
    expect(w.findAll('[data-testid=feedback-message]').map((r) => r.text())[0]).toContain('nominal predicates')
    expect(w.find('[data-testid=feedback-text]').element.value).toBe('')
  })

  it('says when there is no result, refuses an empty message, and shows a located refusal', async () => {
    vi.stubGlobal('fetch', backend({ refuse: true, workers: [] }))
    const w = mountPanel()
    await flushPromises()
    expect(w.find('[data-testid=training-result]').text()).toContain('No training result yet')
    await w.find('[data-testid=feedback-form]').trigger('submit')
    expect(w.find('[data-testid=feedback-error]').text()).toContain('Write the message')
    await w.find('[data-testid=feedback-text]').setValue('x'.repeat(10))
    await w.find('[data-testid=feedback-form]').trigger('submit')
    await flushPromises()
    expect(w.find('[data-testid=feedback-error]').text()).toContain('at most 2000 characters')
  })
})
