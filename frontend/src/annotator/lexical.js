// Lexical alignment between a judged item (span, QA, atomic fact) and the reference text.
// Content words only; two words match when they share a long enough prefix ("lemma-ish"):
// die / died / dies, run / running, government / governor.

export const STOPWORDS = new Set(
  (
    'a an the and or but nor so yet if then than that this these those there here of in on at to for from by with ' +
    'without about above below into onto over under up down out off as is am are was were be been being have has had ' +
    'having do does did doing done will would shall should can could may might must not no yes its it it\'s he she they ' +
    'them his her their theirs him hers we us our you your i me my mine who whom whose which what when where why how ' +
    'all any both each few more most other some such only own same too very just also again once while during before ' +
    'after because until against between through someone something somewhere anyone anything somebody one ones'
  ).split(/\s+/),
)

const WORD_RE = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu

/** Words of a text with character offsets: [{ word, norm, start, end }]. */
export function words(text) {
  const out = []
  if (!text) return out
  for (const m of text.matchAll(WORD_RE)) {
    out.push({ word: m[0], norm: normalize(m[0]), start: m.index, end: m.index + m[0].length })
  }
  return out
}

export function normalize(word) {
  return word.toLowerCase().replace(/['’]s$/, '').replace(/['’]/g, '')
}

export function isContentWord(norm) {
  if (!norm || STOPWORDS.has(norm)) return false
  return norm.length >= 3 || /\d/.test(norm)
}

/** Whether two normalized content words likely share a lemma. */
export function wordsMatch(a, b) {
  if (a === b) return true
  if (a.length < 3 || b.length < 3 || /\d/.test(a) || /\d/.test(b)) return false
  let p = 0
  const n = Math.min(a.length, b.length)
  while (p < n && a[p] === b[p]) p++
  return p >= 3 && p >= n - 2
}

/**
 * Character ranges [start, end) of `reference` words that match a content word of `query`.
 * `referenceWords` may be passed pre-computed (words(reference)) to avoid re-tokenizing.
 */
export function supportRanges(referenceWords, query) {
  const queryNorms = [...new Set(words(query).map((w) => w.norm).filter(isContentWord))]
  if (!queryNorms.length) return []
  const ranges = []
  for (const w of referenceWords) {
    if (!isContentWord(w.norm)) continue
    if (queryNorms.some((q) => wordsMatch(q, w.norm))) ranges.push([w.start, w.end])
  }
  return ranges
}

/** Split text into [{ text, mark }] segments; `ranges` are sorted, non-overlapping [start, end). */
export function markSegments(text, ranges, markClass = 'mark') {
  const segs = []
  let pos = 0
  for (const [start, end] of ranges) {
    if (start < pos) continue
    if (start > pos) segs.push({ text: text.slice(pos, start), mark: null })
    // glue marked words separated only by a space or hyphen ("52-year-old") into one segment
    const last = segs[segs.length - 1]
    const gap = last && last.mark ? null : segs[segs.length - 1]
    const prev = segs[segs.length - 2]
    if (last && last.mark && start === pos) last.text += text.slice(start, end)
    else if (gap && prev && prev.mark && /^[\s\-–]{1,2}$/.test(gap.text) && !gap.text.includes('\n')) {
      segs.pop()
      prev.text += gap.text + text.slice(start, end)
    } else segs.push({ text: text.slice(start, end), mark: markClass })
    pos = end
  }
  if (pos < text.length) segs.push({ text: text.slice(pos), mark: null })
  return segs
}
