// One component per plan section kind (plan.js): the element renders each section of the unit's plan with the
// component registered for its kind. A new protocol's section = one component here + its kind in plan.js.
import SpanCoverageSection from './SpanCoverageSection.vue'
import QaSupportSection from './QaSupportSection.vue'
import FactLabelingSection from './FactLabelingSection.vue'
import QaValidationSection from './QaValidationSection.vue'
import PairwiseSection from './PairwiseSection.vue'
import RagasSection from './RagasSection.vue'

export const SECTION_COMPONENTS = {
  span_coverage: SpanCoverageSection,
  qa_support: QaSupportSection,
  fact_labeling: FactLabelingSection,
  qa_validation: QaValidationSection,
  pairwise: PairwiseSection,
  ragas_pairwise: RagasSection,
}
