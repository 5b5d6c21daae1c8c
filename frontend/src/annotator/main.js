// Entry of the one-file build: registers <factcrowd-annotator> (open shadow root, styles inlined).
import { defineCustomElement } from 'vue'
import FactcrowdAnnotator from './FactcrowdAnnotator.ce.vue'

export const FactcrowdAnnotatorElement = defineCustomElement(FactcrowdAnnotator)

if (typeof customElements !== 'undefined' && !customElements.get('factcrowd-annotator')) {
  customElements.define('factcrowd-annotator', FactcrowdAnnotatorElement)
}
