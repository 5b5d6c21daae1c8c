// The element's protocols: one folder each (annotation_tasks/protocols/<name>/ is its server half), holding a
// module per plan kind and that kind's section component (components.js). A kind module is plain data and
// functions, no Vue and no DOM (tests/contract/label_unit.mjs runs it in Node):
//   kind, sectionKind (data-section-kind, the test ids), noun (progress line), labels (its buckets in
//   state.labels and the draft), submitKey (its list in the submitted labels), options (label buttons and keys),
//   commands ({ key: command }) and run ({ command: (controller, item) => ... }), keyHelp? (rows
//   [[keys], text] instead of one per option), commandHelp?, guide, intro (from the protocol), perResponse, accepts(entry, unit)?, build(model, entry, response) → { title, items, ... },
//   init(model, labels, section)?, items(model, state, section)?, value / setValue, isDerived?, note / setNote?,
//   blocks(item)?, missing(model, section, item, i), collect(model, state, section, out),
//   restore(model, labels, draftLabels, sections), change?(...), marks(item, response)?, query(item)?,
//   passages(section, item, response)?, bothResponses?, marksPredicate?, sampleValue(item)?.
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
