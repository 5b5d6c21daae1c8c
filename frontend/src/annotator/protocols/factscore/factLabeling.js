// Plan kind fact_labeling (FActScore): the atomic facts of one response, sentence by sentence: S / NS / IR. The
// fact list itself is part of the labels (labels.facts[response id], facts.js): facts can be edited, split, merged,
// added and deleted, each change undoable.
import * as facts from './facts.js'
import { factPassages } from './evidence.js'
import { titlePrefix, whereOf } from '../shared.js'

const LABELS = ['S', 'NS', 'IR']
const responseOf = (model, section) => model.responses[section.response]

function validFact(f) {
  return f && typeof f.key === 'string' && typeof f.text === 'string' && Array.isArray(f.origin) &&
    Number.isInteger(f.sentence_index) && (f.label === null || LABELS.includes(f.label))
}

/**
 * Change the fact list of the section's response. `op` is one of edit / split / merge / add / delete; the cursor
 * follows the fact the change produced. Returns the key of that fact (null when none).
 */
function change({ model, state, section, remember }, op, ...args) {
  const rid = responseOf(model, section).id
  const list = state.labels.facts[rid]
  const cur = list[state.cursor.item]
  const key = args[0] ?? cur?.key
  const at = list.findIndex((f) => f.key === key)
  let next
  let focusKey = key
  switch (op) {
    case 'edit': next = facts.editFact(list, key, args[1]); break
    case 'split': next = facts.splitFact(list, key, args[1]); focusKey = next[at].key; break
    case 'merge': next = facts.mergeWithNext(list, key); focusKey = next[at].key; break
    case 'add': {
      const r = facts.addFact(list, args[0] === undefined ? cur?.key ?? null : args[0], args[1] ?? 0, args[2] ?? '')
      next = r.list
      focusKey = r.key
      break
    }
    case 'delete': next = facts.deleteFact(list, key); focusKey = null; break
    default: throw new Error(`unknown fact change ${op}`)
  }
  if (next === list) return focusKey
  remember()
  state.labels.facts[rid] = next
  const pos = focusKey ? next.findIndex((f) => f.key === focusKey) : Math.min(at, next.length - 1)
  state.cursor = { section: state.cursor.section, item: Math.max(0, pos) }
  return focusKey
}

export default {
  kind: 'fact_labeling',
  sectionKind: 'fact',
  noun: 'facts',
  labels: ['facts'],
  submitKey: 'facts',
  options: [
    { id: 'S', value: 'S', text: 'Supported', keys: ['s', '1'], tone: 'yes' },
    { id: 'NS', value: 'NS', text: 'Not supported', keys: ['n', '2'], tone: 'no' },
    { id: 'IR', value: 'IR', text: 'Irrelevant', keys: ['i', '3'], tone: 'neutral' },
  ],
  commands: { e: 'edit', a: 'add', d: 'delete', delete: 'delete', m: 'merge', p: 'split' },
  run: {
    edit: (c, cur) => cur && c.startEditing(cur.key),
    split: (c, cur) => cur && c.startEditing(cur.key),
    add: (c, cur) => (cur ? c.addItemAfter(cur.key) : c.addItemToGroup(0)),
    delete: (c, cur) => cur && c.itemOp('delete', cur.key),
    merge: (c, cur) => cur && c.itemOp('merge', cur.key),
  },
  commandHelp: [[['e'], 'Edit'], [['p'], 'Split'], [['m'], 'Merge with next'], [['a'], 'Add'], [['d'], 'Delete']],
  guide: {
    title: 'Atomic facts',
    body: 'Each sentence of the response is broken into short facts. Label each fact Supported (the reference states it), Not supported (it contradicts or is absent from the reference) or Irrelevant (not a claim about the topic, e.g. “I hope this helps”). Fix bad facts first: edit, split (two claims in one), merge (one claim in two), add (a claim was missed) or delete.',
    examples: [
      { reference: 'Marie Curie won the Nobel Prize in Physics in 1903 and in Chemistry in 1911.', item: 'Marie Curie won two Nobel Prizes.', label: 'Supported', keys: 's', why: 'Physics 1903 and Chemistry 1911.' },
      { reference: 'Marie Curie won the Nobel Prize in Physics in 1903 and in Chemistry in 1911.', item: 'Marie Curie was born in Paris.', label: 'Not supported', keys: 'n', why: 'The reference does not say where she was born (she was born in Warsaw).' },
    ],
  },
  perResponse: true,
  marksPredicate: false, // a fact marks its sentence, not a predicate (the work panel's legend)
  build: (model, entry, r) => ({ title: `${titlePrefix(model, r)}Facts`, items: null }),
  init(model, labels, section) {
    const r = responseOf(model, section)
    labels.facts[r.id] = facts.initialFacts(r.raw)
  },
  items: (model, state, section) => state.labels.facts[responseOf(model, section).id] || [],
  value: (model, state, section, item) => item.label,
  setValue(model, state, section, item, v) {
    const rid = responseOf(model, section).id
    state.labels.facts[rid] = facts.setFactLabel(state.labels.facts[rid], item.key, v)
  },
  blocks: (item) => !item.text.trim(), // an empty fact keeps the unit from being submitted, labeled or not
  missing: (model, section, item, i) => {
    const where = whereOf(model, section)
    return item.text.trim() ? `${where}: fact ${i + 1} “${item.text}” has no label` : `${where}: fact ${i + 1} is empty (write it or delete it)`
  },
  collect(model, state, section, out) {
    const r = responseOf(model, section)
    out.facts.push(...facts.factsPayload(state.labels.facts[r.id] || [], r.id, r.modelFacts))
  },
  restore(model, labels, draft, sections) {
    for (const section of sections) {
      const rid = responseOf(model, section).id
      const list = draft.facts?.[rid]
      if (Array.isArray(list) && list.every(validFact)) labels.facts[rid] = list.map((f) => ({ ...f, origin: [...f.origin] }))
    }
  },
  change,
  marks(item, response) {
    const sentence = response?.sentences[item.sentence_index]
    return sentence ? [{ start: sentence.start, end: sentence.end, cls: 'sentence' }] : []
  },
  query: (item) => item.text,
  passages: factPassages,
}
