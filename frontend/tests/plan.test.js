import { describe, expect, it } from 'vitest'
import { derivePlan, resolvePlan } from '../src/annotator/plan.js'
import * as S from '../src/annotator/state.js'
import { sampleUnit } from '../src/demo/sampleUnit.js'

const kinds = (model) => model.sections.map((s) => `${s.kind}:${s.response}`)

describe('sections come from the plan the server sends', () => {
  it('follows the plan, not the mode, the protocol or the source', () => {
    const unit = sampleUnit({ rag: true }) // a RAG item: the element alone would compare two aspects
    const [a, b] = unit.responses
    unit.plan = [
      { kind: 'qa_support', response_id: b.id },
      { kind: 'pairwise', aspects: ['consistency'] },
      { kind: 'span_coverage', response_id: a.id },
    ]
    const model = S.buildModel(unit)
    expect(kinds(model)).toEqual(['qa:1', 'pairwise:null', 'span:0'])
    expect(model.sections[1].items.map((i) => i.aspect)).toEqual(['consistency'])
    expect(model.aspects).toEqual(['consistency'])
    // B has no span step in this plan: its QAs are step 1 and nothing is derived from spans
    expect(model.sections[0]).toMatchObject({ step: 1, derivesFromSpans: false, planKind: 'qa_support' })
  })

  it('entries without response_id stand for every response, response by response', () => {
    const unit = sampleUnit()
    unit.plan = [{ kind: 'span_coverage' }, { kind: 'qa_support' }, { kind: 'pairwise', aspects: ['faithfulness', 'relevance'] }]
    expect(kinds(S.buildModel(unit))).toEqual(['span:0', 'qa:0', 'span:1', 'qa:1', 'pairwise:null'])
    expect(S.buildModel(unit).sections[3]).toMatchObject({ step: 2, derivesFromSpans: true })
    expect(S.buildModel(unit).aspects).toEqual(['faithfulness', 'relevance'])
  })

  it('drops entries it cannot render: unknown kinds, unknown responses, pairwise without two responses', () => {
    const unit = sampleUnit({ mode: 'validation' })
    unit.plan = [{ kind: 'rubric' }, { kind: 'qa_validation', response_id: 999 }, { kind: 'qa_validation', response_id: unit.responses[1].id }, null]
    expect(resolvePlan(unit).map((p) => `${p.kind}:${p.response}`)).toEqual(['qa_validation:1'])
    const single = sampleUnit()
    single.responses = single.responses.slice(0, 1)
    expect(kinds(S.buildModel(single))).toEqual(['span:0', 'qa:0'])
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

// TRANSITIONAL (remove with derivePlan): a server that sends no plan gets today's sections
describe('fallback when the unit has no plan', () => {
  for (const opts of [{}, { rag: true }, { mode: 'factscore' }, { mode: 'validation' }]) {
    it(`derives the plan the server sends (${JSON.stringify(opts)})`, () => {
      const unit = sampleUnit(opts)
      const { plan, ...legacy } = unit
      expect(derivePlan(legacy)).toEqual(plan)
      expect(kinds(S.buildModel(legacy))).toEqual(kinds(S.buildModel(unit)))
    })
  }
  it('qasem without a span step asks the QAs in step 1', () => {
    const { plan, ...legacy } = sampleUnit()
    legacy.responses[0].spans = []
    expect(kinds(S.buildModel(legacy))).toEqual(['qa:0', 'span:1', 'qa:1', 'pairwise:null'])
  })
})
