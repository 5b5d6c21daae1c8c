import { describe, expect, it } from 'vitest'
import { markSegments, supportRanges, words, wordsMatch } from '../src/annotator/lexical.js'

describe('lexical alignment', () => {
  it('matches lemma-ish prefixes of content words', () => {
    expect(wordsMatch('died', 'die')).toBe(true)
    expect(wordsMatch('running', 'run')).toBe(true)
    expect(wordsMatch('vaccinated', 'vaccination')).toBe(true)
    expect(wordsMatch('measles', 'measure')).toBe(false)
    expect(wordsMatch('1991', '1992')).toBe(false)
    expect(wordsMatch('ox', 'oxen')).toBe(false)
  })
  it('marks reference words that support the item, not stopwords', () => {
    const ref = 'The man had not been vaccinated. He died of measles in 1991.'
    const marked = supportRanges(words(ref), 'The man died from measles').map(([a, b]) => ref.slice(a, b))
    expect(marked).toEqual(['man', 'died', 'measles'])
    expect(supportRanges(words(ref), 'the of in')).toEqual([])
    expect(supportRanges(words(ref), 'since 1991').map(([a, b]) => ref.slice(a, b))).toEqual(['1991'])
  })
  it('segments keep the text whole', () => {
    const text = 'A man died of measles.'
    const segs = markSegments(text, [[2, 5], [6, 10], [14, 21]], 'support')
    expect(segs.map((s) => s.text).join('')).toBe(text)
    expect(segs.filter((s) => s.mark).map((s) => s.text)).toEqual(['man died', 'measles'])
    const hy = 'a 52-year-old man'
    const ws = words(hy)
    expect(markSegments(hy, supportRanges(ws, '52 year old'), 'm').filter((s) => s.mark).map((s) => s.text)).toEqual(['52-year-old'])
  })
})
