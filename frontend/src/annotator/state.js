// The annotation session as plain data: a static model of the unit (model.js: sections and items) and a mutable
// state (labels, cursor, undo history). What an item's value is, how it is sent, restored and described is its plan
// kind's business (protocols/): this file asks the section's module and knows no kind. No Vue, no DOM: everything
// here runs in Node.
import { buildModel, moduleOf } from './model.js'
import { LABEL_BUCKETS, SUBMIT_KEYS } from './protocols/index.js'

export { buildModel, moduleOf }

const HISTORY_LIMIT = 200

export function createState(model) {
  const labels = Object.fromEntries(LABEL_BUCKETS.map((b) => [b, {}]))
  for (const section of model.sections) moduleOf(section).init?.(model, labels, section)
  return { labels, cursor: { section: 0, item: 0 }, history: [], started: false, elapsedMs: 0 }
}

// ---- items and values ----------------------------------------------------------------------------------------

export function sectionItems(model, state, si) {
  const section = model.sections[si]
  if (!section) return []
  const { items } = moduleOf(section)
  return items ? items(model, state, section) : section.items
}

export function currentItem(model, state) {
  return sectionItems(model, state, state.cursor.section)[state.cursor.item] || null
}

/** An item is derived when earlier labels answer it (it is not asked; e.g. a QA whose span is not covered). */
export function isDerived(model, state, section, item) {
  return !!moduleOf(section)?.isDerived?.(model, state, section, item)
}

export function itemValue(model, state, section, item) {
  return moduleOf(section)?.value(model, state, section, item)
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
  moduleOf(section).setValue(model, state, section, item, value)
  move(model, state, 1)
  return true
}

/** The note of an item of section `si` ('' when its kind takes none). */
export function noteOf(model, state, si, id) {
  return moduleOf(model.sections[si])?.note?.(state, id) || ''
}

/** Set (or clear, with '') the note of an item of section `si`, when its kind takes notes. */
export function setNote(model, state, si, id, text) {
  moduleOf(model.sections[si])?.setNote?.(state, id, text)
}

/**
 * Change the item list of the current section, when its kind allows it (e.g. facts: edit / split / merge / add /
 * delete); undoable. Returns what the kind's change returns (the key of the item it produced), or null.
 */
export function changeItems(model, state, op, ...args) {
  const section = model.sections[state.cursor.section]
  const change = moduleOf(section)?.change
  if (!change) return null
  return change({ model, state, section, remember: () => remember(state) }, op, ...args)
}

// ---- progress, completeness, submission ----------------------------------------------------------------------

/** { done, total } askable items of a section, `derived`: its items answered by earlier labels (not asked), and
 * `complete`: nothing left to do there (a step whose items all follow from earlier ones is complete, at 0 / 0). */
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
  const { noun } = moduleOf(section)
  if (total === 0 && derived > 0) return `${who}${step}all ${derived} ${noun} answered in step 1`
  return `${who}${step}${done} / ${total} ${noun}`
}

/** Everything that keeps the unit from being submitted, in order: [{ section, item, message }]. */
export function missingItems(model, state) {
  const out = []
  model.sections.forEach((section, si) => {
    const module = moduleOf(section)
    sectionItems(model, state, si).forEach((item, i) => {
      if (!isAskable(model, state, section, item)) return
      if (module.blocks?.(item) || !isLabeled(itemValue(model, state, section, item))) {
        out.push({ section: si, item: i, message: module.missing(model, section, item, i) })
      }
    })
  })
  return out
}

/** The `labels` object of POST submit, per the contract: each section's kind adds its items to its list. */
export function submitLabels(model, state) {
  const out = Object.fromEntries(SUBMIT_KEYS.map((k) => [k, []]))
  for (const section of model.sections) moduleOf(section).collect(model, state, section, out)
  return out
}

// ---- drafts ----------------------------------------------------------------------------------------------------

export const DRAFT_VERSION = 1

export function toDraft(state, elapsedMs = state.elapsedMs) {
  return { version: DRAFT_VERSION, labels: state.labels, cursor: state.cursor, started: state.started, elapsed_ms: elapsedMs }
}

/** A state restored from a server draft; each kind keeps what fits this unit, anything else is dropped. */
export function fromDraft(model, draft) {
  const state = createState(model)
  if (!draft || typeof draft !== 'object' || draft.version !== DRAFT_VERSION || !draft.labels) return state
  const byModule = new Map()
  for (const section of model.sections) {
    const module = moduleOf(section)
    byModule.set(module, [...(byModule.get(module) || []), section])
  }
  for (const [module, sections] of byModule) module.restore(model, state.labels, draft.labels, sections)
  state.started = !!draft.started
  state.elapsedMs = Number.isFinite(draft.elapsed_ms) ? draft.elapsed_ms : 0
  const c = draft.cursor || {}
  if (Number.isInteger(c.section) && c.section >= 0 && c.section < model.sections.length) {
    select(model, state, c.section, Number.isInteger(c.item) ? c.item : 0)
  }
  return state
}
