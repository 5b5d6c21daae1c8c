// Dashboard pieces that carry logic: API error text, URLs, the SVG bar chart, the protocol form, job errors.
import { describe, expect, it } from 'vitest'
import { mount } from '@vue/test-utils'
import { apiUrl, errorMessage } from '../src/dashboard/api.js'
import BarChart from '../src/dashboard/components/BarChart.vue'
import JobProgress from '../src/dashboard/components/JobProgress.vue'
import ProtocolForm from '../src/dashboard/components/ProtocolForm.vue'
import manifest from './fixtures/manifest.json'

describe('api helpers', () => {
  it('flattens DRF errors into one line', () => {
    expect(errorMessage({ detail: 'Not found.' }, 404)).toBe('Not found.')
    expect(errorMessage({ confirm: ['Confirm the cost estimate to publish.'] }, 400)).toBe('confirm: Confirm the cost estimate to publish.')
    expect(errorMessage(null, 502)).toBe('HTTP 502')
  })
  it('builds API URLs without empty parameters', () => {
    expect(apiUrl('qas/', { project: 3, validity: '', page: 2 })).toBe('/api/qas/?project=3&page=2')
  })
})

describe('BarChart', () => {
  it('draws one bar per value, with an interval whisker when given', () => {
    const w = mount(BarChart, {
      props: { items: [{ label: 'a', value: 50, lo: 40, hi: 60 }, { label: 'b', value: 25 }, { label: 'c', value: null }], max: 100 },
    })
    const bars = w.findAll('rect')
    expect(bars).toHaveLength(2)
    expect(Number(bars[0].attributes('width'))).toBeCloseTo(2 * Number(bars[1].attributes('width')), 5)
    expect(w.findAll('g[transform] line')).toHaveLength(3) // the whisker of "a" only
    expect(w.text()).toContain('50.00')
    expect(w.findAll('.chart-tick').map((t) => t.text())).toEqual(['0', '20', '40', '60', '80', '100'])
  })
  it('draws a negative value left of a visible zero line, on an axis that reaches below zero', () => {
    const w = mount(BarChart, { props: { items: [{ label: 'kappa', value: -0.2 }, { label: 'alpha', value: 0.6 }], max: 1 } })
    const zero = Number(w.find('[data-testid=zero-line]').attributes('x1'))
    const [neg, pos] = w.findAll('rect')
    expect(Number(neg.attributes('width'))).toBeGreaterThan(10)
    expect(Number(neg.attributes('x')) + Number(neg.attributes('width'))).toBeCloseTo(zero, 5)
    expect(Number(pos.attributes('x'))).toBeCloseTo(zero, 5)
    expect(Number(pos.attributes('width')) / Number(neg.attributes('width'))).toBeCloseTo(3, 5)
    const ticks = w.findAll('.chart-tick').map((t) => Number(t.text()))
    expect(ticks[0]).toBeLessThanOrEqual(-0.2)
    expect(ticks).toContain(0)
    expect(ticks.at(-1)).toBe(1)
  })
  it('says why it is empty', () => {
    expect(mount(BarChart, { props: { items: [], empty: 'Needs two labels.' } }).text()).toContain('Needs two labels.')
  })
})

describe('ProtocolForm', () => {
  it('keeps the steps in the canonical order whatever the clicking order', async () => {
    const w = mount(ProtocolForm, { props: { initial: { name: 'p', protocol: ['qa_support'] }, manifest } })
    await w.find('input[name=step-pairwise]').setValue(true)
    await w.find('input[name=step-span_coverage]').setValue(true)
    await w.find('form').trigger('submit')
    expect(w.emitted('submit')[0][0].protocol).toEqual(['span_coverage', 'qa_support', 'pairwise'])
  })
})

describe('JobProgress', () => {
  it('lists import errors by file, line and field', () => {
    const job = { id: 1, kind: 'import', status: 'failed', done: 0, total: 1, error: 'items.jsonl, line 4, field response: not a string',
      result: { errors: [{ file: 'items.jsonl', line: 4, field: 'response', message: 'not a string' }] } }
    const cells = mount(JobProgress, { props: { job } }).findAll('table.errors td').map((td) => td.text())
    expect(cells).toEqual(['items.jsonl', '4', 'response', 'not a string'])
  })
})
