// Ragas on WikiEval (annotation_tasks/protocols/ragas/): answers and contexts compared, 1–5 per aspect.
import ragasPairwise from './ragasPairwise.js'

export default {
  name: 'ragas',
  intro: 'Compare two answers, then two contexts, for the question: which one is better on each aspect asked.',
  kinds: [ragasPairwise],
}
