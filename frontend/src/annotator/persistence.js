// Never lose work: every change goes to the server as a draft (autosave.js) and to a local copy (localBackup.js)
// until the server has it. One object, so the controller does not juggle both.
import { createAutosave } from './autosave.js'
import { clearBackup, newestDraft, readBackup, writeBackup } from './localBackup.js'

export function createPersistence({ api, token, onStatus = () => {}, autosave: options = {} }) {
  const autosave = createAutosave({
    save: (draft, opts) => api.putDraft(draft, opts),
    onStatus: (s) => {
      onStatus(s)
      if (s === 'saved' || s === 'closed') clearBackup(token) // the server has everything
    },
    ...options,
  })
  return {
    /** The draft to restore for the server's one: { draft, fromBackup } (a local copy holds unsaved changes). */
    restore: (serverDraft) => newestDraft(serverDraft, readBackup(token)),
    /** A change: keep it locally and save it to the server soon. */
    record(draft) {
      writeBackup(token, draft)
      autosave.schedule(draft)
    },
    /** Send a restored local copy back to the server. */
    resend: (draft) => autosave.schedule(draft),
    flush: () => autosave.flush(),
    flushOnExit: () => autosave.flushOnExit(),
    retryNow: () => autosave.retryNow(),
    close: () => autosave.close(),
    /** Nothing more to keep (submitted). */
    forget: () => clearBackup(token),
    finish() {
      autosave.close()
      clearBackup(token)
    },
  }
}
