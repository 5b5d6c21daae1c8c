import { beforeEach, describe, expect, it } from 'vitest'
import { clearBackup, newestDraft, readBackup, writeBackup } from '../src/annotator/localBackup.js'

beforeEach(() => localStorage.clear())

describe('local draft backup', () => {
  it('round-trips per token and clears', () => {
    writeBackup('t1', { version: 1, labels: { spans: { 1: true } } }, 1000)
    writeBackup('t2', { version: 1, labels: {} }, 2000)
    expect(readBackup('t1')).toEqual({ at: 1000, draft: { version: 1, labels: { spans: { 1: true } } } })
    clearBackup('t1')
    expect(readBackup('t1')).toBeNull()
    expect(readBackup('t2').at).toBe(2000)
  })
  it('an unacknowledged local copy wins over the server draft', () => {
    const server = { version: 1, labels: { spans: {} } }
    const local = { at: 5, draft: { version: 1, labels: { spans: { 1: false } } } }
    expect(newestDraft(server, local)).toEqual({ draft: local.draft, fromBackup: true })
    expect(newestDraft(server, null)).toEqual({ draft: server, fromBackup: false })
    expect(newestDraft(null, null)).toEqual({ draft: null, fromBackup: false })
  })
  it('survives broken storage content', () => {
    localStorage.setItem('factcrowd:draft:t3', '{not json')
    expect(readBackup('t3')).toBeNull()
  })
})
