// Fact entailment (annotation_tasks/protocols/entailment/): each atomic fact supported / contradicted / not enough
// info by the source, with an optional rationale.
import factEntailment from './factEntailment.js'

export default {
  name: 'entailment',
  intro: 'Judge each atomic fact of the response against the source: supported, contradicted, or not enough info.',
  kinds: [factEntailment],
}
