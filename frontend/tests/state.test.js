import { describe, expect, it } from 'vitest'
import * as S from '../src/annotator/state.js'
import { sampleUnit } from '../src/demo/sampleUnit.js'

function setup(opts) {
  const model = S.buildModel(sampleUnit(opts))
  const state = S.createState(model)
  return { model, state }
}
const kinds = (model) => model.sections.map((s) => `${s.kind}:${s.response}`)

describe('sections', () => {
  it('qasem: step 1 and step 2 per response, then pairwise', () => {
    const { model } = setup()
    expect(kinds(model)).toEqual(['span:0', 'qa:0', 'span:1', 'qa:1', 'pairwise:null'])
    expect(model.sections[1].step).toBe(2)
    expect(model.sections[4].items.map((i) => i.aspect)).toEqual(['consistency'])
  })
  it('RAG items compare faithfulness and relevance', () => {
    const { model } = setup({ rag: true })
    expect(model.sections.at(-1).items.map((i) => i.aspect)).toEqual(['faithfulness', 'relevance'])
  })
  it('factscore and validation modes', () => {
    expect(kinds(setup({ mode: 'factscore' }).model)).toEqual(['fact:0', 'fact:1'])
    expect(kinds(setup({ mode: 'validation' }).model)).toEqual(['validation:0', 'validation:1'])
  })
  it('orders QAs by predicate position', () => {
    const unit = sampleUnit()
    unit.responses[0].qas.reverse()
    const model = S.buildModel(unit)
    const preds = model.sections[1].items.map((i) => i.predicate.token_index)
    expect(preds).toEqual([...preds].sort((a, b) => a - b))
  })
})

describe('step 1 → step 2 propagation', () => {
  it('a span marked not covered makes its QAs not supported, derived, and skipped', () => {
    const { model, state } = setup()
    const qaSection = model.sections[1]
    const span = model.responses[0].spans[1] // "from measles"
    const qa = qaSection.items.find((i) => span.qa_ids.includes(i.id))
    S.select(model, state, 0, 1)
    S.label(model, state, false)
    expect(S.isDerived(model, state, qaSection, qa)).toBe(true)
    expect(S.itemValue(model, state, qaSection, qa)).toBe(false)
    expect(S.sectionProgress(model, state, 1).total).toBe(qaSection.items.length - 1)
    // navigation in step 2 skips it
    S.goToSection(model, state, 1)
    const visited = []
    for (let k = 0; k < qaSection.items.length; k++) {
      visited.push(S.currentItem(model, state).id)
      S.move(model, state, 1)
    }
    expect(visited).not.toContain(qa.id)
    // the payload sends it as derived
    const sent = S.submitLabels(model, state).qas.find((q) => q.qa_id === qa.id)
    expect(sent).toEqual({ qa_id: qa.id, supported: false, derived_from_span: true, note: '' })
  })
  it('a step whose QAs all follow from step 1 is complete at 0 / 0; an empty or unlabeled step is not', () => {
    const { model, state } = setup()
    expect(S.sectionProgress(model, state, 1)).toEqual({ done: 0, total: 6, derived: 0, complete: false })
    S.goToSection(model, state, 0)
    for (let k = 0; k < model.sections[0].items.length; k++) S.label(model, state, false)
    expect(S.sectionProgress(model, state, 1)).toEqual({ done: 0, total: 0, derived: 6, complete: true })
    expect(S.progressLabel(model, { ...state, cursor: { section: 1, item: 0 } })).toBe('Response A · Step 2 · all 6 QAs answered in step 1')
    expect(S.progress(model, state).sections[0].complete).toBe(true)
    expect(S.progress(model, state).sections[3].complete).toBe(false)
    const empty = S.buildModel({ ...sampleUnit({ mode: 'factscore' }) })
    const st = S.createState(empty)
    st.labels.facts[empty.responses[0].id] = []
    expect(S.sectionProgress(empty, st, 0)).toEqual({ done: 0, total: 0, derived: 0, complete: false })
  })
  it('going back and marking the span covered asks the QA again', () => {
    const { model, state } = setup()
    const span = model.responses[0].spans[1]
    const qa = model.sections[1].items.find((i) => span.qa_ids.includes(i.id))
    S.select(model, state, 0, 1)
    S.label(model, state, false)
    S.select(model, state, 0, 1)
    S.label(model, state, true)
    expect(S.isDerived(model, state, model.sections[1], qa)).toBe(false)
    expect(S.itemValue(model, state, model.sections[1], qa)).toBeUndefined()
    expect(S.missingItems(model, state).some((m) => m.section === 1 && model.sections[1].items[m.item].id === qa.id)).toBe(true)
  })
})

