import { describe, expect, it } from 'vitest'
import { isTypingTarget, keyAction } from '../src/annotator/keyboard.js'
import { kindModule, PLAN_KINDS } from '../src/annotator/protocols/index.js'

const k = (key, extra = {}) => ({ key, ...extra })
// each section kind of the element, by the plan kind whose module serves it
const MODULES = { span: 'span_coverage', qa: 'qa_support', fact: 'fact_labeling', pairwise: 'pairwise', validation: 'qa_validation' }
const m = (kind) => kindModule(MODULES[kind])

describe('keyboard mapping', () => {
  it('one key per label, per kind', () => {
    expect(keyAction(k('c'), m('span'))).toEqual({ type: 'label', value: true })
    expect(keyAction(k('1'), m('span'))).toEqual({ type: 'label', value: true })
    expect(keyAction(k('n'), m('span'))).toEqual({ type: 'label', value: false })
    expect(keyAction(k('2'), m('span'))).toEqual({ type: 'label', value: false })
    expect(keyAction(k('s'), m('qa'))).toEqual({ type: 'label', value: true })
    expect(keyAction(k('n'), m('qa'))).toEqual({ type: 'label', value: false })
    expect(keyAction(k('s'), m('fact'))).toEqual({ type: 'label', value: 'S' })
    expect(keyAction(k('n'), m('fact'))).toEqual({ type: 'label', value: 'NS' })
    expect(keyAction(k('i'), m('fact'))).toEqual({ type: 'label', value: 'IR' })
    expect(keyAction(k('v'), m('validation'))).toEqual({ type: 'label', value: true })
    expect(keyAction(k('x'), m('validation'))).toEqual({ type: 'label', value: false })
    for (const n of [1, 2, 3, 4, 5]) expect(keyAction(k(String(n)), m('pairwise'))).toEqual({ type: 'label', value: n })
    expect(keyAction(k('C'), m('span'))).toEqual({ type: 'label', value: true }) // caps lock
  })
  it('keys of another kind do nothing', () => {
    expect(keyAction(k('c'), m('qa'))).toBeNull()
    expect(keyAction(k('s'), m('span'))).toBeNull()
    expect(keyAction(k('6'), m('pairwise'))).toBeNull()
    expect(keyAction(k('i'), m('qa'))).toBeNull()
  })
  it('navigation, undo, help, submit', () => {
    for (const key of ['ArrowDown', 'ArrowRight', 'j']) expect(keyAction(k(key), m('span')).type).toBe('next')
    for (const key of ['ArrowUp', 'ArrowLeft', 'k']) expect(keyAction(k(key), m('qa')).type).toBe('prev')
    expect(keyAction(k('u'), m('fact')).type).toBe('undo')
    expect(keyAction(k('z', { ctrlKey: true }), m('span')).type).toBe('undo')
    expect(keyAction(k('z', { metaKey: true }), m('span')).type).toBe('undo')
    expect(keyAction(k('?'), m('span')).type).toBe('help')
    expect(keyAction(k('Enter', { ctrlKey: true }), m('span')).type).toBe('submit')
    expect(keyAction(k(']'), m('span')).type).toBe('nextSection')
    expect(keyAction(k('['), m('span')).type).toBe('prevSection')
  })
  it('browser shortcuts are left alone', () => {
    expect(keyAction(k('c', { ctrlKey: true }), m('span'))).toBeNull()
    expect(keyAction(k('s', { altKey: true }), m('qa'))).toBeNull()
  })
  it('fact commands', () => {
    expect(keyAction(k('e'), m('fact')).type).toBe('edit')
    expect(keyAction(k('a'), m('fact')).type).toBe('add')
    expect(keyAction(k('d'), m('fact')).type).toBe('delete')
    expect(keyAction(k('Delete'), m('fact')).type).toBe('delete')
    expect(keyAction(k('m'), m('fact')).type).toBe('merge')
    expect(keyAction(k('e'), m('qa')).type).toBe('note')
  })
  it('no two options of a kind share a key, and labels never shadow navigation', () => {
    for (const kind of PLAN_KINDS) {
      const keys = kindModule(kind).options.flatMap((o) => o.keys)
      expect(new Set(keys).size, kind).toBe(keys.length)
      for (const key of keys) expect(['j', 'k', 'u', '?']).not.toContain(key)
    }
  })
  it('typing targets', () => {
    expect(isTypingTarget({ tagName: 'INPUT' })).toBe(true)
    expect(isTypingTarget({ tagName: 'TEXTAREA' })).toBe(true)
    expect(isTypingTarget({ tagName: 'DIV', isContentEditable: true })).toBe(true)
    expect(isTypingTarget({ tagName: 'BUTTON' })).toBe(false)
    expect(isTypingTarget(null)).toBe(false)
  })
})
