import { describe, expect, it } from 'vitest'
import { resolvePlan } from '../src/annotator/plan.js'
import * as S from '../src/annotator/state.js'
import { sampleUnit } from '../src/demo/sampleUnit.js'

const kinds = (model) => model.sections.map((s) => `${s.kind}:${s.response}`)

describe('sections come from the plan the server sends', () => {
  it('follows the plan, not the mode, the protocol or the source', () => {
    const unit = sampleUnit({ rag: true }) // a RAG item, qasem mode, a protocol with span coverage
    const [a, b] = unit.responses
    unit.plan = [
      { kind: 'qa_support', response_id: b.id, step: 1, derived_from_spans: false },
      { kind: 'pairwise', response_ids: [a.id, b.id], aspects: ['consistency'] },
      { kind: 'span_coverage', response_id: a.id, step: 1 },
    ]
    const model = S.buildModel(unit)
    expect(kinds(model)).toEqual(['qa:1', 'pairwise:null', 'span:0'])
    expect(model.sections[1].items.map((i) => i.aspect)).toEqual(['consistency'])
    expect(model.sections[0]).toMatchObject({ step: 1, derivesFromSpans: false, planKind: 'qa_support' })
  })

  it('derived_from_spans decides whether a QA of an uncovered span is asked', () => {
    for (const derived of [true, false]) {
      const unit = sampleUnit()
      unit.plan = [
        { kind: 'span_coverage', response_id: unit.responses[0].id, step: 1 },
        { kind: 'qa_support', response_id: unit.responses[0].id, step: 2, derived_from_spans: derived },
      ]
      const model = S.buildModel(unit)
      const state = S.createState(model)
      S.label(model, state, false) // the first span: not covered
      const qa = model.sections[1].items.find((i) => model.responses[0].spans[0].qa_ids.includes(i.id))
      expect(S.isDerived(model, state, model.sections[1], qa)).toBe(derived)
      expect(S.sectionProgress(model, state, 1).total).toBe(model.sections[1].items.length - (derived ? 1 : 0))
      expect(S.progressLabel(model, { ...state, cursor: { section: 1, item: 0 } })).toMatch(/^Response A · Step 2 · 0 \/ \d+ QAs$/)
    }
  })

  it('drops entries it cannot render: unknown kinds, unknown responses, pairwise without two responses', () => {
    const unit = sampleUnit({ mode: 'validation' })
    unit.plan = [{ kind: 'rubric' }, { kind: 'qa_validation', response_id: 999 }, { kind: 'qa_validation', response_id: unit.responses[1].id }, null]
    expect(resolvePlan(unit).map((p) => `${p.kind}:${p.response}`)).toEqual(['qa_validation:1'])
    const single = sampleUnit()
    single.responses = single.responses.slice(0, 1)
    expect(kinds(S.buildModel(single))).toEqual(['span:0', 'qa:0'])
    expect(S.buildModel({ ...sampleUnit(), plan: undefined }).sections).toEqual([]) // the server decides, or nothing
  })

  it('a fact_labeling section owns its response\'s fact list (also in the draft)', () => {
    const unit = sampleUnit({ mode: 'factscore' })
    unit.plan = [{ kind: 'fact_labeling', response_id: unit.responses[1].id }]
    const model = S.buildModel(unit)
    const state = S.createState(model)
    expect(Object.keys(state.labels.facts)).toEqual([String(unit.responses[1].id)])
    S.label(model, state, 'S')
    const restored = S.fromDraft(model, JSON.parse(JSON.stringify(S.toDraft(state))))
    expect(restored.labels.facts).toEqual(state.labels.facts)
    expect(S.submitLabels(model, restored).facts.map((f) => f.label)).toEqual(['S', null, null, null])
  })
})
