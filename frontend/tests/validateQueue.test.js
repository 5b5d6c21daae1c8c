// QA validation keeps every decision (issue 23 item 4): decisions are saved in key order with a pending count on the
// page, leaving asks while any is unsaved, and `u` undoes the last key pressed even before the server answered it.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { flushPromises, mount } from '@vue/test-utils'
import Validate from '../src/dashboard/views/Validate.vue'
import { route } from '../src/dashboard/router.js'

afterEach(() => vi.unstubAllGlobals())

const qa = (id) => ({ id, response: 3, predicate_text: 'paid', predicate_token_index: 1, predicate_kind: 'verbal',
  question: 'Who paid?', answer: 'Ann', answer_start: 0, answer_end: 1, confidence: 0.5, validity: 'unknown', original: null })
const response = { id: 3, external_id: 'r3', system: 's', text: 'Ann paid .', display: { text: 'Ann paid.', tokens: [['Ann', 0, 3], ['paid', 4, 8], ['.', 8, 9]] } }

function backend() {
  const held = [] // PATCHes not answered yet: [{ id, body, release }]
  const fetchImpl = vi.fn((url, options = {}) => {
    const path = new URL(url, 'http://x').pathname
    const answer = (body) => new Response(JSON.stringify(body), { status: 200 })
    if (options.method === 'PATCH') {
      const id = Number(path.split('/').filter(Boolean).at(-1))
      const body = JSON.parse(options.body)
      return new Promise((resolve) => held.push({ id, body, release: () => resolve(answer({ ...qa(id), ...body })) }))
    }
    if (path.endsWith('/qas/')) return Promise.resolve(answer({ count: 2, results: [qa(7), qa(8)] }))
    if (path.endsWith('/responses/3/')) return Promise.resolve(answer(response))
    return Promise.resolve(answer({ qas_by_validity: {} }))
  })
  return { fetchImpl, held }
}
const key = (k) => window.dispatchEvent(new KeyboardEvent('keydown', { key: k }))
const leaving = () => {
  const event = new Event('beforeunload', { cancelable: true })
  window.dispatchEvent(event)
  return event.defaultPrevented
}

describe('Validate: decisions are never lost', () => {
  it('saves in key order, shows what is pending, asks before leaving, and undoes the last key pressed', async () => {
    const { fetchImpl, held } = backend()
    vi.stubGlobal('fetch', fetchImpl)
    route.parts = ['p', '5', 'validate']
    const w = mount(Validate, { props: { project: { id: 5 } }, attachTo: document.body })
    await flushPromises()
    key('x') // QA 7 invalid; the cursor moves to QA 8
    key('u') // undo the key just pressed, while its save is still on the way
    await flushPromises()
    const pending = w.find('[data-testid=validate-pending]')
    expect(pending.attributes('data-pending')).toBe('2')
    expect(pending.text()).toContain('Saving 2 decisions')
    expect(leaving()).toBe(true)
    while (held.length) {
      held.shift().release()
      await flushPromises()
    }
    const sent = fetchImpl.mock.calls.filter(([, o]) => o?.method === 'PATCH').map(([u, o]) => [u.split('/').filter(Boolean).at(-1), JSON.parse(o.body).validity])
    expect(sent).toEqual([['7', 'invalid'], ['7', 'unknown']]) // in order: the undo restored what was there before
    expect(w.find('[data-testid=validate-pending]').text()).toContain('All decisions saved')
    expect(leaving()).toBe(false)
    expect(w.find('tr[data-qa="7"]').classes()).toContain('unknown')
    w.unmount()
  })

  it("a row's Valid and Invalid buttons save that QA, whichever row the cursor is on", async () => {
    const { fetchImpl, held } = backend()
    vi.stubGlobal('fetch', fetchImpl)
    route.parts = ['p', '5', 'validate']
    const w = mount(Validate, { props: { project: { id: 5 } }, attachTo: document.body })
    await flushPromises()
    const row = w.find('tr[data-qa="8"]')
    await row.findAll('button').find((b) => b.text() === 'Invalid').trigger('click')
    await flushPromises()
    expect(held.map((h) => [h.id, h.body.validity])).toEqual([[8, 'invalid']])
    held.shift().release()
    await flushPromises()
    expect(w.find('tr[data-qa="8"]').classes()).toContain('invalid')
    expect(w.find('tr[data-qa="7"]').classes()).toContain('unknown')
    w.unmount()
  })
})
