// The protocol form reads the server's manifest (tests/fixtures/manifest.json is `manage.py protocols --json`;
// tests/protocols/test_manifest.py keeps it equal to the server's): no step list of its own.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { flushPromises, mount } from '@vue/test-utils'
import ProtocolForm from '../src/dashboard/components/ProtocolForm.vue'
import DataView from '../src/dashboard/views/DataView.vue'
import Exports from '../src/dashboard/views/Exports.vue'
import { setManifest } from '../src/dashboard/manifest.js'
import manifest from './fixtures/manifest.json'

// the views' own requests (lists, export-formats) answer empty; the manifest is the fixture
beforeEach(() => {
  setManifest(manifest)
  vi.stubGlobal('fetch', vi.fn(async (url) => {
    void url
    return new Response(JSON.stringify({ count: 0, results: [], unavailable: {}, scorers: [] }), { status: 200 })
  }))
})
afterEach(() => vi.unstubAllGlobals())

const form = (protocol) => mount(ProtocolForm, { props: { initial: { name: 'p', protocol }, manifest } })
const submitted = async (w) => {
  await w.find('form').trigger('submit')
  return w.emitted('submit').at(-1)[0].protocol
}

describe('ProtocolForm with the manifest', () => {
  it('keeps a WikiEval (ragas) project ragas when a step is ticked and saved', async () => {
    const w = form(['ragas_pairwise'])
    await w.find('input[name=step-qa_validation]').setValue(true)
    expect(await submitted(w)).toEqual(['qa_validation', 'ragas_pairwise']) // was ['qa_validation']: QASem units
    expect(w.find('input[name=step-ragas_pairwise]').element.checked).toBe(true)
    await w.find('input[name=step-qa_validation]').setValue(false)
    expect(await submitted(w)).toEqual(['ragas_pairwise'])
  })

  it('offers every step of the manifest, each under its protocol, and one crowd protocol at a time', async () => {
    const w = form(['span_coverage', 'qa_support'])
    const crowd = manifest.protocols.filter((p) => !p.expert_step)
    expect(w.findAll('input[name=crowd-protocol]').map((i) => i.element.value)).toEqual(crowd.map((p) => p.name))
    for (const p of crowd) {
      await w.find(`[data-testid=protocol-${p.name}]`).setValue(true)
      const steps = await submitted(w)
      expect(steps).toEqual(manifest.steps.map((s) => s.value).filter((s) => p.default_steps.includes(s)))
      for (const s of p.steps) expect(w.find(`input[name=step-${s.value}]`).exists()).toBe(true)
    }
  })

  it('keeps a step the manifest does not know instead of dropping it', async () => {
    const w = form(['future_step', 'span_coverage'])
    await w.find('input[name=step-pairwise]').setValue(true)
    expect(await submitted(w)).toEqual(['span_coverage', 'pairwise', 'future_step'])
  })

  it('gives a new project the default protocol\'s default steps', async () => {
    const w = mount(ProtocolForm, { props: { manifest } })
    const standard = manifest.protocols.find((p) => p.default_mode)
    await w.find('input[name=name]').setValue('new')
    expect(await submitted(w)).toEqual(standard.default_steps)
  })
})

describe('Exports with the manifest', () => {
  it('lists every export the server declares, each protocol\'s own first, with its options', async () => {
    const w = mount(Exports, { props: { project: { id: 3 } } })
    await flushPromises()
    const shown = w.findAll('code').map((c) => c.text())
    expect(shown).toEqual(manifest.exports.filter((e) => !e.dataset).concat(manifest.exports.filter((e) => e.dataset)).map((e) => e.value))
    const withoutMajority = w.findAll('a').filter((a) => a.text() === 'without majority')
    expect(withoutMajority.map((a) => new URL(a.attributes('href'), 'http://x').searchParams.get('export_format')))
      .toEqual(manifest.exports.filter((e) => e.options.includes('no_majority')).map((e) => e.value))
  })
})

describe('DataView upload form with the manifest', () => {
  it('offers every import format the server registers and asks for a format\'s own fields', async () => {
    const w = mount(DataView, { props: { project: { id: 5 } } })
    await flushPromises()
    const select = w.find('select[name=format]')
    expect(select.findAll('option').map((o) => o.element.value)).toEqual(manifest.importers.map((i) => i.value))
    for (const i of manifest.importers) {
      await select.setValue(i.value)
      expect(w.find('input[placeholder="file name"]').exists()).toBe(i.fields.includes('system'))
    }
    w.unmount()
  })
})
