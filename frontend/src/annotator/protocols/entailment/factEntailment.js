// Plan kind fact_entailment (annotation_tasks/protocols/entailment/): the model's atomic facts of one response,
// sentence by sentence, each supported / contradicted / not enough info by the source, with an optional rationale
// (r). Nothing is edited. Submitted as labels.entailment [{ fact_id, label, rationale }].
import { initialFacts } from '../factscore/facts.js'
import factLabeling from '../factscore/factLabeling.js'
import { keepIds, titlePrefix, whereOf } from '../shared.js'

const OPTIONS = [
  { id: 'supported', value: 'supported', text: 'Supported', keys: ['s', '1'], tone: 'yes' },
  { id: 'contradicted', value: 'contradicted', text: 'Contradicted', keys: ['c', '2'], tone: 'no' },
  { id: 'not_enough_info', value: 'not_enough_info', text: 'Not enough info', keys: ['n', '3'], tone: 'neutral' },
]
const isLabel = (v) => OPTIONS.some((o) => o.value === v)
const factIds = (sections) => new Set(sections.flatMap((s) => s.items.map((it) => String(it.id))))

export default {
  kind: 'fact_entailment',
  sectionKind: 'entailment',
  noun: 'facts',
  labels: ['entailment', 'rationales'],
  submitKey: 'entailment',
  options: OPTIONS,
  commands: { r: 'note' },
  run: { note: (c, cur) => cur && c.openNote(cur.id) },
  commandHelp: [[['r'], 'Rationale']],
  guide: {
    title: 'Fact entailment',
    body: 'Each sentence of the response is broken into short facts. Label each fact Supported (the source states it or clearly implies it), Contradicted (the source says otherwise) or Not enough info (the source does not say either way). Add a short rationale (r) when the call is not obvious: point to the part of the source you relied on.',
    examples: [],
  },
  perResponse: true,
  build: (model, entry, r) => ({
    title: `${titlePrefix(model, r)}Facts`,
    // unchanged model facts (factscore/facts.js), in sentence order: the fact list (FactLabelingSection) shows them
    items: initialFacts(r.raw).map((f) => ({ ...f, id: f.origin[0] })),
  }),
  value: (model, state, section, item) => state.labels.entailment[item.id],
  setValue(model, state, section, item, v) {
    state.labels.entailment[item.id] = v
  },
  note: (state, id) => state.labels.rationales[id] || '',
  setNote(state, id, text) {
    if (text) state.labels.rationales[id] = text
    else delete state.labels.rationales[id]
  },
  missing: (model, section, item, i) => `${whereOf(model, section)}: fact ${i + 1} “${item.text}” is not labeled supported / contradicted / not enough info`,
  collect(model, state, section, out) {
    const L = state.labels
    for (const it of section.items) out.entailment.push({ fact_id: it.id, label: L.entailment[it.id], rationale: (L.rationales[it.id] || '').trim() })
  },
  restore(model, labels, draft, sections) {
    const ids = factIds(sections)
    Object.assign(labels.entailment, keepIds(draft.entailment, ids, isLabel))
    Object.assign(labels.rationales, keepIds(draft.rationales, ids, (v) => typeof v === 'string'))
  },
  marks: factLabeling.marks,
  query: factLabeling.query,
  marksPredicate: false,
}
