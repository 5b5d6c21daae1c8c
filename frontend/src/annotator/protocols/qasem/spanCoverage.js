// Plan kind span_coverage (QASem step 1): each answer span of one response, covered / not covered by the reference.
import { spanIds, titlePrefix, whereOf, yesNo, yesNoById } from '../shared.js'

export default {
  kind: 'span_coverage',
  sectionKind: 'span',
  noun: 'spans',
  ...yesNoById('spans', 'span_id', 'covered', spanIds),
  options: yesNo(['Covered', ['c', '1'], 'covered'], ['Not covered', ['n', '2'], 'not-covered']),
  guide: {
    title: 'Step 1 · Span coverage',
    body: 'For each highlighted span of the response, decide whether the reference mentions it (the same entity, event or detail, possibly in other words).',
    examples: [
      { reference: 'A 52-year-old man from Ohio died of measles last week.', item: 'A man', label: 'Covered', keys: 'c', why: 'The reference mentions the man.' },
      { reference: 'A 52-year-old man from Ohio died of measles last week.', item: 'in a hospital in Texas', label: 'Not covered', keys: 'n', why: 'The reference says nothing about a hospital or Texas.' },
    ],
  },
  perResponse: true,
  build: (model, entry, r) => ({ title: `${titlePrefix(model, r)}Spans`, items: r.spans.map((s) => ({ key: `s${s.id}`, id: s.id, span: s })) }),
  missing: (model, section, item) => `${whereOf(model, section)}, step 1: span “${item.span.text}” is not labeled covered / not covered`,
  marks: (item) => [{ start: item.span.start, end: item.span.end, cls: 'target' }],
  query: (item) => item.span.text,
}
