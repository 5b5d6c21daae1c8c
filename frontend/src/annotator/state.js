// The annotation session as plain data: a static model of the unit (sections and items) and a mutable state
// (labels, cursor, undo history). No Vue, no DOM: everything here runs in Node.
import * as facts from './facts.js'
import { resolvePlan, SECTION_KIND } from './plan.js'

const LETTERS = 'ABCDEFGHIJ'
const HISTORY_LIMIT = 200

export const KIND_NOUN = { span: 'spans', qa: 'QAs', fact: 'facts', pairwise: 'comparisons', validation: 'QAs' }

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
    index: i,
    letter: LETTERS[i] || String(i + 1),
    label: r.label || `Response ${LETTERS[i] || i + 1}`,
    text: r.text || '',
    tokens: r.tokens || [],
    sentences: r.sentences || [],
    predicates,
    predicateById,
    qas,
    qaById: new Map(qas.map((q) => [q.id, q])),
    spans,
    spanByQaId,
    modelFacts: new Map((r.facts || []).map((f) => [f.id, f])),
    raw: r,
  }
}

/** The static structure of a unit: its responses (indexed) and the sections of its plan (plan.js), in order. */
export function buildModel(unit) {
  const mode = unit.assignment?.mode || 'qasem'
  const responses = (unit.responses || []).map(indexResponse)
  const source = unit.source || { text: '' }
  const many = responses.length > 1
  const prefix = (r) => (many ? `${r.letter} · ` : '')
  const qaItems = (r, tag) => r.qas.map((q) => ({ key: `${tag}${q.id}`, id: q.id, qa: q, predicate: r.predicateById.get(q.predicate_id) }))
  const sections = []
  let aspects = []
  for (const { kind, response, entry } of resolvePlan(unit)) {
    const r = responses[response]
    const base = { kind: SECTION_KIND[kind], planKind: kind, response, step: entry.step ?? null }
    if (kind === 'span_coverage') {
      sections.push({ ...base, title: `${prefix(r)}Spans`, items: r.spans.map((s) => ({ key: `s${s.id}`, id: s.id, span: s })) })
    } else if (kind === 'qa_support') {
      // derived_from_spans: a QA whose span was marked not covered in step 1 is not asked (not supported)
      sections.push({ ...base, title: `${prefix(r)}QAs`, derivesFromSpans: !!entry.derived_from_spans, items: qaItems(r, 'q') })
    } else if (kind === 'fact_labeling') {
      sections.push({ ...base, title: `${prefix(r)}Facts`, items: null })
    } else if (kind === 'qa_validation') {
      sections.push({ ...base, title: `${prefix(r)}QAs`, items: qaItems(r, 'v') })
    } else if (kind === 'pairwise') {
      aspects = (entry.aspects || []).filter((a) => typeof a === 'string')
      sections.push({ ...base, title: 'Compare', items: aspects.map((a) => ({ key: `p-${a}`, aspect: a })) })
    } else if (kind === 'ragas_pairwise') {
      // each aspect compares the two things the server named (two answers, or two contexts of the source)
      const compared = entry.comparisons.filter((c) => c && typeof c.aspect === 'string')
      aspects = compared.map((c) => c.aspect)
      sections.push({ ...base, title: 'Compare', items: compared.map((c) => ({ key: `p-${c.aspect}`, aspect: c.aspect, comparison: c })) })
    }
  }
  sections.forEach((s, i) => {
    s.index = i
    s.key = `${s.kind}-${s.response ?? 'all'}`
  })
  return { unit, mode, responses, sections, source, aspects }
}

/** The responses whose atomic facts are labeled (a fact_labeling section each). */
const factResponses = (model) => model.sections.filter((s) => s.kind === 'fact').map((s) => model.responses[s.response])

