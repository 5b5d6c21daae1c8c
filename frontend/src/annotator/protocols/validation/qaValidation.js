// Plan kind qa_validation (expert pre-step): is each QA the parser produced valid?
import { qaIds, qaItems, qaMarks, qaQuery, titlePrefix, whereOf, yesNo, yesNoById } from '../shared.js'

export default {
  kind: 'qa_validation',
  sectionKind: 'validation',
  noun: 'QAs',
  ...yesNoById('validation', 'qa_id', 'valid', qaIds),
  options: yesNo(['Valid', ['v', '1'], 'valid'], ['Invalid', ['x', '2'], 'invalid']),
  guide: {
    title: 'QA validation',
    body: 'Each question–answer pair was produced by a parser. Mark it valid if the question is grammatical, is about the highlighted predicate, and the answer answers it as stated in the response; otherwise invalid.',
    examples: [
      { reference: 'A man died from measles.', item: 'Who died? — A man', label: 'Valid', keys: 'v', why: 'A correct question about “died” with the right answer.' },
      { reference: 'A man died from measles.', item: 'What did someone die? — measles', label: 'Invalid', keys: 'x', why: 'The question is ungrammatical for this predicate.' },
    ],
  },
  perResponse: true,
  build: (model, entry, r) => ({ title: `${titlePrefix(model, r)}QAs`, items: qaItems(r, 'v') }),
  missing: (model, section, item) => `${whereOf(model, section)}: QA “${item.qa.question}” is not marked valid / invalid`,
  marks: qaMarks,
  query: qaQuery,
}
