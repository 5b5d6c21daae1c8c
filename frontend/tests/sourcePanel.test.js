// Issue 23 item 13 (axe serious: scrollable-region-focusable): the reference panel scrolls (overflow: auto), so a
// keyboard user must be able to focus it to scroll it.
import { describe, expect, it } from 'vitest'
import { mount } from '@vue/test-utils'
import SourcePanel from '../src/annotator/components/SourcePanel.vue'

describe('SourcePanel', () => {
  it('is a focusable scrollable region with its name', () => {
    const wrapper = mount(SourcePanel, { props: { source: { text: 'Anna visited Paris. '.repeat(200), passages: [] } } })
    const panel = wrapper.get('[data-testid="source"]')
    expect(panel.attributes('tabindex')).toBe('0')
    expect(panel.attributes('aria-label')).toBe('Reference')
  })
})
