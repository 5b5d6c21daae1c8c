// The plan of a unit: which sections the annotator works through, in order. The server decides it (payload.plan,
// docs/annotator-api.md); the element renders it and decides nothing about it.
// A plan entry: { kind, response_id?, aspects? }. A per-response entry without response_id stands for every
// response: consecutive ones are laid out response by response (A's steps, then B's), like the server's order.

/** Plan kind → the element's section kind (the key table, the test ids' data-section-kind). */
export const SECTION_KIND = {
  span_coverage: 'span',
  qa_support: 'qa',
  fact_labeling: 'fact',
  qa_validation: 'validation',
  pairwise: 'pairwise',
}

/** Kinds judged across all responses at once (not once per response). */
const ACROSS_RESPONSES = new Set(['pairwise'])

/**
 * The plan entries of a unit, each bound to its response: [{ kind, response: index | null, entry }].
 * Unknown kinds and entries naming no response of the unit are dropped; a pairwise entry needs two responses.
 */
export function resolvePlan(unit) {
  const plan = Array.isArray(unit.plan) ? unit.plan : derivePlan(unit)
  const responses = unit.responses || []
  const out = []
  let run = [] // consecutive per-response entries without response_id
  const flush = () => {
    responses.forEach((_, r) => run.forEach((entry) => out.push({ kind: entry.kind, response: r, entry })))
    run = []
  }
  for (const entry of plan) {
    if (!entry || !SECTION_KIND[entry.kind]) continue
    if (ACROSS_RESPONSES.has(entry.kind)) {
      flush()
      if (responses.length === 2) out.push({ kind: entry.kind, response: null, entry })
    } else if (entry.response_id === undefined || entry.response_id === null) {
      run.push(entry)
    } else {
      flush()
      const r = responses.findIndex((x) => x.id === entry.response_id)
      if (r >= 0) out.push({ kind: entry.kind, response: r, entry })
    }
  }
  flush()
  return out
}

// ---- TRANSITIONAL: remove once the server sends payload.plan (issue 9; `grep -rn '"plan"' annotation_tasks/protocols`)
const LEGACY_PROTOCOL = {
  qasem: ['span_coverage', 'qa_support', 'pairwise'],
  factscore: ['facts'],
  validation: ['validation'],
}

/** The plan a server without payload.plan implies: today's rules, kept only until the server sends the plan. */
export function derivePlan(unit) {
  const mode = unit.assignment?.mode || 'qasem'
  const protocol = unit.project?.protocol?.length ? unit.project.protocol : LEGACY_PROTOCOL[mode] || []
  const responses = unit.responses || []
  const plan = []
  for (const r of responses) {
    if (mode === 'qasem') {
      const spansStep = protocol.includes('span_coverage') && (r.spans || []).length > 0
      if (spansStep) plan.push({ kind: 'span_coverage', response_id: r.id })
      if (protocol.includes('qa_support') || !spansStep) plan.push({ kind: 'qa_support', response_id: r.id })
    } else if (mode === 'factscore') plan.push({ kind: 'fact_labeling', response_id: r.id })
    else if (mode === 'validation') plan.push({ kind: 'qa_validation', response_id: r.id })
  }
  if (mode !== 'validation' && protocol.includes('pairwise') && responses.length === 2) {
    const source = unit.source || {}
    const rag = !!(source.question || (source.passages && source.passages.length))
    plan.push({ kind: 'pairwise', aspects: rag ? ['faithfulness', 'relevance'] : ['consistency'] })
  }
  return plan
}
// ---- end TRANSITIONAL
