import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { flushPromises, mount } from '@vue/test-utils'
import FactcrowdAnnotator from '../src/annotator/FactcrowdAnnotator.ce.vue'
import { buildModel, createState, label, submitLabels, missingItems, toDraft, fromDraft } from '../src/annotator/state.js'

// A Ragas unit as protocols/ragas.py sends it: three answers of one question, two contexts, and per aspect
// the two things it compares (answers by response id, contexts by their index in source.passages).
function ragasUnit() {
  const r = (id, label, text) => ({ id, label, text, tokens: [], sentences: [], predicates: [], qas: [], spans: [], facts: [] })
  return {
    assignment: { id: 1, status: 'assigned', mode: 'ragas', preview: false },
    project: { name: 'WikiEval', instructions: '', instructions_html: '', protocol: ['ragas_pairwise'] },
    source: { id: 9, text: '', question: 'When did the bridge open?', passages: ['It opened in 2021.', 'It opened in 2021. Rivers flood.'] },
    responses: [r(11, 'Response A', 'Bridges cross rivers.'), r(12, 'Response B', 'It opened in 2021.'), r(13, 'Response C', 'It opened in 1998.')],
    plan: [{
      kind: 'ragas_pairwise',
      response_ids: [11, 12, 13],
      aspects: ['faithfulness', 'answer_relevance', 'context_relevance'],
      comparisons: [
        { aspect: 'faithfulness', compares: 'responses', a: 12, b: 13 },
        { aspect: 'answer_relevance', compares: 'responses', a: 11, b: 12 },
        { aspect: 'context_relevance', compares: 'contexts', a: 0, b: 1 },
      ],
    }],
    draft: null,
    draft_saved_at: null,
  }
}

describe('ragas_pairwise in the session state', () => {
  it('one comparison item per aspect; the scores go out as labels.pairwise; drafts keep them', () => {
    const unit = ragasUnit()
    const model = buildModel(unit)
    expect(model.sections.map((s) => [s.kind, s.planKind, s.items.length])).toEqual([['pairwise', 'ragas_pairwise', 3]])
    const state = createState(model)
    expect(missingItems(model, state).map((m) => m.message)).toEqual([
      'Compare: choose a score for faithfulness', 'Compare: choose a score for answer_relevance', 'Compare: choose a score for context_relevance',
    ])
    label(model, state, 2)
    label(model, state, 4)
    const restored = fromDraft(model, JSON.parse(JSON.stringify(toDraft(state))))
    expect(restored.labels.pairwise).toEqual({ faithfulness: 2, answer_relevance: 4 })
    label(model, state, 3)
    expect(submitLabels(model, state).pairwise).toEqual([
      { aspect: 'faithfulness', score: 2 }, { aspect: 'answer_relevance', score: 4 }, { aspect: 'context_relevance', score: 3 },
    ])
  })

  it('a ragas section without comparisons is not rendered', () => {
    const unit = ragasUnit()
    unit.plan[0].comparisons = []
    expect(buildModel(unit).sections).toEqual([])
  })
})

let calls
beforeEach(() => {
  calls = []
  localStorage.clear()
  vi.stubGlobal('fetch', vi.fn((url, init = {}) => {
    calls.push({ url, method: init.method || 'GET', body: init.body ? JSON.parse(init.body) : undefined })
    const reply = url.endsWith('/unit') ? ragasUnit() : url.endsWith('/draft') ? { saved_at: 'now' } : { status: 'submitted', duplicate: false }
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
const sides = (w) => w.findAll('[data-testid="ragas-side"]').map((s) => [s.attributes('data-side'), s.find('h3').text(), s.find('p').text()])

describe('<RagasSection>', () => {
  it('the start card and the instructions speak of the Ragas comparisons', async () => {
    const w = mount(FactcrowdAnnotator, { props: { token: 'tok' }, attachTo: document.body })
    mounted.push(w)
    await flushPromises()
    expect(w.get('.start-card').text()).toContain('Compare two answers, then two contexts')
    await press('Enter')
    await press('?')
    const help = w.get('[data-testid="instructions"]').text()
    expect(help).toContain('Compare answers and contexts (Ragas)')
    expect(help).toContain('Context relevance')
  })

  it('shows the two sides of the current comparison, labels by keyboard and submits the scores', async () => {
    const w = mount(FactcrowdAnnotator, { props: { token: 'tok' }, attachTo: document.body })
    mounted.push(w)
    await flushPromises()
    await press('Enter')
    expect(w.get('[data-testid="ragas-question"]').text()).toContain('When did the bridge open?')
    const items = w.findAll('[data-testid="pairwise-item"]')
    expect(items.map((i) => [i.attributes('data-aspect'), i.attributes('data-compares')])).toEqual([
      ['faithfulness', 'responses'], ['answer_relevance', 'responses'], ['context_relevance', 'contexts'],
    ])
    expect(sides(w)).toEqual([['a', 'Response B', 'It opened in 2021.'], ['b', 'Response C', 'It opened in 1998.']])
    expect(items[0].text()).toContain('Response B much better')
    await press('1')
    expect(sides(w)).toEqual([['a', 'Response A', 'Bridges cross rivers.'], ['b', 'Response B', 'It opened in 2021.']])
    await press('5')
    expect(sides(w)).toEqual([['a', 'Context 1', 'It opened in 2021.'], ['b', 'Context 2', 'It opened in 2021. Rivers flood.']])
    expect(w.findAll('[data-testid="pairwise-item"]')[0].text()).toContain('Response B vs Response C')
    await press('2')
    expect(w.findAll('[data-testid="pairwise-item"]').map((i) => i.attributes('data-label'))).toEqual(['1', '5', '2'])
    await press('Enter', { ctrlKey: true })
    await flushPromises()
    const post = calls.find((c) => c.url.endsWith('/submit'))
    expect(post.body.labels.pairwise).toEqual([
      { aspect: 'faithfulness', score: 1 }, { aspect: 'answer_relevance', score: 5 }, { aspect: 'context_relevance', score: 2 },
    ])
    expect(w.get('[data-testid="submitted-message"]').text()).toContain('Submitted')
  })
})
