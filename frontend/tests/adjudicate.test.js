// The Adjudicate view's keyboard: j / k move, a label key picks the label and focuses the reason box without
// typing itself, Enter there posts {level, item_id, label, reason} (the reason optional; Shift+1..6 presets) and moves
// to the next open item.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { flushPromises, mount } from '@vue/test-utils'
import Adjudicate from '../src/dashboard/views/Adjudicate.vue'
import { resetManifest, setManifest } from '../src/dashboard/manifest.js'
import manifest from './fixtures/manifest.json'

function row(key, level, itemId, extra = {}) {
  return {
    key, level, item_id: itemId, aspect: null, labels: [], n_votes: 3, counts: { supported: 2, not_supported: 1 },
    majority: 'supported', tie: false, gold: null, disagreement: 0.3333, origin: 'model',
    votes: [{ assignment_id: 1, worker: { id: 1, name: 'w1', pseudonym: 'W-1' }, label: 'supported' }],
    context: { question: `Q${itemId}?`, answer_text: 'A', display: { text: 'A b', tokens: [['A', 0, 1], ['b', 2, 3]] }, answer_start: 0, answer_end: 1, source_text: 'S' },
    adjudicated: null, ...extra,
  }
}

function serve(posts) {
  const queue = { count: 3, decided: 0, agreement: [], results: [row('qa:1', 'qa', 1), row('qa:2', 'qa', 2), row('pairwise:9:consistency', 'pairwise', 9, { aspect: 'consistency' })] }
  return vi.fn(async (url, init = {}) => {
    if (init.method === 'POST') {
      const body = JSON.parse(init.body)
      posts.push(body)
      return new Response(JSON.stringify({ id: 7, label: body.label, reason: body.reason, version: 1, decided_by: 'me', decided_at: '2026-01-01T00:00:00Z' }), { status: 201 })
    }
    return new Response(JSON.stringify(queue), { status: 200 })
  })
}

const key = (k, target = window) => target.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true }))
const current = (w) => w.find('[data-testid=adj-item]').attributes('data-key')

beforeEach(() => {
  setManifest(manifest)
  window.localStorage.clear()
})
afterEach(() => {
  vi.unstubAllGlobals()
  resetManifest()
})

