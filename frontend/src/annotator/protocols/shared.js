// What several kind modules share: label option tables, the QA item shape and its highlights, draft filters and the
// 1–5 comparison scale. Plain data and functions (no Vue, no DOM): tests/contract/label_unit.mjs runs them in Node.

/** Two label options, yes then no: [text, keys, id] each. */
export const yesNo = ([yesText, yesKeys, yesId], [noText, noKeys, noId]) => [
  { id: yesId, value: true, text: yesText, keys: yesKeys, tone: 'yes' },
  { id: noId, value: false, text: noText, keys: noKeys, tone: 'no' },
]

/** The 1–5 scale of the comparison kinds. */
export const SCALE = [1, 2, 3, 4, 5].map((n) => ({ id: String(n), value: n, text: String(n), keys: [String(n)], tone: 'scale' }))

export const isBool = (v) => typeof v === 'boolean'
const isScore = (v) => Number.isInteger(v) && v >= 1 && v <= 5

/** The entries of a draft's `obj` whose key is one of `ids` and whose value passes `ok`. */
export const keepIds = (obj, ids, ok) =>
  Object.fromEntries(Object.entries(obj || {}).filter(([k, v]) => ids.has(String(k)) && ok(v)))

/** The ids (as strings) of every QA / span of the unit's responses. */
export const qaIds = (model) => new Set(model.responses.flatMap((r) => r.qas.map((q) => String(q.id))))
export const spanIds = (model) => new Set(model.responses.flatMap((r) => r.spans.map((s) => String(s.id))))

/** "A · " before a section title when the unit has more than one response. */
export const titlePrefix = (model, r) => (model.responses.length > 1 ? `${r.letter} · ` : '')

/** Where a missing item sits, for its message: the response's label, or the section title across responses. */
export const whereOf = (model, section) => (section.response == null ? section.title : model.responses[section.response].label)

/** One item per QA of a response, in the response's QA order; `tag` keeps keys unique across sections. */
export const qaItems = (r, tag) =>
  r.qas.map((q) => ({ key: `${tag}${q.id}`, id: q.id, qa: q, predicate: r.predicateById.get(q.predicate_id) }))

/** A QA's highlights: its answer (target) and its predicate. */
export function qaMarks(item) {
  const marks = []
  if (item.qa.answer_start != null) marks.push({ start: item.qa.answer_start, end: item.qa.answer_end, cls: 'target' })
  if (item.predicate) marks.push({ start: item.predicate.token_index, end: item.predicate.token_index + 1, cls: 'predicate' })
  return marks
}
export const qaQuery = (item) => `${item.predicate?.text || ''} ${item.qa.question} ${item.qa.answer}`

/**
 * The parts of a kind whose items are labeled yes / no by id (span coverage, QA support, QA validation): the
 * labels live in labels[bucket] by item id, go out as labels[bucket] [{ [idKey]: id, [valueKey]: label }], and a
 * draft keeps the booleans of ids the unit's responses have (`ids(model)`).
 */
export const yesNoById = (bucket, idKey, valueKey, ids) => ({
  labels: [bucket],
  submitKey: bucket,
  value: (model, state, section, item) => state.labels[bucket][item.id],
  setValue(model, state, section, item, v) {
    state.labels[bucket][item.id] = v
  },
  collect(model, state, section, out) {
    for (const it of section.items) out[bucket].push({ [idKey]: it.id, [valueKey]: state.labels[bucket][it.id] })
  },
  restore(model, labels, draft) {
    Object.assign(labels[bucket], keepIds(draft[bucket], ids(model), isBool))
  },
})

/**
 * The parts of a kind scored 1–5 per aspect (pairwise, ragas_pairwise): scores live in labels.pairwise by aspect,
 * go out as labels.pairwise [{ aspect, score }], and a draft keeps the scores of the aspects the unit asks.
 */
export const scoredAspects = {
  sectionKind: 'pairwise',
  noun: 'comparisons',
  labels: ['pairwise'],
  submitKey: 'pairwise',
  options: SCALE,
  keyHelp: [[['1', '5'], 'A much more … B much more']],
  perResponse: false,
  value: (model, state, section, item) => state.labels.pairwise[item.aspect],
  setValue(model, state, section, item, v) {
    state.labels.pairwise[item.aspect] = v
  },
  missing: (model, section, item) => `Compare: choose a score for ${item.aspect}`,
  collect(model, state, section, out) {
    for (const it of section.items) out.pairwise.push({ aspect: it.aspect, score: state.labels.pairwise[it.aspect] })
  },
  restore(model, labels, draft, sections) {
    const aspects = new Set(sections.flatMap((s) => s.items.map((it) => it.aspect)))
    Object.assign(labels.pairwise, keepIds(draft.pairwise, aspects, isScore))
  },
}
