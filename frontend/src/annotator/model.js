// The static structure of a unit: its responses (indexed for lookups) and the sections of its plan (plan.js), each
// built by its plan kind's module (protocols/). No Vue, no DOM.
import { resolvePlan, unsupportedKinds } from './plan.js'
import { kindModule } from './protocols/index.js'

const LETTERS = 'ABCDEFGHIJ'

function indexResponse(r, i) {
  const predicates = [...(r.predicates || [])].sort((a, b) => a.token_index - b.token_index)
  const predicateById = new Map(predicates.map((p) => [p.id, p]))
  const order = new Map(predicates.map((p, k) => [p.id, k]))
  const qas = (r.qas || [])
    .map((q, k) => ({ q, k }))
    .sort((a, b) => (order.get(a.q.predicate_id) ?? 1e9) - (order.get(b.q.predicate_id) ?? 1e9) || a.k - b.k)
    .map(({ q }) => q)
  const spans = [...(r.spans || [])].sort((a, b) => a.start - b.start || a.end - b.end)
  const spanByQaId = new Map()
  for (const s of spans) for (const id of s.qa_ids || []) if (!spanByQaId.has(id)) spanByQaId.set(id, s)
  return {
    id: r.id,
    letter: LETTERS[i] || String(i + 1),
    label: r.label || `Response ${LETTERS[i] || i + 1}`,
    text: r.text || '',
    tokens: r.tokens || [],
    sentences: r.sentences || [],
    predicates,
    predicateById,
    qas,
    spans,
    spanByQaId,
    modelFacts: new Map((r.facts || []).map((f) => [f.id, f])),
    raw: r,
  }
}

/**
 * { unit, mode, responses, sections, source, unsupported }: `unsupported` lists the plan kinds this element has no
 * module for; such a unit cannot be labeled here (the controller shows why and submits nothing).
 */
export function buildModel(unit) {
  const mode = unit.assignment?.mode || ''
  const responses = (unit.responses || []).map(indexResponse)
  const source = unit.source || { text: '' }
  const model = { unit, mode, responses, sections: [], source, unsupported: unsupportedKinds(unit) }
  for (const { kind, response, entry, module } of resolvePlan(unit)) {
    const built = module.build(model, entry, responses[response])
    model.sections.push({ kind: module.sectionKind, planKind: kind, response, step: entry.step ?? null, ...built })
  }
  model.sections.forEach((s, i) => {
    s.index = i
    s.key = `${s.kind}-${s.response ?? 'all'}`
  })
  return model
}

/** The module of a section's plan kind (protocols/). */
export const moduleOf = (section) => kindModule(section?.planKind)
