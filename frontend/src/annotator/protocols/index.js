// The element's protocols: one folder each (annotation_tasks/protocols/<name>/ is its server half), holding an
// index.js (name, start card line `intro`, kinds), a module per plan kind and that kind's section component
// (registered in components.js). A kind module is plain data and functions, no Vue and no DOM
// (tests/contract/label_unit.mjs runs it in Node). Its fields (? optional):
//   kind; sectionKind (data-section-kind of its step tab); noun (the progress line); perResponse (one section per
//   response, else across them); accepts(entry, unit)? (can the element render this entry);
//   build(model, entry, response) → { title, items, ... } (the section); init(model, labels, section)?;
//   items(model, state, section)? (items that live in the labels, e.g. an editable fact list);
//   labels (its buckets in state.labels and the draft); value / setValue; isDerived?; note / setNote? (a text per
//   item); blocks(item)? (an item that keeps the unit from submitting even when labeled);
//   missing(model, section, item, i) (what the worker reads); submitKey and collect(model, state, section, out)
//   (its list in the submitted labels); restore(model, labels, draftLabels, sections) (what of a draft fits);
//   change?(...) (item list operations, undoable); options (label buttons and keys); commands ({ key: command })
//   and run ({ command: (controller, item) => ... }); keyHelp? (rows [[keys], text] instead of one per option);
//   commandHelp?; guide ({ title, body, examples }); marks(item, response)? and query(item)? (highlights);
//   passages(section, item, response)? (knowledge passages); bothResponses?, marksPredicate? (the work panel);
//   sampleValue(item)? (what label_unit.mjs labels with, else the first option).
// A plan kind with no module here is not rendered: the element says the unit needs it and submits nothing.
import qasem from './qasem/index.js'
import factscore from './factscore/index.js'
import validation from './validation/index.js'
import ragas from './ragas/index.js'
import entailment from './entailment/index.js'

export const PROTOCOLS = [qasem, factscore, validation, ragas, entailment]

const MODULES = new Map(PROTOCOLS.flatMap((p) => p.kinds.map((k) => [k.kind, { ...k, protocol: p.name, intro: p.intro }])))

/** The module of a plan kind, or null when this element version has none. */
export const kindModule = (kind) => MODULES.get(kind) || null

/** Every plan kind the element can render. */
export const PLAN_KINDS = [...MODULES.keys()]

/** The label buckets of every kind (state.labels, the draft) and the lists of the submitted labels, in order. */
export const LABEL_BUCKETS = [...new Set([...MODULES.values()].flatMap((m) => m.labels))]
export const SUBMIT_KEYS = [...new Set([...MODULES.values()].map((m) => m.submitKey))]
