// The plan of a unit: which sections the annotator works through, in order. The server decides it (payload.plan,
// docs/annotator-api.md, annotation_tasks/protocols/); the element renders it and derives no sections itself.
// An entry: { kind, response_id } per response, or { kind: 'pairwise', response_ids, aspects } across both;
// qa_support also carries step and derived_from_spans, span_coverage its step; ragas_pairwise carries comparisons
// ([{ aspect, compares: 'responses' | 'contexts', a, b }]: response ids, or indices into source.passages).

/** Plan kind → the element's section kind (the key table, the test ids' data-section-kind). */
export const SECTION_KIND = {
  span_coverage: 'span',
  qa_support: 'qa',
  fact_labeling: 'fact',
  qa_validation: 'validation',
  pairwise: 'pairwise',
  ragas_pairwise: 'pairwise', // Ragas: each aspect compares its own two answers or two contexts (scored 1–5)
}

/**
 * The plan entries of a unit, each bound to its response: [{ kind, response: index | null, entry }]. Entries the
 * element cannot render are dropped: unknown kinds, a response the unit does not have, pairwise without two.
 */
export function resolvePlan(unit) {
  const responses = unit.responses || []
  const out = []
  for (const entry of Array.isArray(unit.plan) ? unit.plan : []) {
    if (!entry || !SECTION_KIND[entry.kind]) continue
    if (entry.kind === 'ragas_pairwise') {
      if (Array.isArray(entry.comparisons) && entry.comparisons.length) out.push({ kind: entry.kind, response: null, entry })
      continue
    }
    if (entry.kind === 'pairwise') {
      if (responses.length === 2) out.push({ kind: entry.kind, response: null, entry })
      continue
    }
    const r = responses.findIndex((x) => x.id === entry.response_id)
    if (r >= 0) out.push({ kind: entry.kind, response: r, entry })
  }
  return out
}