export function createState(model) {
  const labels = { spans: {}, qas: {}, notes: {}, facts: {}, pairwise: {}, validation: {} }
  for (const r of factResponses(model)) labels.facts[r.id] = facts.initialFacts(r.raw)
  return { labels, cursor: { section: 0, item: 0 }, history: [], started: false, elapsedMs: 0 }
}

// ---- items and values ----------------------------------------------------------------------------------------

export function sectionItems(model, state, si) {
  const section = model.sections[si]
  if (!section) return []
  if (section.kind === 'fact') return state.labels.facts[model.responses[section.response].id] || []
  return section.items
}

export function currentItem(model, state) {
  return sectionItems(model, state, state.cursor.section)[state.cursor.item] || null
}

/** A QA is derived (not asked, shown as not supported) when its answer span was marked not covered. */
export function isDerived(model, state, section, item) {
  if (section.kind !== 'qa' || !section.derivesFromSpans) return false
  const span = model.responses[section.response].spanByQaId.get(item.id)
  return !!span && state.labels.spans[span.id] === false
}

export function itemValue(model, state, section, item) {
  switch (section.kind) {
    case 'span': return state.labels.spans[item.id]
    case 'qa': return isDerived(model, state, section, item) ? false : state.labels.qas[item.id]
    case 'fact': return item.label
    case 'pairwise': return state.labels.pairwise[item.aspect]
    case 'validation': return state.labels.validation[item.id]
  }
  return undefined
}

export const isLabeled = (v) => v !== undefined && v !== null
export const isAskable = (model, state, section, item) => !isDerived(model, state, section, item)

/** All askable positions in order, across sections. */
function positions(model, state) {
  const out = []
  model.sections.forEach((section, si) => {
    sectionItems(model, state, si).forEach((item, i) => {
      if (isAskable(model, state, section, item)) out.push({ section: si, item: i })
    })
  })
  return out
}

// ---- navigation ------------------------------------------------------------------------------------------------

const cmp = (a, b) => a.section - b.section || a.item - b.item

/** Move the cursor by delta askable items (across sections). */
export function move(model, state, delta) {
  const pos = positions(model, state)
  if (!pos.length) return
  const c = state.cursor
  let i = pos.findIndex((p) => cmp(p, c) === 0)
  if (i < 0) {
    // cursor on a non-askable item: step from where it would be
    const after = pos.findIndex((p) => cmp(p, c) > 0)
    i = delta > 0 ? (after < 0 ? pos.length : after) - 1 : after < 0 ? pos.length : after
  }
  const j = Math.min(pos.length - 1, Math.max(0, i + delta))
  state.cursor = { ...pos[j] }
}

export function select(model, state, section, item) {
  const n = sectionItems(model, state, section).length
  state.cursor = { section, item: Math.max(0, Math.min(item, n - 1)) }
}

/** Go to a section: its first unlabeled askable item, else its first askable item. */
export function goToSection(model, state, si) {
  if (si < 0 || si >= model.sections.length) return
  const section = model.sections[si]
  const items = sectionItems(model, state, si)
  const askable = items.map((it, i) => ({ it, i })).filter(({ it }) => isAskable(model, state, section, it))
  const first = askable.find(({ it }) => !isLabeled(itemValue(model, state, section, it))) || askable[0]
  state.cursor = { section: si, item: first ? first.i : 0 }
}

// ---- changes (each one undoable) -------------------------------------------------------------------------------

function remember(state) {
  state.history.push(JSON.stringify({ labels: state.labels, cursor: state.cursor }))
  if (state.history.length > HISTORY_LIMIT) state.history.shift()
}

export function undo(state) {
  const last = state.history.pop()
  if (!last) return false
  const { labels, cursor } = JSON.parse(last)
  state.labels = labels
  state.cursor = cursor
  return true
}

