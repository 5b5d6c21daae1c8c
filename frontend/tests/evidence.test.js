import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { flushPromises, mount } from '@vue/test-utils'
import FactcrowdAnnotator from '../src/annotator/FactcrowdAnnotator.ce.vue'
import { factPassages } from '../src/annotator/protocols/factscore/evidence.js'
import { sampleUnit } from '../src/demo/sampleUnit.js'

// Offsets of the given words in a text (what the server's matched_offsets sends).
const offsets = (text, wanted) => wanted.map((w) => { const at = text.indexOf(w); return [at, at + w.length] })

const PAGE_1 = 'An Ohio man died of measles in May. He was 52.'
const PAGE_2 = 'Measles spreads quickly among people who are not vaccinated.'

/** The FActScore sample unit with knowledge passages: fact 0 has both passages, fact 1 one, the rest none. */
function unitWithEvidence() {
  const unit = sampleUnit({ mode: 'factscore' })
  const a = unit.responses[0]
  a.knowledge = [{ id: 501, title: 'Ohio measles case', text: PAGE_1 }, { id: 502, title: 'Measles', text: PAGE_2 }]
  a.facts.forEach((f) => { f.passages = [] })
  a.facts[0].passages = [{ id: 501, matches: offsets(PAGE_1, ['man', 'died', 'measles']) }, { id: 502, matches: offsets(PAGE_2, ['Measles']) }]
  a.facts[1].passages = [{ id: 501, matches: offsets(PAGE_1, ['man', '52']) }]
  return unit
}

describe('factPassages', () => {
  const unit = unitWithEvidence()
  const response = { raw: unit.responses[0] }
  const fact = (f) => ({ key: `m${f.id}`, origin: [f.id], text: f.text })
  const [f0, f1, f2] = unit.responses[0].facts

  it('gives the passages of the current fact best first, the matching words marked', () => {
    const got = factPassages({ kind: 'fact' }, fact(f0), response)
    expect(got.map((p) => [p.id, p.title])).toEqual([[501, 'Ohio measles case'], [502, 'Measles']])
    expect(got[0].segments.filter((s) => s.mark).map((s) => s.text)).toEqual(['man died', 'measles'])
    expect(got[0].segments.map((s) => s.text).join('')).toBe(PAGE_1)
    expect(factPassages({ kind: 'fact' }, fact(f2), response)).toEqual([])
  })

  it('an edited or merged fact shows the passages of the model facts it came from, each once', () => {
    const merged = { key: 'h1', origin: [f1.id, f0.id], text: 'merged' }
    expect(factPassages({ kind: 'fact' }, merged, response).map((p) => p.id)).toEqual([501, 502])
    expect(factPassages({ kind: 'fact' }, { key: 'h2', origin: [], text: 'added' }, response)).toEqual([])
    expect(factPassages({ kind: 'qa' }, fact(f0), response)).toEqual([])
  })
})

let unit
beforeEach(() => {
  localStorage.clear()
  unit = unitWithEvidence()
  vi.stubGlobal('fetch', vi.fn((url) => {
    const reply = url.endsWith('/unit') ? unit : { saved_at: 'now' }
    return Promise.resolve(new Response(JSON.stringify(reply), { status: 200, headers: { 'Content-Type': 'application/json' } }))
  }))
})
const mounted = []
afterEach(() => {
  while (mounted.length) mounted.pop().unmount()
  vi.unstubAllGlobals()
  document.body.innerHTML = ''
})
const press = async (key) => {
  window.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }))
  await flushPromises()
}
const panel = (w) => w.findAll('[data-testid="knowledge-passage"]').map((p) => [p.attributes('data-passage-id'), p.findAll('mark').map((m) => m.text())])

describe('the reference panel', () => {
  it('follows the current fact: its passages with the matching words marked, none for a fact without', async () => {
    const w = mount(FactcrowdAnnotator, { props: { token: 'tok' }, attachTo: document.body })
    mounted.push(w)
    await flushPromises()
    await press('Enter')
    const source = w.get('[data-testid="source"]')
    expect(source.find('[data-testid="knowledge-passages"]').exists()).toBe(true)
    expect(panel(w)).toEqual([['501', ['man died', 'measles']], ['502', ['Measles']]])
    await press('s')
    expect(panel(w)).toEqual([['501', ['man', '52']]])
    await press('s')
    expect(w.find('[data-testid="knowledge-passages"]').exists()).toBe(false)
  })
})
