// A copy of the latest draft in localStorage, for when the server could not be reached before a reload.
// Storage can be missing or blocked (third-party iframes): every call is best effort.

const keyFor = (token) => `factcrowd:draft:${token}`

function storage() {
  try {
    return globalThis.localStorage || null
  } catch {
    return null
  }
}

export function writeBackup(token, draft, now = Date.now()) {
  try {
    storage()?.setItem(keyFor(token), JSON.stringify({ at: now, draft }))
  } catch {
    /* quota or blocked: the server draft still exists */
  }
}

export function readBackup(token) {
  try {
    const raw = storage()?.getItem(keyFor(token))
    return raw ? JSON.parse(raw) : null
  } catch {
    return null
  }
}

export function clearBackup(token) {
  try {
    storage()?.removeItem(keyFor(token))
  } catch {
    /* ignore */
  }
}

/**
 * The draft to restore. The local copy is cleared whenever the server has acknowledged the latest draft, so a
 * copy that is still there holds changes the server never got: it wins (no clock comparison needed).
 */
export function newestDraft(serverDraft, backup) {
  if (backup && backup.draft) return { draft: backup.draft, fromBackup: true }
  return { draft: serverDraft, fromBackup: false }
}
