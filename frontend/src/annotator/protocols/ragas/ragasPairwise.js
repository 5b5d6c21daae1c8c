// Plan kind ragas_pairwise (Ragas' human protocol): per comparison the plan names, two answers (faithfulness, answer
// relevance) or two retrieved contexts (context relevance), scored 1–5.
import { scoredAspects } from '../shared.js'

export default {
  ...scoredAspects,
  kind: 'ragas_pairwise',
  guide: {
    title: 'Compare answers and contexts (Ragas)',
    body: 'For the question, each comparison shows two things side by side and asks one thing about them; 1 = the left one much better, 3 = about equal, 5 = the right one much better. Faithfulness: which answer makes only claims the contexts support. Answer relevance: which answer addresses the question directly and completely (correctness does not count here). Context relevance: which context holds what the question needs with the least that it does not.',
    examples: [
      { reference: 'Context: The bridge opened in 2021.', item: 'Faithfulness: “It opened in 2021.” vs “It opened in 1998.”', label: '1', keys: '1', why: 'Only the left answer follows from the context.' },
      { reference: 'Question: When did the bridge open?', item: 'Answer relevance: “Bridges cross rivers.” vs “It opened in 2021.”', label: '5', keys: '5', why: 'The right answer addresses the question; the left one does not.' },
    ],
  },
  accepts: (entry) => Array.isArray(entry.comparisons) && entry.comparisons.length > 0,
  build(model, entry) {
    // each aspect compares the two things the server named (two answers, or two contexts of the source)
    const compared = entry.comparisons.filter((c) => c && typeof c.aspect === 'string')
    return { title: 'Compare', items: compared.map((c) => ({ key: `p-${c.aspect}`, aspect: c.aspect, comparison: c })) }
  },
}
