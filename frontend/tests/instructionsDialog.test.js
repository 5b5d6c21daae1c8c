// The project's instructions arrive as server-sanitised HTML (annotation_tasks.markup) and are shown as HTML;
// without it the Markdown source is shown as text, never interpreted in the element.
import { describe, expect, it } from 'vitest'
import { mount } from '@vue/test-utils'
import InstructionsDialog from '../src/annotator/components/InstructionsDialog.vue'

describe('InstructionsDialog', () => {
  it('shows the rendered instructions as HTML', () => {
    const w = mount(InstructionsDialog, {
      props: { mode: 'qasem', projectInstructions: 'Mark **Supported**', projectInstructionsHtml: '<p>Mark <strong>Supported</strong></p>' },
    })
    const box = w.get('[data-testid="project-instructions"]')
    expect(box.find('strong').text()).toBe('Supported')
    expect(box.text()).not.toContain('**')
  })
  it('falls back to the text, escaped', () => {
    const w = mount(InstructionsDialog, { props: { mode: 'qasem', projectInstructions: '<b>raw</b> **x**' } })
    const box = w.get('[data-testid="project-instructions"]')
    expect(box.find('b').exists()).toBe(false)
    expect(box.text()).toBe('<b>raw</b> **x**')
  })
})
