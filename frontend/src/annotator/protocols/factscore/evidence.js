// Evidence for fact labels: the knowledge passages the server retrieved for the current atomic fact
// (payload: facts[i].passages = [{ id, matches: [[start, end], ...] }], texts once per response in `knowledge`).
// A fact the annotator edited, split or merged shows the passages of the model facts it came from.
import { markSegments } from '../../lexical.js'

/** [{ id, title, segments: [{ text, mark }] }] for the current item of a fact section; [] elsewhere. */
export function factPassages(section, item, response) {
  if (!section || section.kind !== 'fact' || !item || !response) return []
  const raw = response.raw || {}
  const texts = new Map((raw.knowledge || []).map((p) => [p.id, p]))
  const facts = new Map((raw.facts || []).map((f) => [f.id, f]))
  const out = []
  const seen = new Set()
  for (const origin of item.origin || []) {
    for (const shown of facts.get(origin)?.passages || []) {
      const passage = texts.get(shown.id)
      if (!passage || seen.has(shown.id)) continue
      seen.add(shown.id)
      const ranges = (shown.matches || []).filter((m) => Array.isArray(m) && m[0] < m[1]).sort((a, b) => a[0] - b[0])
      out.push({ id: shown.id, title: passage.title, segments: markSegments(passage.text, ranges, 'support') })
    }
  }
  return out
}
