// QASem consistency (annotation_tasks/protocols/qasem/): span coverage, QA support, then a comparison of both
// responses.
import spanCoverage from './spanCoverage.js'
import qaSupport from './qaSupport.js'
import pairwise from './pairwise.js'

export default {
  name: 'qasem',
  intro: 'Judge each highlighted span, then each question–answer pair, against the reference.',
  kinds: [spanCoverage, qaSupport, pairwise],
}
