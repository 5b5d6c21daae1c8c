// Plan kind fact_entailment (protocols/entailment/): the model's atomic facts of each response, each supported /
// contradicted / not enough info by the source, with an optional rationale (r); nothing is edited.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { flushPromises, mount } from '@vue/test-utils'
import FactcrowdAnnotator from '../src/annotator/FactcrowdAnnotator.ce.vue'
import * as S from '../src/annotator/state.js'
import { sampleUnit } from '../src/demo/sampleUnit.js'

// a unit as protocols/entailment/ serves it: responses with their model facts, one section per response
const entailmentUnit = () => sampleUnit({ mode: 'entailment' })

describe('fact_entailment in the session state', () => {
  it('one item per model fact, in sentence order; labels, rationales, submit body and draft', () => {
    const unit = entailmentUnit()
    const model = S.buildModel(unit)
    expect(model.sections.map((s) => [s.kind, s.planKind, s.response])).toEqual([['entailment', 'fact_entailment', 0], ['entailment', 'fact_entailment', 1]])
    const state = S.createState(model)
    const facts = unit.responses[0].facts
    expect(S.sectionItems(model, state, 0).map((f) => f.id)).toEqual(facts.map((f) => f.id))
    expect(S.missingItems(model, state)[0].message).toBe(`Response A: fact 1 “${facts[0].text}” is not labeled supported / contradicted / not enough info`)
    S.label(model, state, 'contradicted')
    S.setNote(model, state, 0, facts[0].id, '  The source says 1998. ')
    S.label(model, state, 'not_enough_info')
    expect(S.progressLabel(model, state)).toBe('Response A · 2 / 5 facts')
    const restored = S.fromDraft(model, JSON.parse(JSON.stringify(S.toDraft(state))))
    expect(restored.labels.entailment).toEqual(state.labels.entailment)
    expect(restored.labels.rationales).toEqual({ [facts[0].id]: '  The source says 1998. ' })
    expect(S.fromDraft(model, { version: 1, labels: { entailment: { [facts[0].id]: 'S', 999: 'supported' } } }).labels.entailment).toEqual({})
    for (let k = 0; k < 20 && S.missingItems(model, state).length; k++) S.label(model, state, 'supported')
    const sent = S.submitLabels(model, state).entailment
    expect(sent).toHaveLength(unit.responses.flatMap((r) => r.facts).length)
    expect(sent[0]).toEqual({ fact_id: facts[0].id, label: 'contradicted', rationale: 'The source says 1998.' })
    expect(sent[1]).toEqual({ fact_id: facts[1].id, label: 'not_enough_info', rationale: '' })
    expect(S.changeItems(model, state, 'delete')).toBeNull() // facts are not edited here
  })
})

let calls
beforeEach(() => {
  calls = []
  localStorage.clear()
  vi.stubGlobal('fetch', vi.fn((url, init = {}) => {
    calls.push({ url, method: init.method || 'GET', body: init.body ? JSON.parse(init.body) : undefined })
    const reply = url.endsWith('/unit') ? entailmentUnit() : url.endsWith('/draft') ? { saved_at: 'now' } : { status: 'submitted', duplicate: false }
    return Promise.resolve(new Response(JSON.stringify(reply), { status: 200, headers: { 'Content-Type': 'application/json' } }))
  }))
})
const mounted = []
afterEach(() => {
  while (mounted.length) mounted.pop().unmount()
  vi.unstubAllGlobals()
  document.body.innerHTML = ''
})
const press = async (key, extra = {}) => {
  window.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, ...extra }))
  await flushPromises()
}

describe('the element on an entailment unit', () => {
  it('labels by keyboard, takes a rationale with r, shows no fact editing, and submits labels.entailment', async () => {
    const w = mount(FactcrowdAnnotator, { props: { token: 'tok' }, attachTo: document.body })
    mounted.push(w)
    await flushPromises()
    expect(w.get('.start-card').text()).toContain('supported, contradicted, or not enough info')
    await press('Enter')
    expect(w.findAll('[data-testid="step-tab"]').map((t) => t.attributes('data-section-kind'))).toEqual(['entailment', 'entailment'])
    expect(w.findAll('[data-testid="fact-item"]')).toHaveLength(5)
    expect(w.find('[data-testid="fact-edit"]').exists()).toBe(false)
    expect(w.find('[data-testid="fact-add-to-sentence"]').exists()).toBe(false)
    await press('e') // no editing here: e means nothing
    expect(w.find('[data-testid="fact-text-input"]').exists()).toBe(false)
    // r and what follows at once, before the field has focus: the characters go into the rationale
    for (const k of 'rQuote') window.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true }))
    await flushPromises()
    const field = w.get('[data-testid="fact-rationale"]')
    expect(field.element.value).toBe('Quote')
    await field.trigger('keydown', { key: 'Enter' })
    await press('c')
    await press('n')
    expect(w.findAll('[data-testid="fact-item"]').slice(0, 2).map((i) => i.attributes('data-label'))).toEqual(['contradicted', 'not_enough_info'])
    for (let k = 0; k < 20; k++) await press('s')
    await press('?')
    expect(w.get('[data-testid="instructions"]').text()).toContain('Fact entailment')
    expect(w.get('[data-testid="instructions"]').text()).toContain('Rationale')
    await press('Escape')
    await press('Enter', { ctrlKey: true })
    await flushPromises()
    const post = calls.find((c) => c.url.endsWith('/submit'))
    const facts = entailmentUnit().responses.flatMap((r) => r.facts)
    expect(post.body.labels.entailment).toEqual(facts.map((f, k) => ({
      fact_id: f.id, label: ['contradicted', 'not_enough_info'][k] || 'supported', rationale: k === 0 ? 'Quote' : '',
    })))
    expect(w.get('[data-testid="submitted-message"]').text()).toContain('Submitted')
  })
})
