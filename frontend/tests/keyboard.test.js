import { describe, expect, it } from 'vitest'
import { isTypingTarget, keyAction, LABEL_OPTIONS } from '../src/annotator/keyboard.js'

const k = (key, extra = {}) => ({ key, ...extra })

describe('keyboard mapping', () => {
  it('one key per label, per kind', () => {
    expect(keyAction(k('c'), 'span')).toEqual({ type: 'label', value: true })
    expect(keyAction(k('1'), 'span')).toEqual({ type: 'label', value: true })
    expect(keyAction(k('n'), 'span')).toEqual({ type: 'label', value: false })
    expect(keyAction(k('2'), 'span')).toEqual({ type: 'label', value: false })
    expect(keyAction(k('s'), 'qa')).toEqual({ type: 'label', value: true })
    expect(keyAction(k('n'), 'qa')).toEqual({ type: 'label', value: false })
    expect(keyAction(k('s'), 'fact')).toEqual({ type: 'label', value: 'S' })
    expect(keyAction(k('n'), 'fact')).toEqual({ type: 'label', value: 'NS' })
    expect(keyAction(k('i'), 'fact')).toEqual({ type: 'label', value: 'IR' })
    expect(keyAction(k('v'), 'validation')).toEqual({ type: 'label', value: true })
    expect(keyAction(k('x'), 'validation')).toEqual({ type: 'label', value: false })
    for (const n of [1, 2, 3, 4, 5]) expect(keyAction(k(String(n)), 'pairwise')).toEqual({ type: 'label', value: n })
    expect(keyAction(k('C'), 'span')).toEqual({ type: 'label', value: true }) // caps lock
  })
  it('keys of another kind do nothing', () => {
    expect(keyAction(k('c'), 'qa')).toBeNull()
    expect(keyAction(k('s'), 'span')).toBeNull()
    expect(keyAction(k('6'), 'pairwise')).toBeNull()
    expect(keyAction(k('i'), 'qa')).toBeNull()
  })
  it('navigation, undo, help, submit', () => {
    for (const key of ['ArrowDown', 'ArrowRight', 'j']) expect(keyAction(k(key), 'span').type).toBe('next')
    for (const key of ['ArrowUp', 'ArrowLeft', 'k']) expect(keyAction(k(key), 'qa').type).toBe('prev')
    expect(keyAction(k('u'), 'fact').type).toBe('undo')
    expect(keyAction(k('z', { ctrlKey: true }), 'span').type).toBe('undo')
    expect(keyAction(k('z', { metaKey: true }), 'span').type).toBe('undo')
    expect(keyAction(k('?'), 'span').type).toBe('help')
    expect(keyAction(k('Enter', { ctrlKey: true }), 'span').type).toBe('submit')
    expect(keyAction(k(']'), 'span').type).toBe('nextSection')
    expect(keyAction(k('['), 'span').type).toBe('prevSection')
  })
  it('browser shortcuts are left alone', () => {
    expect(keyAction(k('c', { ctrlKey: true }), 'span')).toBeNull()
    expect(keyAction(k('s', { altKey: true }), 'qa')).toBeNull()
  })
  it('fact commands', () => {
    expect(keyAction(k('e'), 'fact').type).toBe('edit')
    expect(keyAction(k('a'), 'fact').type).toBe('add')
    expect(keyAction(k('d'), 'fact').type).toBe('delete')
    expect(keyAction(k('Delete'), 'fact').type).toBe('delete')
    expect(keyAction(k('m'), 'fact').type).toBe('merge')
    expect(keyAction(k('e'), 'qa').type).toBe('note')
  })
  it('no two options of a kind share a key, and labels never shadow navigation', () => {
    for (const [kind, options] of Object.entries(LABEL_OPTIONS)) {
      const keys = options.flatMap((o) => o.keys)
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