describe('Adjudicate keyboard', () => {
  it('moves with j / k, picks with a label key, confirms with Enter in the reason box', async () => {
    const posts = []
    vi.stubGlobal('fetch', serve(posts))
    const w = mount(Adjudicate, { props: { project: { id: 5 } }, attachTo: document.body })
    await flushPromises()
    expect(current(w)).toBe('qa:1')
    key('j'); await flushPromises()
    expect(current(w)).toBe('qa:2')
    key('k'); await flushPromises()
    expect(current(w)).toBe('qa:1')
    const typedIntoBox = !key('n') // the event was cancelled: "n" does not land in the reason box
    await flushPromises()
    expect(typedIntoBox).toBe(true)
    const box = w.find('[data-testid=reason]')
    expect(document.activeElement).toBe(box.element)
    expect(box.element.value).toBe('')
    expect(w.find('button.on[data-label=not_supported]').exists()).toBe(true)
    // a label key typed inside the box is text, not a shortcut
    key('s', box.element); await flushPromises()
    expect(w.find('button.on[data-label=not_supported]').exists()).toBe(true)
    await box.setValue('the source says otherwise')
    key('Enter', box.element); await flushPromises()
    expect(posts).toEqual([{ level: 'qa', item_id: 1, label: 'not_supported', reason: 'the source says otherwise' }])
    expect(w.findAll('[data-testid=queue-decided]').map((d) => d.text())).toEqual(['→ not_supported'])
    expect(current(w)).toBe('qa:2') // the next open item
    w.unmount()
  })

  it('confirms without a reason, puts a preset reason on Shift+digit, and sends the aspect of a pairwise item', async () => {
    const posts = []
    vi.stubGlobal('fetch', serve(posts))
    const w = mount(Adjudicate, { props: { project: { id: 5 } }, attachTo: document.body })
    await flushPromises()
    key('s'); await flushPromises() // qa:1 supported, no reason
    key('Enter', w.find('[data-testid=reason]').element); await flushPromises()
    expect(posts).toEqual([{ level: 'qa', item_id: 1, label: 'supported', reason: '' }])
    expect(current(w)).toBe('qa:2')
    key('j'); await flushPromises()
    expect(current(w)).toBe('pairwise:9:consistency')
    key('3'); await flushPromises()
    const box = w.find('[data-testid=reason]')
    const shift = (code, target) => target.dispatchEvent(new KeyboardEvent('keydown', { key: '!', code, shiftKey: true, bubbles: true, cancelable: true }))
    await box.setValue('my own words')
    expect(shift('Digit1', box.element)).toBe(true) // text of one's own: Shift+1 types, no preset replaces it
    expect(box.element.value).toBe('my own words')
    await box.setValue('')
    expect(shift('Digit2', box.element)).toBe(false) // an empty box: the preset, and the key types nothing
    await flushPromises()
    expect(box.element.value).toBe('Not in the source')
    expect(w.find('[data-testid=adj-preset].on').text()).toContain('Not in the source')
    key('Enter', box.element); await flushPromises()
    expect(posts.at(-1)).toEqual({ level: 'pairwise', item_id: 9, aspect: 'consistency', label: '3', reason: 'Not in the source' })
    w.unmount()
  })

  it('takes a level\'s labels, keys and names from the manifest, not from a list of its own', async () => {
    const posts = []
    const extra = { name: 'stance', mode: 'stance', title: 'Stance', steps: [], default_steps: [], plan_kinds: ['stance'], expert_step: false,
      guide: '', exports: [], keys: [{ key: 'a', command: 'agree', help: 'Agree' }, { key: 'd', command: 'disagree', help: 'Disagree' }],
      label_levels: [{ name: 'stance', item_type: 'fact', labels: ['disagree', 'agree'], display: { disagree: 'Disagrees', agree: 'Agrees' }, adjudicable: true }] }
    setManifest({ ...manifest, protocols: [...manifest.protocols, extra] })
    const queue = { count: 1, decided: 0, agreement: [], results: [row('stance:4', 'stance', 4, { counts: { agree: 1, disagree: 1 }, context: { text: 'A fact.', sentence: 'A fact.', source_text: 'S' } })] }
    vi.stubGlobal('fetch', vi.fn(async (url, init = {}) => {
      if (init.method === 'POST') {
        posts.push(JSON.parse(init.body))
        return new Response(JSON.stringify({ id: 1, label: 'agree', reason: 'r', version: 1 }), { status: 201 })
      }
      return new Response(JSON.stringify(queue), { status: 200 })
    }))
    const w = mount(Adjudicate, { props: { project: { id: 5 } }, attachTo: document.body })
    await flushPromises()
    expect(w.findAll('[data-testid=adj-label]').map((b) => b.text())).toEqual(['d disagree · Disagrees', 'a agree · Agrees'])
    expect(w.findAll('[data-testid=adj-level] option').map((o) => o.element.value)).toContain('stance')
    expect(w.find('[data-testid=adj-item]').text()).toContain('Fact: A fact.') // rendered as its item type
    key('a'); await flushPromises()
    await w.find('[data-testid=reason]').setValue('r')
    key('Enter', w.find('[data-testid=reason]').element); await flushPromises()
    expect(posts).toEqual([{ level: 'stance', item_id: 4, label: 'agree', reason: 'r' }])
    w.unmount()
  })
})

