// FActScore (annotation_tasks/protocols/factscore/): atomic facts per sentence, S / NS / IR, editable.
import factLabeling from './factLabeling.js'

export default {
  name: 'factscore',
  intro: 'Check each atomic fact of the response against the reference.',
  kinds: [factLabeling],
}
