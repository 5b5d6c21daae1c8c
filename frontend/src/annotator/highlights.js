// What to highlight for the current item: token ranges in the response, and the text whose words are looked up
// in the reference (lexical support).

/** [{ start, end, cls }] half-open token ranges of the response; cls: target | predicate | sentence. */
export function responseMarks(section, item, response) {
  if (!section || !item) return []
  switch (section.kind) {
    case 'span':
      return [{ start: item.span.start, end: item.span.end, cls: 'target' }]
    case 'qa':
    case 'validation': {
      const marks = []
      if (item.qa.answer_start != null) marks.push({ start: item.qa.answer_start, end: item.qa.answer_end, cls: 'target' })
      if (item.predicate) marks.push({ start: item.predicate.token_index, end: item.predicate.token_index + 1, cls: 'predicate' })
      return marks
    }
    case 'fact': {
      const sentence = response?.sentences[item.sentence_index]
      return sentence ? [{ start: sentence.start, end: sentence.end, cls: 'sentence' }] : []
    }
  }
  return []
}

/** The text whose content words are marked where they occur in the reference. */
export function supportQuery(section, item) {
  if (!section || !item) return ''
  switch (section.kind) {
    case 'span':
      return item.span.text
    case 'qa':
    case 'validation':
      return `${item.predicate?.text || ''} ${item.qa.question} ${item.qa.answer}`
    case 'fact':
      return item.text
  }
  return ''
}
