// The protocols' manifest (GET /api/protocols/, the server's protocols/manifest.py): every protocol's steps, plan
// kinds, label levels (labels error-first, display names), keys and guide, the unit modes, upload formats and
// exports. Fetched once per page and cached; the dashboard keeps no list of protocols, steps or labels of its own.
import { ref } from 'vue'
import { api } from './api.js'

const manifest = ref(null)
let pending = null

/** The manifest, fetched on the first call (later calls share the same promise; a failed fetch is retried). */
export function loadManifest() {
  if (!pending) {
    pending = api('protocols/').then((m) => (manifest.value = m)).catch((e) => {
      pending = null
      throw e
    })
  }
  return pending
}

/** The cached manifest as a ref (null until it arrives); starts the fetch. */
export function useManifest() {
  loadManifest().catch(() => {})
  return manifest
}

/** Use this manifest (tests; a page that already has it). */
export function setManifest(m) {
  manifest.value = m
  pending = Promise.resolve(m)
}

/** Forget the cached manifest (tests). */
export function resetManifest() {
  manifest.value = null
  pending = null
}

/** The protocol that serves a step value, or null. */
export function protocolOfStep(m, step) {
  const owner = (m?.steps || []).find((s) => s.value === step)?.protocol
  return (m?.protocols || []).find((p) => p.name === owner) || null
}

/** A label level by name over every protocol: { name, item_type, labels, display, keys: [[key, label]] } or null. */
export function levelInfo(m, name) {
  for (const p of m?.protocols || []) {
    const level = (p.label_levels || []).find((lv) => lv.name === name)
    if (level) {
      const keys = []
      for (const label of level.labels) {
        const k = (p.keys || []).find((key) => key.command === label && !keys.some(([used]) => used === key.key))
        keys.push([k ? k.key : String(keys.length + 1), label])
      }
      return { ...level, keys }
    }
  }
  return null
}

/** Every label level once (protocols in order), for the level filters. */
export function allLevels(m) {
  const out = []
  for (const p of m?.protocols || []) {
    for (const lv of p.label_levels || []) if (!out.some((x) => x.name === lv.name)) out.push(lv)
  }
  return out
}

/** A label as people read it: the level's display name, else the label itself. */
export function labelText(m, level, label) {
  const info = levelInfo(m, level)
  const shown = info?.display?.[label]
  return shown && shown !== label ? `${label} · ${shown}` : String(label)
}
