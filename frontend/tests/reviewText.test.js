// The researcher screens show a tokenized import as written ("Riverton's", "$4 million", "March."), the server's
// display (protocols/display.py: text + [word, start, end] per token), and highlight token ranges by those
// offsets: the answer span marks exactly its written words. No screen joins tokens with spaces any more.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { flushPromises, mount } from '@vue/test-utils'
import Review from '../src/dashboard/views/Review.vue'
import Adjudicate from '../src/dashboard/views/Adjudicate.vue'
import Validate from '../src/dashboard/views/Validate.vue'
import DataView from '../src/dashboard/views/DataView.vue'
import { route } from '../src/dashboard/router.js'
import { setManifest } from '../src/dashboard/manifest.js'
import manifest from './fixtures/manifest.json'

const WORDS = ['Riverton', "'s", 'mayor', 'paid', '$', '4', 'million', 'in', 'March', '.']
const TEXT = "Riverton's mayor paid $4 million in March."
// offsets as the server computes them for the text above
const display = () => {
  let pos = 0
  const glued = new Set(["'s", '4', '.'])
  return { text: TEXT, tokens: WORDS.map((w, i) => { if (i && !glued.has(w)) pos += 1; const row = [w, pos, pos + w.length]; pos += w.length; return row }) }
}
const TOKEN_SPACES = / 's| \.|\$ /

function serve(routes) {
  return vi.fn(async (url) => {
    const path = new URL(url, 'http://x').pathname
    const hit = Object.entries(routes).find(([p]) => path.endsWith(p))
    return new Response(JSON.stringify(hit ? hit[1] : {}), { status: hit ? 200 : 404 })
  })
}
const marked = (el) => el.findAll('mark').map((m) => [m.text(), m.classes().join(' ')])

beforeEach(() => setManifest(manifest))
afterEach(() => vi.unstubAllGlobals())

describe('display offsets', () => {
  it('the fixture offsets point at the words', () => {
    const d = display()
    expect(d.tokens.every(([w, a, b]) => d.text.slice(a, b) === w)).toBe(true)
  })
})

describe('Review', () => {
  it('shows the answer of a QA and a span highlighted in the text as written', async () => {
    const response = { id: 3, label: 'Response A', ...display(), sentences: [], qas: [], spans: [], facts: [], predicates: [] }
    const review = {
      assignment: { id: 11, status: 'submitted', mode: 'qasem', unit: 2, worker: { id: 1, name: 'w1', pseudonym: 'W-1' } },
      summary: { gold_correct: 0, gold_total: 0, agreement: null, agreed: 0, compared: 0, notes: 0 },
      shown_check: { recorded: true, missing_now: {} },
      payload: { source: { text: 'Riverton paid.', passages: [] }, responses: [response] },
      items: [
        { level: 'qa', item_id: 7, response_id: 3, question: 'Who paid something?', answer_text: "Riverton's mayor", answer_start: 0, answer_end: 3, answer: 'supported', in_payload_now: true },
        { level: 'span', item_id: 8, response_id: 3, text: '$4 million', start: 4, end: 7, answer: 'covered', in_payload_now: true },
      ],
    }
    vi.stubGlobal('fetch', serve({ '/assignments/11/review/': review }))
    route.parts = ['p', '5', 'review', '11']
    const w = mount(Review, { props: { project: { id: 5 } } })
    await flushPromises()
    const rows = w.findAll('[data-testid=review-item]')
    expect(rows).toHaveLength(2)
    // the response once (not once per item), the selected item marked in it: the first one to begin with
    const texts = w.findAll('[data-testid=review-response-text]')
    expect(texts).toHaveLength(1)
    expect(texts[0].text()).toBe(TEXT)
    expect(texts[0].text()).not.toMatch(TOKEN_SPACES)
    expect(marked(texts[0])).toEqual([["Riverton's mayor", 'ans']])
    await rows[1].trigger('click')
    expect(marked(w.find('[data-testid=review-response-text]'))).toEqual([['$4 million', 'ans']])
    w.unmount()
  })
})

describe('Adjudicate', () => {
  it('shows the context as written, the answer and the predicate marked by offsets', async () => {
    const row = {
      key: 'qa:7', level: 'qa', item_id: 7, aspect: null, labels: [], n_votes: 2, counts: { supported: 1, not_supported: 1 },
      majority: 'supported', tie: true, gold: null, disagreement: 0.5, origin: 'model', votes: [], adjudicated: null,
      context: { question: 'What did someone pay?', answer_text: '$4 million', answer_start: 4, answer_end: 7, predicate_index: 3,
        display: display(), source_text: 'S' },
    }
    vi.stubGlobal('fetch', serve({ '/adjudication/queue/': { count: 1, decided: 0, agreement: [], results: [row] } }))
    route.parts = ['p', '5', 'adjudicate']
    const w = mount(Adjudicate, { props: { project: { id: 5 } } })
    await flushPromises()
    const context = w.find('[data-testid=adj-context]')
    expect(context.text()).toBe(TEXT)
    expect(marked(context)).toEqual([['paid', 'pred'], ['$4 million', 'ans']])
    w.unmount()
  })
})

describe('Validate', () => {
  it('reads the response display and the shown question', async () => {
    const qa = { id: 7, response: 3, predicate_text: 'paid', predicate_token_index: 3, predicate_kind: 'verbal', question: 'Who paid something ?',
      question_shown: 'Who paid something?', answer: "Riverton 's mayor", answer_start: 0, answer_end: 3, confidence: 0.9, validity: 'unknown', original: null }
    const stored = { id: 3, external_id: 'r3', system: 'bart', text: WORDS.join(' '), tokens: WORDS.map((t, i) => [t, i, i + 1]), display: display() }
    vi.stubGlobal('fetch', serve({ '/qas/': { count: 1, results: [qa] }, '/responses/3/': stored, '/overview/': { qas_by_validity: {} } }))
    route.parts = ['p', '5', 'validate']
    const w = mount(Validate, { props: { project: { id: 5 } } })
    await flushPromises()
    const card = w.find('[data-testid=validate-response]')
    expect(card.find('.response-text').text()).toBe(TEXT)
    const row = w.find('[data-testid=qa-row]')
    expect(row.text()).toContain('Who paid something?')
    expect(row.find('td.context').text()).toBe(TEXT)
    expect(marked(row.find('td.context'))).toEqual([["Riverton's mayor", 'ans'], ['paid', 'pred']])
    w.unmount()
  })
})

describe('DataView', () => {
  it('lists a response as written', async () => {
    const stored = { id: 3, external_id: 'r3', source_external_id: 's1', system: 'bart', text: WORDS.join(' '), display: display(),
      predicate_count: 1, qa_count: 2, fact_count: 0 }
    vi.stubGlobal('fetch', serve({ '/responses/': { count: 1, results: [stored] }, '/jobs/': { count: 0, results: [] } }))
    const w = mount(DataView, { props: { project: { id: 5 } } })
    await flushPromises()
    expect(w.find('[data-testid=response-row] td.text').text()).toBe(TEXT)
    w.unmount()
  })
})