/** Label the current item and move to the next one. Returns false when nothing was labeled. */
export function label(model, state, value) {
  const section = model.sections[state.cursor.section]
  const item = currentItem(model, state)
  if (!section || !item || !isAskable(model, state, section, item)) return false
  remember(state)
  const L = state.labels
  switch (section.kind) {
    case 'span': L.spans[item.id] = value; break
    case 'qa': L.qas[item.id] = value; break
    case 'pairwise': L.pairwise[item.aspect] = value; break
    case 'validation': L.validation[item.id] = value; break
    case 'fact': {
      const rid = model.responses[section.response].id
      L.facts[rid] = facts.setFactLabel(L.facts[rid], item.key, value)
      break
    }
  }
  move(model, state, 1)
  return true
}

export function setNote(state, qaId, text) {
  if (text) state.labels.notes[qaId] = text
  else delete state.labels.notes[qaId]
}

/**
 * Change the fact list of the current section's response. `op` is one of edit / split / merge / add / delete;
 * the cursor follows the fact the change produced.
 */
export function changeFacts(model, state, op, ...args) {
  const section = model.sections[state.cursor.section]
  if (!section || section.kind !== 'fact') return null
  const rid = model.responses[section.response].id
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
  remember(state)
  state.labels.facts[rid] = next
  const pos = focusKey ? next.findIndex((f) => f.key === focusKey) : Math.min(at, next.length - 1)
  state.cursor = { section: state.cursor.section, item: Math.max(0, pos) }
  return focusKey
}

// ---- progress, completeness, submission ----------------------------------------------------------------------

/** { done, total } askable items of a section, `derived`: its items answered by step 1 (not asked), and
 * `complete`: nothing left to do there (a step whose QAs all follow from step 1 is complete, at 0 / 0). */
export function sectionProgress(model, state, si) {
  const section = model.sections[si]
  let done = 0
  let total = 0
  let derived = 0
  for (const item of sectionItems(model, state, si)) {
    if (!isAskable(model, state, section, item)) {
      derived++
      continue
    }
    total++
    if (isLabeled(itemValue(model, state, section, item))) done++
  }
  return { done, total, derived, complete: done === total && (total > 0 || derived > 0) }
}

export function progress(model, state) {
  const sections = model.sections.map((_, si) => sectionProgress(model, state, si))
  const done = sections.reduce((a, s) => a + s.done, 0)
  const total = sections.reduce((a, s) => a + s.total, 0)
  return { sections, done, total, complete: done === total }
}

/** The progress line of the current step, e.g. "Response A · Step 1 · 7 / 12 spans". */
export function progressLabel(model, state) {
  const section = model.sections[state.cursor.section]
  if (!section) return ''
  const { done, total, derived } = sectionProgress(model, state, section.index)
  const who = section.response != null && model.responses.length > 1 ? `${model.responses[section.response].label} · ` : ''
  const step = section.step ? `Step ${section.step} · ` : ''
  if (total === 0 && derived > 0) return `${who}${step}all ${derived} ${KIND_NOUN[section.kind]} answered in step 1`
  return `${who}${step}${done} / ${total} ${KIND_NOUN[section.kind]}`
}

function describe(model, section, item, i) {
  const where = section.response == null ? section.title : `${model.responses[section.response].label}`
  switch (section.kind) {
    case 'span': return `${where}, step 1: span “${item.span.text}” is not labeled covered / not covered`
    case 'qa': return `${where}, step ${section.step}: QA “${item.qa.question}” is not labeled supported / not supported`
    case 'validation': return `${where}: QA “${item.qa.question}” is not marked valid / invalid`
    case 'fact': return item.text.trim() ? `${where}: fact ${i + 1} “${item.text}” has no label` : `${where}: fact ${i + 1} is empty (write it or delete it)`
    case 'pairwise': return `Compare: choose a score for ${item.aspect}`
  }
  return 'missing'
}

