// FActScore mode: the working list of atomic facts of one response. Every operation returns a new list.
// A fact: { key, origin: [model fact ids], text, sentence_index, label }.
// Model facts start with key "m<id>" and origin [id]; facts made by the annotator get keys "h<n>".

export function initialFacts(response) {
  return [...(response.facts || [])]
    .map((f, i) => ({ f, i }))
    .sort((a, b) => a.f.sentence_index - b.f.sentence_index || a.i - b.i)
    .map(({ f }) => ({ key: `m${f.id}`, origin: [f.id], text: f.text, sentence_index: f.sentence_index, label: null }))
}

function nextKey(list) {
  let max = 0
  for (const f of list) {
    const m = /^h(\d+)$/.exec(f.key)
    if (m) max = Math.max(max, Number(m[1]))
  }
  return `h${max + 1}`
}

function indexOf(list, key) {
  const i = list.findIndex((f) => f.key === key)
  if (i < 0) throw new Error(`no fact ${key}`)
  return i
}

export function editFact(list, key, text) {
  const i = indexOf(list, key)
  if (list[i].text === text) return list
  const out = [...list]
  out[i] = { ...list[i], text, label: null }
  return out
}

/** Split a fact into two at character `at` (or into the two given texts). Both halves keep its origin. */
export function splitFact(list, key, at) {
  const i = indexOf(list, key)
  const fact = list[i]
  const [a, b] = Array.isArray(at) ? at : [fact.text.slice(0, at), fact.text.slice(at)]
  const first = { ...fact, text: a.trim(), label: null }
  if (first.key.startsWith('m') && first.text !== fact.text) first.key = nextKey(list)
  const second = { key: nextKey([...list, first]), origin: [...fact.origin], text: b.trim(), sentence_index: fact.sentence_index, label: null }
  const out = [...list]
  out.splice(i, 1, first, second)
  return out
}

/** Merge a fact with the one after it: texts joined, origins united, label cleared. */
export function mergeWithNext(list, key) {
  const i = indexOf(list, key)
  if (i + 1 >= list.length) return list
  const a = list[i]
  const b = list[i + 1]
  const merged = {
    key: nextKey(list),
    origin: [...new Set([...a.origin, ...b.origin])],
    text: joinTexts(a.text, b.text),
    sentence_index: a.sentence_index,
    label: null,
  }
  const out = [...list]
  out.splice(i, 2, merged)
  return out
}

function joinTexts(a, b) {
  const left = a.trim().replace(/[.;]\s*$/, '')
  const right = b.trim()
  if (!left) return right
  if (!right) return a.trim()
  if (/^(and|but|or|while|which|who|,)\b/i.test(right) || /^,/.test(right)) return `${left} ${right}`
  return `${left} and ${right.charAt(0).toLowerCase()}${right.slice(1)}`
}

/** Add an empty fact after `afterKey`, or (afterKey null) at the end of sentence `sentenceIndex`. */
export function addFact(list, afterKey, sentenceIndex, text = '') {
  let at
  let sentence = sentenceIndex
  if (afterKey != null) {
    at = indexOf(list, afterKey) + 1
    sentence = list[at - 1].sentence_index
  } else {
    at = list.findIndex((f) => f.sentence_index > sentenceIndex)
    if (at < 0) at = list.length
  }
  const fact = { key: nextKey(list), origin: [], text, sentence_index: sentence, label: null }
  const out = [...list]
  out.splice(at, 0, fact)
  return { list: out, key: fact.key }
}

export function deleteFact(list, key) {
  const i = indexOf(list, key)
  return list.filter((_, j) => j !== i)
}

export function setFactLabel(list, key, label) {
  const i = indexOf(list, key)
  const out = [...list]
  out[i] = { ...list[i], label }
  return out
}

/** Whether a fact is an unchanged model fact (submitted by id only). */
export function isUnchanged(fact, modelFactsById) {
  if (fact.origin.length !== 1 || !fact.key.startsWith('m')) return false
  const model = modelFactsById.get(fact.origin[0])
  return !!model && model.text === fact.text && model.sentence_index === fact.sentence_index
}

/** The contract's labels.facts entries for one response's list. */
export function factsPayload(list, responseId, modelFactsById) {
  return list.map((f) =>
    isUnchanged(f, modelFactsById)
      ? { fact_id: f.origin[0], label: f.label }
      : { text: f.text, sentence_index: f.sentence_index, response_id: responseId, edited_from: [...f.origin], label: f.label },
  )
}
