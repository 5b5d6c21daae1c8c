// What to highlight for the current item: token ranges in the response, and the text whose words are looked up
// in the reference (lexical support). Each plan kind's module says it for its items (marks, query: protocols/).
import { kindModule } from './protocols/index.js'

/** [{ start, end, cls }] half-open token ranges of the response; cls: target | predicate | sentence. */
export function responseMarks(section, item, response) {
  if (!section || !item) return []
  return kindModule(section.planKind)?.marks?.(item, response) || []
}

/** The text whose content words are marked where they occur in the reference. */
export function supportQuery(section, item) {
  if (!section || !item) return ''
  return kindModule(section.planKind)?.query?.(item) || ''
}

/** The knowledge passages shown in the reference panel for the current item ([] when its kind has none). */
export function itemPassages(section, item, response) {
  if (!section || !item || !response) return []
  return kindModule(section.planKind)?.passages?.(section, item, response) || []
}
