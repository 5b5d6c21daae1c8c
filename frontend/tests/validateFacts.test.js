// The fact-validation screen's keys (issue 23 items 4 and 11): decisions are sent one after another in key order with
// a pending count, leaving asks while some are unsaved, and `u` undoes the last key pressed, even one not saved yet.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { flushPromises, mount } from '@vue/test-utils'
import ValidateFacts from '../src/dashboard/views/ValidateFacts.vue'

const fact = (id, text) => ({ id, response: 3, sentence_index: 0, text, confidence: 0.4, origin: 'parser', validation: 'unknown', written: [] })
const listing = { count: 2, counts: { unknown: 2, kept: 0, fixed: 0, split: 0, dropped: 0 }, results: [fact(1, 'Kick was a hit comedy film.'), fact(2, 'Kick is a film.')],
  responses: { 3: { id: 3, external_id: 'r3', text: 'Kick is a film.', sentences: ['Kick is a film.'] } } }

function serve(posts, gates) {
  return vi.fn(async (url, init = {}) => {
    if (init.method === 'POST') {
      const body = JSON.parse(init.body)
      posts.push([Number(url.split('/').filter(Boolean).at(-1)), body])
      await new Promise((resolve) => gates.push(resolve)) // answered when the test says
      const validation = { keep: 'kept', fix: 'fixed', split: 'split', drop: 'dropped', undecided: 'unknown' }[body.decision]
      const written = (body.texts || (body.text ? [body.text] : [])).map((text, i) => ({ id: 100 + i, text }))
      return new Response(JSON.stringify({ fact: { ...fact(posts.at(-1)[0], 'x'), validation, written }, counts: listing.counts }), { status: 200 })
    }
    return new Response(JSON.stringify(listing), { status: 200 })
  })
}
const key = (k) => window.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true }))
const validationOf = (w, id) => w.find(`[data-fact="${id}"]`).attributes('data-validation')

afterEach(() => vi.unstubAllGlobals())

describe('ValidateFacts keys', () => {
  it('sends decisions in key order with a pending count, and undoes the last key pressed', async () => {
    const posts = []
    const gates = []
    vi.stubGlobal('fetch', serve(posts, gates))
    const w = mount(ValidateFacts, { props: { project: { id: 5 } }, attachTo: document.body })
    await flushPromises()
    key('x') // fact 1 dropped; the cursor moves to fact 2
    await flushPromises()
    expect(validationOf(w, 1)).toBe('dropped')
    key('u') // undo the last key pressed (not saved yet): fact 1 back to undecided
    await flushPromises()
    expect(validationOf(w, 1)).toBe('unknown')
    expect(w.find('[data-testid=fact-pending]').text()).toBe('Saving 2…')
    const leaving = new Event('beforeunload', { cancelable: true })
    window.dispatchEvent(leaving)
    expect(leaving.defaultPrevented).toBe(true) // unsaved decisions: the browser asks before leaving
    expect(posts).toEqual([[1, { decision: 'drop' }]]) // the second waits for the first
    gates.shift()()
    await flushPromises()
    expect(posts).toEqual([[1, { decision: 'drop' }], [1, { decision: 'undecided' }]])
    gates.shift()()
    await flushPromises()
    expect(w.find('[data-testid=fact-pending]').text()).toBe('All decisions saved')
    expect(validationOf(w, 1)).toBe('unknown')
    const calm = new Event('beforeunload', { cancelable: true })
    window.dispatchEvent(calm)
    expect(calm.defaultPrevented).toBe(false)
    w.unmount()
  })
})
