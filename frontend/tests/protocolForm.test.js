// The protocol form reads the server's manifest (tests/fixtures/manifest.json is `manage.py protocols --json`;
// tests/protocols/test_manifest.py keeps it equal to the server's): no step list of its own.
import { describe, expect, it } from 'vitest'
import { mount } from '@vue/test-utils'
import ProtocolForm from '../src/dashboard/components/ProtocolForm.vue'
import manifest from './fixtures/manifest.json'

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
    const { setManifest } = await import('../src/dashboard/manifest.js')
    const Exports = (await import('../src/dashboard/views/Exports.vue')).default
    setManifest(manifest)
    const w = mount(Exports, { props: { project: { id: 3 } } })
    const shown = w.findAll('code').map((c) => c.text())
    expect(shown).toEqual(manifest.exports.filter((e) => !e.dataset).concat(manifest.exports.filter((e) => e.dataset)).map((e) => e.value))
    const withoutMajority = w.findAll('a').filter((a) => a.text() === 'without majority')
    expect(withoutMajority.map((a) => new URL(a.attributes('href'), 'http://x').searchParams.get('export_format')))
      .toEqual(manifest.exports.filter((e) => e.options.includes('no_majority')).map((e) => e.value))
  })
})
