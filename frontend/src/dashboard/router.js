// A tiny hash router: #/ (projects), #/p/<id>/<tab>. No dependency; reload keeps the place.
import { reactive } from 'vue'

export const route = reactive({ path: '/', parts: [] })

function update() {
  const path = window.location.hash.replace(/^#/, '') || '/'
  route.path = path
  route.parts = path.split('/').filter(Boolean)
}

window.addEventListener('hashchange', update)
update()

export function go(path) {
  window.location.hash = path
}
