// @vitest-environment node
// The element is one file loaded before the first label on every unit page: at most 50 KB as `gzip -9 -c FILE | wc -c`
// counts it, the figure issue 22 holds it to (Node's zlib, used only where there is no gzip, counts ~190 bytes more).
// Built here exactly as `npm run build:annotator` builds it, into a temporary folder.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { build } from 'vite'
import { expect, it } from 'vitest'

export const ELEMENT_GZIP_LIMIT = 50_000

it('the built element is at most 50 KB gzip', async () => {
  const outDir = mkdtempSync(join(tmpdir(), 'element-size-'))
  const env = process.env.NODE_ENV
  process.env.NODE_ENV = 'production' // as under npm run build (Vitest sets 'test': Vue's SFC plugin would compile for dev)
  try {
    await build({ configFile: join(import.meta.dirname, '..', 'vite.annotator.config.js'), mode: 'production', logLevel: 'silent', build: { outDir, emptyOutDir: true } })
  } finally {
    process.env.NODE_ENV = env
  }
  const file = join(outDir, 'factcrowd-annotator.js')
  let size
  try {
    size = execFileSync('gzip', ['-9', '-c', file], { maxBuffer: 1 << 24 }).length
  } catch {
    size = gzipSync(readFileSync(file), { level: 9 }).length
  }
  expect(size).toBeGreaterThan(20_000) // it is the element, not an empty file
  expect(size).toBeLessThanOrEqual(ELEMENT_GZIP_LIMIT)
}, 60_000)