describe('labeling and navigation', () => {
  it('labeling moves to the next item and across sections', () => {
    const { model, state } = setup()
    const n = model.sections[0].items.length
    for (let i = 0; i < n; i++) {
      expect(state.cursor).toEqual({ section: 0, item: i })
      S.label(model, state, true)
    }
    expect(state.cursor).toEqual({ section: 1, item: 0 })
  })
  it('undo restores the label and the cursor', () => {
    const { model, state } = setup()
    S.label(model, state, true)
    S.label(model, state, false)
    expect(S.undo(state)).toBe(true)
    expect(state.cursor).toEqual({ section: 0, item: 1 })
    expect(state.labels.spans[model.responses[0].spans[1].id]).toBeUndefined()
    expect(state.labels.spans[model.responses[0].spans[0].id]).toBe(true)
    S.undo(state)
    expect(S.undo(state)).toBe(false)
  })
  it('move stays inside the unit', () => {
    const { model, state } = setup()
    S.move(model, state, -1)
    expect(state.cursor).toEqual({ section: 0, item: 0 })
    S.move(model, state, 1000)
    expect(state.cursor.section).toBe(model.sections.length - 1)
  })
  it('progress line of the current step', () => {
    const { model, state } = setup()
    expect(S.progressLabel(model, state)).toBe('Response A · Step 1 · 0 / 6 spans')
    S.label(model, state, true)
    expect(S.progressLabel(model, state)).toBe('Response A · Step 1 · 1 / 6 spans')
    S.goToSection(model, state, 4)
    expect(S.progressLabel(model, state)).toBe('0 / 1 comparisons')
    const fs = setup({ mode: 'factscore' })
    expect(S.progressLabel(fs.model, fs.state)).toBe('Response A · 0 / 5 facts')
  })
  it('goToSection lands on the first unlabeled item', () => {
    const { model, state } = setup()
    S.label(model, state, true)
    S.label(model, state, true)
    S.goToSection(model, state, 2)
    S.goToSection(model, state, 0)
    expect(state.cursor).toEqual({ section: 0, item: 2 })
  })
})

function labelEverything(model, state) {
  for (let guard = 0; guard < 1000; guard++) {
    const missing = S.missingItems(model, state)
    if (!missing.length) return
    const { section, item } = missing[0]
    S.select(model, state, section, item)
    const kind = model.sections[section].kind
    S.label(model, state, kind === 'pairwise' ? 2 : kind === 'fact' ? 'S' : true)
  }
  throw new Error('did not finish')
}

