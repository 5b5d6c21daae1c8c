// The controller's read side: what the views show (current item, its section and kind module, highlights,
// progress, guides) and the queries the item lists call. Computed from the session, never written.
import { computed } from 'vue'
import * as H from './highlights.js'
import { guides, introLines, keyRows } from './instructions.js'
import * as S from './state.js'

/** `s`: the controller's session (controller.js). */
export function createViews(s) {
  const { state } = s
  const model = () => s.model.value
  const current = computed(() => (model() ? S.currentItem(model(), state) : null))
  const currentSection = computed(() => model()?.sections[state.cursor.section] || null)
  const currentModule = computed(() => S.moduleOf(currentSection.value))
  const currentResponse = computed(() => {
    const sec = currentSection.value
    return sec && sec.response != null ? model().responses[sec.response] : null
  })
  const value = (si, item) => S.itemValue(model(), state, model().sections[si], item)
  const derived = (si, item) => S.isDerived(model(), state, model().sections[si], item)
  const isCurrent = (si, i) => state.cursor.section === si && state.cursor.item === i
  return {
    current,
    currentSection,
    currentModule,
    currentResponse,
    responseMarks: computed(() => H.responseMarks(currentSection.value, current.value, currentResponse.value)),
    supportQuery: computed(() => H.supportQuery(currentSection.value, current.value)),
    passages: computed(() => H.itemPassages(currentSection.value, current.value, currentResponse.value)),
    progress: computed(() => (model() ? S.progress(model(), state) : { sections: [], done: 0, total: 0 })),
    progressText: computed(() => (model() ? S.progressLabel(model(), state) : '')),
    intro: computed(() => introLines(model())),
    guides: computed(() => guides(model())),
    keyRows: computed(() => keyRows(model())),
    items: (si) => S.sectionItems(model(), state, si),
    value,
    valueName: (si, item) => {
      const v = value(si, item)
      return v === undefined || v === null ? '' : String(v)
    },
    derived,
    isCurrent,
    itemClass: (si, i, item) => {
      const v = value(si, item)
      return { current: isCurrent(si, i), labeled: v !== undefined && v !== null, derived: derived(si, item) }
    },
  }
}
