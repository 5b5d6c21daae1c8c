import { describe, expect, it } from 'vitest'
import * as S from '../src/annotator/state.js'
import { responseMarks, supportQuery } from '../src/annotator/highlights.js'
import { createTimeOnTask } from '../src/annotator/timeOnTask.js'
import { sampleUnit } from '../src/demo/sampleUnit.js'

describe('highlights of the current item', () => {
  it('span: the span is the target', () => {
    const model = S.buildModel(sampleUnit())
    const [section] = model.sections
    const item = section.items[1]
    expect(responseMarks(section, item, model.responses[0])).toEqual([{ start: item.span.start, end: item.span.end, cls: 'target' }])
    expect(supportQuery(section, item)).toBe(item.span.text)
  })
  it('QA: the answer is the target and the predicate is marked', () => {
    const model = S.buildModel(sampleUnit())
    const section = model.sections[1]
    const item = section.items[0]
    const marks = responseMarks(section, item, model.responses[0])
    expect(marks).toContainEqual({ start: item.qa.answer_start, end: item.qa.answer_end, cls: 'target' })
    expect(marks).toContainEqual({ start: item.predicate.token_index, end: item.predicate.token_index + 1, cls: 'predicate' })
    expect(supportQuery(section, item)).toContain(item.qa.answer)
  })
  it('fact: its sentence is marked', () => {
    const model = S.buildModel(sampleUnit({ mode: 'factscore' }))
    const state = S.createState(model)
    const section = model.sections[0]
    const fact = S.sectionItems(model, state, 0).find((f) => f.sentence_index === 1)
    const sentence = model.responses[0].sentences[1]
    expect(responseMarks(section, fact, model.responses[0])).toEqual([{ start: sentence.start, end: sentence.end, cls: 'sentence' }])
    expect(supportQuery(section, fact)).toBe(fact.text)
  })
  it('nothing without an item', () => {
    expect(responseMarks(null, null, null)).toEqual([])
    expect(supportQuery({ kind: 'pairwise' }, { aspect: 'consistency' })).toBe('')
  })
})

describe('time on task', () => {
  it('counts only while running', () => {
    let now = 0
    const t = createTimeOnTask(1000, () => now)
    now = 500
    expect(t.ms).toBe(1000)
    t.start()
    now = 800
    expect(t.ms).toBe(1300)
    t.pause()
    now = 5000
    expect(t.ms).toBe(1300)
    t.start()
    t.start() // idempotent
    now = 5100
    expect(t.ms).toBe(1400)
  })
})