describe('validation before submit', () => {
  it('lists every missing item in order with a message', () => {
    const { model, state } = setup()
    const missing = S.missingItems(model, state)
    const total = model.sections.reduce((a, s) => a + s.items.length, 0)
    expect(missing).toHaveLength(total)
    expect(missing[0]).toMatchObject({ section: 0, item: 0 })
    expect(missing[0].message).toContain('A 52-year-old man from Ohio')
  })
  it('a complete qasem unit gives the contract payload', () => {
    const { model, state } = setup()
    labelEverything(model, state)
    expect(S.missingItems(model, state)).toEqual([])
    const labels = S.submitLabels(model, state)
    const r = model.responses
    expect(labels.spans).toHaveLength(r[0].spans.length + r[1].spans.length)
    expect(labels.qas).toHaveLength(r[0].qas.length + r[1].qas.length)
    expect(labels.pairwise).toEqual([{ aspect: 'consistency', score: 2 }])
    expect(labels.facts).toEqual([])
    expect(labels.qas.every((q) => q.supported === true && q.derived_from_span === false)).toBe(true)
  })
  it('empty facts block submit', () => {
    const { model, state } = setup({ mode: 'factscore' })
    labelEverything(model, state)
    S.select(model, state, 0, 0)
    S.changeItems(model, state, 'add', undefined)
    const missing = S.missingItems(model, state)
    expect(missing).toHaveLength(1)
    expect(missing[0].message).toMatch(/empty/)
  })
  it('notes are sent with the QA', () => {
    const { model, state } = setup()
    const qa = model.sections[1].items[0]
    S.setNote(model, state, 1, qa.id, 'close paraphrase')
    S.select(model, state, 1, 0)
    S.label(model, state, true)
    expect(S.submitLabels(model, state).qas[0]).toEqual({ qa_id: qa.id, supported: true, derived_from_span: false, note: 'close paraphrase' })
  })
})

describe('fact changes through the state', () => {
  it('split, merge, delete are undoable and move the cursor', () => {
    const { model, state } = setup({ mode: 'factscore' })
    const rid = model.responses[0].id
    const before = state.labels.facts[rid].length
    S.select(model, state, 0, 1)
    S.changeItems(model, state, 'split', undefined, ['The man was 52 years old', 'and from Ohio.'])
    expect(state.labels.facts[rid]).toHaveLength(before + 1)
    expect(state.cursor.item).toBe(1)
    expect(state.labels.facts[rid][2].text).toBe('and from Ohio.')
    S.changeItems(model, state, 'merge')
    expect(state.labels.facts[rid]).toHaveLength(before)
    S.changeItems(model, state, 'delete')
    expect(state.labels.facts[rid]).toHaveLength(before - 1)
    S.undo(state)
    S.undo(state)
    S.undo(state)
    expect(state.labels.facts[rid].map((f) => f.key)).toEqual(S.createState(model).labels.facts[rid].map((f) => f.key))
  })
})

describe('draft round trip', () => {
  it('restores labels, notes, facts, cursor and time through JSON', () => {
    const { model, state } = setup()
    S.label(model, state, true)
    S.label(model, state, false)
    S.setNote(model, state, 1, model.sections[1].items[0].id, 'hm')
    state.started = true
    const wire = JSON.parse(JSON.stringify({ draft: S.toDraft(state, 4321) }))
    const restored = S.fromDraft(model, wire.draft)
    expect(restored.labels).toEqual(state.labels)
    expect(restored.cursor).toEqual(state.cursor)
    expect(restored.elapsedMs).toBe(4321)
    expect(restored.started).toBe(true)
  })
  it('factscore lists survive', () => {
    const { model, state } = setup({ mode: 'factscore' })
    S.changeItems(model, state, 'split', undefined, 10)
    S.label(model, state, 'NS')
    const restored = S.fromDraft(model, JSON.parse(JSON.stringify(S.toDraft(state))))
    expect(restored.labels.facts).toEqual(state.labels.facts)
    expect(S.submitLabels(model, restored)).toEqual(S.submitLabels(model, state))
  })
  it('drops what does not fit the unit and ignores foreign drafts', () => {
    const { model } = setup()
    const spanId = model.responses[0].spans[0].id
    const restored = S.fromDraft(model, {
      version: 1,
      labels: { spans: { [spanId]: true, 999999: true, [model.responses[0].spans[1].id]: 'yes' }, pairwise: { consistency: 9 } },
      cursor: { section: 99, item: 0 },
    })
    expect(restored.labels.spans).toEqual({ [spanId]: true })
    expect(restored.labels.pairwise).toEqual({})
    expect(restored.cursor).toEqual({ section: 0, item: 0 })
    expect(S.fromDraft(model, { something: 'else' }).labels.spans).toEqual({})
    expect(S.fromDraft(model, null).labels.spans).toEqual({})
  })
})
