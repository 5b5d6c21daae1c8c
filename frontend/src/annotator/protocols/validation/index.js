// QA validation (annotation_tasks/protocols/validation/): experts check the parser's QAs.
import qaValidation from './qaValidation.js'

export default {
  name: 'validation',
  intro: 'Check each question–answer pair the parser produced.',
  kinds: [qaValidation],
}