describe('Adjudicate pages', () => {
  it('asks for one page of the queue, then the next at its next_offset on "Load more"', async () => {
    const all = Array.from({ length: 120 }, (_, i) => row(`qa:${i + 1}`, 'qa', i + 1))
    const asked = []
    vi.stubGlobal('fetch', vi.fn(async (url) => {
      const q = new URL(url, 'http://x').searchParams
      if (url.includes('/scoring/')) return new Response(JSON.stringify({ scores: [] }), { status: 200 })
      asked.push(Object.fromEntries(q))
      const offset = Number(q.get('offset') || 0)
      const limit = Number(q.get('limit'))
      const next = offset + limit < all.length ? offset + limit : null
      return new Response(JSON.stringify({ count: all.length, decided: 4, agreement: [], offset, limit, next_offset: next,
        results: all.slice(offset, offset + limit) }), { status: 200 })
    }))
    const w = mount(Adjudicate, { props: { project: { id: 5 } }, attachTo: document.body })
    await flushPromises()
    expect(asked).toHaveLength(1)
    expect(Number(asked[0].limit)).toBeLessThanOrEqual(100)
    expect(w.findAll('[data-testid=queue-row]')).toHaveLength(Number(asked[0].limit))
    expect(w.find('[data-testid=adj-more]').text()).toContain('of 120')
    while (w.find('[data-testid=adj-load-more]').exists()) {
      await w.find('[data-testid=adj-load-more]').trigger('click')
      await flushPromises()
    }
    expect(w.findAll('[data-testid=queue-row]').map((r) => r.attributes('data-key'))).toEqual(all.map((r) => r.key))
    expect(asked.slice(1).map((a) => Number(a.offset))).toEqual(asked.slice(1).map((_, i) => (i + 1) * Number(asked[0].limit)))
    expect(w.text()).toContain('4 of 120 decided')
    w.unmount()
  })
})

describe('Adjudicate while the queue is built', () => {
  it('fills the header from the summary (SQL counts) while the pages are being built', async () => {
    vi.useFakeTimers()
    const asked = []
    vi.stubGlobal('fetch', vi.fn(async (url) => {
      const q = Object.fromEntries(new URL(url, 'http://x').searchParams)
      if (url.includes('/scoring/')) return new Response(JSON.stringify({ scores: [] }), { status: 200 })
      asked.push(q)
      const body = q.summary === 'true'
        ? { building: false, count: 1234, decided: 5, agreement: [{ level: 'qa', n_items: 5, accuracy: 0.8, cohen_kappa: 0.5, changed: 1 }], results: [], next_offset: null }
        : { building: true, count: null, decided: null, agreement: [], results: [], next_offset: null }
      return new Response(JSON.stringify(body), { status: 200 })
    }))
    const w = mount(Adjudicate, { props: { project: { id: 5 } }, attachTo: document.body })
    await flushPromises()
    expect(asked.map((a) => a.summary || 'page')).toEqual(['page', 'true'])
    expect(w.find('[data-testid=adj-building]').exists()).toBe(true)
    expect(w.text()).toContain('5 of 1234 decided')
    expect(w.find('[data-testid=adj-agreement]').text()).toContain('qa')
    w.unmount()
    vi.useRealTimers()
  })
})

describe('Adjudicate ordered by a scorer', () => {
  it('offers the project\'s scorers and asks for the crowd-scorer disagreements with the scorer\'s verdict', async () => {
    const asked = []
    const plain = { count: 1, decided: 0, agreement: [], results: [row('qa:1', 'qa', 1)] }
    const versus = { count: 1, decided: 0, agreement: [], results: [row('qa:8', 'qa', 8, {
      counts: { supported: 3 }, disagreement: 0, scorer: { name: 'overlap', score: 0.12, verdict: 'not_supported' } })] }
    vi.stubGlobal('fetch', vi.fn(async (url) => {
      if (url.includes('/scoring/')) {
        return new Response(JSON.stringify({ scores: [{ scorer: 'overlap', version: '1', items: 9 },
          { scorer: 'overlap', version: '2', items: 9 }, { scorer: 'embedded', version: '1', items: 9 }] }), { status: 200 })
      }
      const q = Object.fromEntries(new URL(url, 'http://x').searchParams)
      asked.push(q)
      return new Response(JSON.stringify(q.scorer ? versus : plain), { status: 200 })
    }))
    const w = mount(Adjudicate, { props: { project: { id: 5 } }, attachTo: document.body })
    await flushPromises()
    expect(w.findAll('[data-testid=adj-order] option').map((o) => o.element.value)).toEqual(['', 'embedded', 'overlap'])
    expect(asked[0].scorer).toBeUndefined()
    await w.find('[data-testid=adj-order]').setValue('overlap')
    await flushPromises()
    expect(asked.at(-1).scorer).toBe('overlap')
    expect(current(w)).toBe('qa:8')
    expect(w.find('[data-testid=adj-scorer]').text()).toBe('not_supported')
    expect(w.find('[data-testid=queue-row]').text()).toContain('overlap 0.12')
    w.unmount()
  })
})

