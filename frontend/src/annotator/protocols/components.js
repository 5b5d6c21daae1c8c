// The section component of each plan kind (the Vue half of protocols/index.js): the work panel renders the current
// section with the component of its kind. Kept apart from the kind modules so those stay plain JS (Node runs them).
import SpanCoverageSection from './qasem/SpanCoverageSection.vue'
import QaSupportSection from './qasem/QaSupportSection.vue'
import PairwiseSection from './qasem/PairwiseSection.vue'
import FactLabelingSection from './factscore/FactLabelingSection.vue'
import QaValidationSection from './validation/QaValidationSection.vue'
import RagasSection from './ragas/RagasSection.vue'

const COMPONENTS = {
  span_coverage: SpanCoverageSection,
  qa_support: QaSupportSection,
  pairwise: PairwiseSection,
  fact_labeling: FactLabelingSection,
  qa_validation: QaValidationSection,
  ragas_pairwise: RagasSection,
  fact_entailment: FactLabelingSection, // the fact list, labels and a rationale instead of edits
}

/** The component that renders a section of plan kind `kind` (null: none). */
export const sectionComponent = (kind) => COMPONENTS[kind] || null
