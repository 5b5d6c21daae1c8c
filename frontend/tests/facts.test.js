import { describe, expect, it } from 'vitest'
import * as F from '../src/annotator/protocols/factscore/facts.js'

const response = {
  id: 5,
  facts: [
    { id: 2, sentence_index: 1, text: 'He was not vaccinated.' },
    { id: 1, sentence_index: 0, text: 'A man died from measles in Ohio.' },
    { id: 3, sentence_index: 0, text: 'He was 52.' },
  ],
}
const byId = new Map(response.facts.map((f) => [f.id, f]))

describe('facts', () => {
  it('start from the model facts, in sentence order', () => {
    const list = F.initialFacts(response)
    expect(list.map((f) => f.origin[0])).toEqual([1, 3, 2])
    expect(F.factsPayload(list, 5, byId)).toEqual([
      { fact_id: 1, label: null },
      { fact_id: 3, label: null },
      { fact_id: 2, label: null },
    ])
  })
  it('split at a character keeps the origin for both halves', () => {
    const list = F.initialFacts(response)
    const out = F.splitFact(list, 'm1', 'A man died from measles'.length)
    expect(out.map((f) => f.text)).toEqual(['A man died from measles', 'in Ohio.', 'He was 52.', 'He was not vaccinated.'])
    expect(out[0].origin).toEqual([1])
    expect(out[1].origin).toEqual([1])
    expect(new Set(out.map((f) => f.key)).size).toBe(out.length)
    const payload = F.factsPayload(out.map((f) => ({ ...f, label: 'S' })), 5, byId)
    expect(payload[0]).toEqual({ text: 'A man died from measles', sentence_index: 0, response_id: 5, edited_from: [1], label: 'S' })
    expect(payload[2]).toEqual({ fact_id: 3, label: 'S' })
    expect(list[0].text).toBe('A man died from measles in Ohio.') // the input list is untouched
  })
  it('merge joins texts and unites origins', () => {
    const out = F.mergeWithNext(F.initialFacts(response), 'm1')
    expect(out).toHaveLength(2)
    expect(out[0].origin).toEqual([1, 3])
    expect(out[0].text).toBe('A man died from measles in Ohio and he was 52.')
    expect(F.factsPayload(out, 5, byId)[0]).toMatchObject({ edited_from: [1, 3], sentence_index: 0, response_id: 5 })
    expect(F.mergeWithNext(out, out[1].key)).toBe(out) // nothing after the last
  })
  it('add, edit, delete', () => {
    let list = F.initialFacts(response)
    const added = F.addFact(list, 'm3', null, 'He lived in Ohio.')
    list = added.list
    expect(list.map((f) => f.key)).toEqual(['m1', 'm3', added.key, 'm2'])
    expect(list[2]).toMatchObject({ origin: [], sentence_index: 0 })
    const toEnd = F.addFact(list, null, 1)
    expect(toEnd.list.at(-1)).toMatchObject({ key: toEnd.key, sentence_index: 1, text: '' })
    list = F.editFact(F.setFactLabel(list, 'm2', 'S'), 'm2', 'He was never vaccinated.')
    expect(list.at(-1).label).toBeNull() // an edited fact needs a new label
    expect(F.factsPayload(list, 5, byId).at(-1)).toEqual({ text: 'He was never vaccinated.', sentence_index: 1, response_id: 5, edited_from: [2], label: null })
    expect(F.factsPayload(list, 5, byId)[2]).toMatchObject({ edited_from: [], text: 'He lived in Ohio.' })
    list = F.deleteFact(list, 'm1')
    expect(list.map((f) => f.key)).not.toContain('m1')
    expect(() => F.deleteFact(list, 'nope')).toThrow()
  })
  it('a model fact edited back to its text is unchanged again', () => {
    const list = F.editFact(F.editFact(F.initialFacts(response), 'm3', 'He was 53.'), 'm3', 'He was 52.')
    expect(F.isUnchanged(list[1], byId)).toBe(true)
  })
})