describe('Adjudicate keeps what is not confirmed yet', () => {
  it('a picked label and a typed reason come back on the item, after moving away and after a remount, until confirmed', async () => {
    const posts = []
    vi.stubGlobal('fetch', serve(posts))
    let w = mount(Adjudicate, { props: { project: { id: 5 } }, attachTo: document.body })
    await flushPromises()
    key('n'); await flushPromises() // qa:1: not_supported, then a reason, not confirmed
    await w.find('[data-testid=reason]').setValue('half a thought')
    key('Escape', w.find('[data-testid=reason]').element); await flushPromises()
    key('j'); await flushPromises()
    expect(current(w)).toBe('qa:2')
    expect(w.find('[data-testid=reason]').element.value).toBe('') // qa:2 has its own (empty) draft
    expect(w.findAll('[data-testid=queue-unconfirmed]').length).toBe(1)
    key('k'); await flushPromises()
    expect(current(w)).toBe('qa:1')
    expect(w.find('[data-testid=reason]').element.value).toBe('half a thought')
    expect(w.find('button.on[data-label=not_supported]').exists()).toBe(true)
    w.unmount() // a reload, or another tab of the dashboard

    w = mount(Adjudicate, { props: { project: { id: 5 } }, attachTo: document.body })
    await flushPromises()
    expect(current(w)).toBe('qa:1')
    expect(w.find('[data-testid=reason]').element.value).toBe('half a thought')
    expect(w.find('button.on[data-label=not_supported]').exists()).toBe(true)
    key('Enter', w.find('[data-testid=reason]').element); await flushPromises()
    expect(posts).toEqual([{ level: 'qa', item_id: 1, label: 'not_supported', reason: 'half a thought' }])
    expect(w.findAll('[data-testid=queue-unconfirmed]').length).toBe(0)
    expect(window.localStorage.getItem('factcrowd.adjudicate.5')).toBe(null) // confirmed: the draft is gone
    w.unmount()
  })
})

describe('Adjudicate confirms once', () => {
  it('a second Enter or click while the decision is on its way writes nothing more and skips no item', async () => {
    const posts = []
    let answer
    const slow = vi.fn(async (url, init = {}) => {
      if (init.method === 'POST') {
        const body = JSON.parse(init.body)
        posts.push(body)
        await new Promise((r) => { answer = r })
        return new Response(JSON.stringify({ id: 7, label: body.label, reason: '', version: posts.length, decided_by: 'me', decided_at: '2026-01-01T00:00:00Z' }), { status: 201 })
      }
      return serve([])(url, init)
    })
    vi.stubGlobal('fetch', slow)
    const w = mount(Adjudicate, { props: { project: { id: 5 } }, attachTo: document.body })
    await flushPromises()
    key('s'); await flushPromises()
    const box = w.find('[data-testid=reason]').element
    key('Enter', box); key('Enter', box)
    await w.find('[data-testid=adj-confirm]').trigger('click')
    await flushPromises()
    expect(posts.length).toBe(1)
    expect(w.find('[data-testid=adj-confirm]').attributes('disabled')).toBeDefined()
    answer(); await flushPromises()
    expect(posts.length).toBe(1)
    expect(current(w)).toBe('qa:2') // the next item, not the one after it
    w.unmount()
  })
})
