// The Members panel's invite link: asks the API for a link, shows it, copies it.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { flushPromises, mount } from '@vue/test-utils'
import ProjectSetup from '../src/dashboard/views/ProjectSetup.vue'

const URL_ = 'http://localhost:8000/invite/abc:def/'

function fakeFetch(calls) {
  return vi.fn(async (url, init = {}) => {
    calls.push([init.method || 'GET', url])
    const body = url.endsWith('/invite-link/') ? { url: URL_, expires_in_days: 30 } : [{ id: 1, username: 'demo', role: 'researcher' }]
    return { ok: true, status: 200, text: async () => JSON.stringify(body) }
  })
}

afterEach(() => vi.unstubAllGlobals())

describe('ProjectSetup invite link', () => {
  it('creates the link with a POST, shows it and copies it', async () => {
    const calls = []
    vi.stubGlobal('fetch', fakeFetch(calls))
    const writeText = vi.fn(async () => {})
    vi.stubGlobal('navigator', { clipboard: { writeText } })
    const w = mount(ProjectSetup, { props: { project: { id: 7, name: 'p', protocol: ['qa_support'] } } })
    await flushPromises()
    expect(w.find('[data-testid=invite-url]').exists()).toBe(false)
    await w.find('[data-testid=make-invite]').trigger('click')
    await flushPromises()
    expect(calls).toContainEqual(['POST', '/api/projects/7/invite-link/'])
    expect(w.find('[data-testid=invite-url]').element.value).toBe(URL_)
    expect(w.text()).toContain('Valid for 30 days')
    await w.find('[data-testid=copy-invite]').trigger('click')
    await flushPromises()
    expect(writeText).toHaveBeenCalledWith(URL_)
    expect(w.find('[data-testid=copy-invite]').text()).toBe('Copied')
  })
})

describe('parsedLabel', async () => {
  const { parsedLabel } = await import('../src/dashboard/format.js')
  it('tells parsed, imported (already decomposed) and unparsed responses apart', () => {
    expect(parsedLabel({ parsed_at: '2026-01-01T00:00:00Z', qa_count: 3 })).toBe('yes')
    expect(parsedLabel({ parsed_at: null, qa_count: 4, fact_count: 0 })).toBe('imported')
    expect(parsedLabel({ parsed_at: null, qa_count: 0, fact_count: 7 })).toBe('imported')
    expect(parsedLabel({ parsed_at: null, qa_count: 0, fact_count: 0 })).toBe('no')
  })
})

describe('plural', async () => {
  const { plural } = await import('../src/dashboard/format.js')
  it('says 1 worker, 2 workers, 0 workers', () => {
    expect([plural(1, 'worker'), plural(2, 'worker'), plural(0, 'span label')]).toEqual(['1 worker', '2 workers', '0 span labels'])
  })
})