/** Everything that keeps the unit from being submitted, in order: [{ section, item, message }]. */
export function missingItems(model, state) {
  const out = []
  model.sections.forEach((section, si) => {
    sectionItems(model, state, si).forEach((item, i) => {
      if (!isAskable(model, state, section, item)) return
      const emptyFact = section.kind === 'fact' && !item.text.trim()
      if (emptyFact || !isLabeled(itemValue(model, state, section, item))) {
        out.push({ section: si, item: i, message: describe(model, section, item, i) })
      }
    })
  })
  return out
}

/** The `labels` object of POST submit, per the contract. */
export function submitLabels(model, state) {
  const L = state.labels
  const out = { spans: [], qas: [], facts: [], pairwise: [], validation: [] }
  for (const section of model.sections) {
    const r = model.responses[section.response]
    if (section.kind === 'span') {
      for (const it of section.items) out.spans.push({ span_id: it.id, covered: L.spans[it.id] })
    } else if (section.kind === 'qa') {
      for (const it of section.items) {
        const derived = isDerived(model, state, section, it)
        out.qas.push({ qa_id: it.id, supported: derived ? false : L.qas[it.id], derived_from_span: derived, note: derived ? '' : L.notes[it.id] || '' })
      }
    } else if (section.kind === 'validation') {
      for (const it of section.items) out.validation.push({ qa_id: it.id, valid: L.validation[it.id] })
    } else if (section.kind === 'fact') {
      out.facts.push(...facts.factsPayload(L.facts[r.id] || [], r.id, r.modelFacts))
    } else if (section.kind === 'pairwise') {
      for (const it of section.items) out.pairwise.push({ aspect: it.aspect, score: L.pairwise[it.aspect] })
    }
  }
  return out
}

// ---- drafts ----------------------------------------------------------------------------------------------------

export const DRAFT_VERSION = 1

export function toDraft(state, elapsedMs = state.elapsedMs) {
  return { version: DRAFT_VERSION, labels: state.labels, cursor: state.cursor, started: state.started, elapsed_ms: elapsedMs }
}

/** A state restored from a server draft; anything that does not fit this unit is dropped. */
export function fromDraft(model, draft) {
  const state = createState(model)
  if (!draft || typeof draft !== 'object' || draft.version !== DRAFT_VERSION || !draft.labels) return state
  const d = draft.labels
  const spanIds = new Set(model.responses.flatMap((r) => r.spans.map((s) => String(s.id))))
  const qaIds = new Set(model.responses.flatMap((r) => r.qas.map((q) => String(q.id))))
  const keep = (obj, ids, ok) =>
    Object.fromEntries(Object.entries(obj || {}).filter(([k, v]) => ids.has(String(k)) && ok(v)))
  const bool = (v) => typeof v === 'boolean'
  state.labels.spans = keep(d.spans, spanIds, bool)
  state.labels.qas = keep(d.qas, qaIds, bool)
  state.labels.notes = keep(d.notes, qaIds, (v) => typeof v === 'string')
  state.labels.validation = keep(d.validation, qaIds, bool)
  state.labels.pairwise = keep(d.pairwise, new Set(model.aspects), (v) => Number.isInteger(v) && v >= 1 && v <= 5)
  for (const r of factResponses(model)) {
    const list = d.facts?.[r.id]
    if (Array.isArray(list) && list.every(validFact)) state.labels.facts[r.id] = list.map((f) => ({ ...f, origin: [...f.origin] }))
  }
  state.started = !!draft.started
  state.elapsedMs = Number.isFinite(draft.elapsed_ms) ? draft.elapsed_ms : 0
  const c = draft.cursor || {}
  if (Number.isInteger(c.section) && c.section >= 0 && c.section < model.sections.length) {
    select(model, state, c.section, Number.isInteger(c.item) ? c.item : 0)
  }
  return state
}

function validFact(f) {
  return f && typeof f.key === 'string' && typeof f.text === 'string' && Array.isArray(f.origin) &&
    Number.isInteger(f.sentence_index) && (f.label === null || ['S', 'NS', 'IR'].includes(f.label))
}
