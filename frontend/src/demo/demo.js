import { installMockServer } from './mockServer.js'

const q = new URLSearchParams(location.search)
const mode = q.get('mode') || 'qasem'
const server = installMockServer({ mode, rag: q.has('rag'), preview: q.has('preview'), failDrafts: q.has('offline') })
if (q.has('fresh')) server.reset()

// the element is registered after the mock is in place
await import('../annotator/main.js')

const el = document.createElement('factcrowd-annotator')
el.setAttribute('token', 'demo-token')
if (q.has('preview')) el.setAttribute('preview', 'true')
el.addEventListener('submitted', (e) => console.info('submitted', e.detail))
document.getElementById('mount').appendChild(el)
