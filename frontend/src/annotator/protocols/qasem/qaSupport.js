// Plan kind qa_support (QASem step 2): each QA of one response, supported / not supported by the reference, with an
// optional note (e). With derived_from_spans, a QA whose answer span was marked not covered in step 1 is derived:
// not asked, shown and sent as not supported.
import { isBool, keepIds, qaIds, qaItems, qaMarks, qaQuery, titlePrefix, whereOf, yesNo } from '../shared.js'

function isDerived(model, state, section, item) {
  if (!section.derivesFromSpans) return false
  const span = model.responses[section.response].spanByQaId.get(item.id)
  return !!span && state.labels.spans?.[span.id] === false
}

export default {
  kind: 'qa_support',
  sectionKind: 'qa',
  noun: 'QAs',
  labels: ['qas', 'notes'],
  submitKey: 'qas',
  options: yesNo(['Supported', ['s', '1'], 'supported'], ['Not supported', ['n', '2'], 'not-supported']),
  commands: { e: 'note' },
  run: { note: (c, cur) => cur && c.openNote(cur.id) },
  commandHelp: [[['e'], 'Note']],
  guide: {
    title: 'Step 2 · QA support',
    body: 'Each question–answer pair states one fact about the highlighted predicate. Mark it supported only if the reference states (or clearly implies) exactly that. QAs whose span you marked not covered are already not supported and are skipped.',
    examples: [
      { reference: 'A 52-year-old man from Ohio died of measles last week.', item: 'How did someone die? — from measles', label: 'Supported', keys: 's', why: 'The reference says he died of measles.' },
      { reference: 'A 52-year-old man from Ohio died of measles last week.', item: 'When did someone die? — yesterday', label: 'Not supported', keys: 'n', why: 'The reference says last week, not yesterday.' },
    ],
  },
  perResponse: true,
  build: (model, entry, r) => ({ title: `${titlePrefix(model, r)}QAs`, derivesFromSpans: !!entry.derived_from_spans, items: qaItems(r, 'q') }),
  isDerived,
  value: (model, state, section, item) => (isDerived(model, state, section, item) ? false : state.labels.qas[item.id]),
  setValue(model, state, section, item, v) {
    state.labels.qas[item.id] = v
  },
  note: (state, id) => state.labels.notes[id] || '',
  setNote(state, id, text) {
    if (text) state.labels.notes[id] = text
    else delete state.labels.notes[id]
  },
  missing: (model, section, item) => `${whereOf(model, section)}, step ${section.step}: QA “${item.qa.question}” is not labeled supported / not supported`,
  collect(model, state, section, out) {
    const L = state.labels
    for (const it of section.items) {
      const derived = isDerived(model, state, section, it)
      out.qas.push({ qa_id: it.id, supported: derived ? false : L.qas[it.id], derived_from_span: derived, note: derived ? '' : L.notes[it.id] || '' })
    }
  },
  restore(model, labels, draft) {
    const ids = qaIds(model)
    Object.assign(labels.qas, keepIds(draft.qas, ids, isBool))
    Object.assign(labels.notes, keepIds(draft.notes, ids, (v) => typeof v === 'string'))
  },
  marks: qaMarks,
  query: qaQuery,
}
