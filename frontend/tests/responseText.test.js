import { describe, expect, it } from 'vitest'
import { mount } from '@vue/test-utils'
import ResponseText from '../src/annotator/components/ResponseText.vue'

// A tokenized import arrives detokenized, its tokens' offsets pointing into the shown text (protocols/display.py):
// the highlight of a token range is exactly the written words, spacing included.
const response = {
  text: "Riverton's mayor paid $4 million in March.",
  tokens: [['Riverton', 0, 8], ["'s", 8, 10], ['mayor', 11, 16], ['paid', 17, 21], ['$', 22, 23], ['4', 23, 24],
    ['million', 25, 32], ['in', 33, 35], ['March', 36, 41], ['.', 41, 42]],
}

describe('response text over detokenized offsets', () => {
  it('shows the text as written and marks token ranges by their offsets', () => {
    const w = mount(ResponseText, { props: { response, marks: [{ start: 0, end: 2, cls: 'target' }, { start: 4, end: 7, cls: 'predicate' }] } })
    expect(w.text()).toBe(response.text)
    expect(w.findAll('mark').map((m) => [m.text(), m.classes()[0]])).toEqual([["Riverton's", 'target'], ['$4 million', 'predicate']])
  })
})
